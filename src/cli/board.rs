//! A text diagram of the board for people.

use morris::geometry::point_by_name;
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

/// The board with `W`, `B` or `·` on each point, columns and rows labelled.
pub fn diagram(pos: &Position) -> String {
    let mut out = String::new();
    for line in TEMPLATE {
        let bytes = line.as_bytes();
        let mut i = 0;
        let mut row = String::new();
        while i < bytes.len() {
            if i >= 2 && i + 1 < bytes.len() && bytes[i].is_ascii_lowercase() && bytes[i + 1].is_ascii_digit() {
                let p = point_by_name(&line[i..i + 2]).expect("template names real points");
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
    out.push_str("  a   b   c   d   e   f   g\n");
    out
}
