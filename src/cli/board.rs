//! A text diagram of the board for people.

use morris::rules::Board;
use morris::Position;

const TEMPLATE: [&str; 13] = [
    "7 a7----------d7----------g7",
    "  |           |           |",
    "6 |   b6------d6------f6  |",
    "  |   |       |       |   |",
    "5 |   |   c5--d5--e5  |   |",
    "  |   |   |       |   |   |",
    "4 a4--b4--c4      e4--f4--g4",
    "  |   |   |       |   |   |",
    "3 |   |   c3--d3--e3  |   |",
    "  |   |       |       |   |",
    "2 |   b2------d2------f2  |",
    "  |           |           |",
    "1 a1----------d1----------g1",
];

/// The 16-point board of Six and Five Men's Morris (the point names of docs/rules.md).
const SIX: [&str; 9] = [
    "5 a5------c5------e5",
    "  |       |       |",
    "4 |   b4--c4--d4  |",
    "  |   |       |   |",
    "3 a3--b3      d3--e3",
    "  |   |       |   |",
    "2 |   b2--c2--d2  |",
    "  |       |       |",
    "1 a1------c1------e1",
];

/// The corner diagonals of the `nine-diagonal` board: (row, column, character).
const DIAGONALS: [(usize, usize, u8); 8] = [(1, 4, b'\\'), (1, 24, b'/'), (3, 8, b'\\'), (3, 20, b'/'), (9, 8, b'/'), (9, 20, b'\\'), (11, 4, b'/'), (11, 24, b'\\')];

/// The board with `W`, `B` or `·` on each point, columns and rows labelled; the
/// diagonals drawn where the rules' board has them.
pub fn diagram(pos: &Position, rules: &morris::Rules) -> String {
    let mut out = String::new();
    let six = rules.board() == Board::Six;
    let template: &[&str] = if six { &SIX } else { &TEMPLATE };
    let geo = rules.board().geometry();
    let mut lines: Vec<String> = template.iter().map(|l| l.to_string()).collect();
    if rules.board() == morris::rules::Board::NineDiagonal {
        for (row, col, c) in DIAGONALS {
            // SAFETY of the byte edit: the template is ASCII, and so is `c`.
            let mut bytes = lines[row].clone().into_bytes();
            bytes[col] = c;
            lines[row] = String::from_utf8(bytes).expect("ASCII");
        }
    }
    for line in &lines {
        let line = line.as_str();
        let bytes = line.as_bytes();
        let mut i = 0;
        let mut row = String::new();
        while i < bytes.len() {
            if i >= 2 && i + 1 < bytes.len() && bytes[i].is_ascii_lowercase() && bytes[i + 1].is_ascii_digit() {
                let p = geo.point(&line[i..i + 2]).expect("template names real points");
                let c = if pos.white >> p & 1 != 0 {
                    'W'
                } else if pos.black >> p & 1 != 0 {
                    'B'
                } else {
                    '.'
                };
                row.push(c);
                // keep the spacing of the two-character name
                row.push(if bytes.get(i + 2) == Some(&b'-') { '-' } else { ' ' });
                i += 2;
            } else {
                row.push(bytes[i] as char);
                i += 1;
            }
        }
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out.push_str(if six { "  a   b   c   d   e\n" } else { "  a   b   c   d   e   f   g\n" });
    out
}
