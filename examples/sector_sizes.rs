//! The sectors of a rule set's start and their sizes (index slots), for estimating a
//! whole solve from measured throughput: `cargo run --release --example sector_sizes --
//! morabaraba [WK-BK]`. Prints the movement and placement totals, and the largest unit.

use morris::{Rules, Sector};

fn main() {
    let mut args = std::env::args().skip(1);
    let rules: Rules = args.next().unwrap_or_else(|| "standard".into()).parse().expect("a rule set");
    let (wk, bk) = match args.next() {
        Some(s) => {
            let (w, b) = s.split_once('-').expect("WK-BK");
            (w.parse().unwrap(), b.parse().unwrap())
        }
        None => (rules.stones(), rules.stones()),
    };
    let game = rules.game();
    let all = Sector::reachable(Sector::start(wk, bk).expect("a start"), game);
    // Every movement subspace the start reaches, and what their captures lead into.
    let mut movement: std::collections::BTreeSet<Sector> = all.iter().copied().filter(|s| s.is_movement()).collect();
    let mut stack: Vec<Sector> = movement.iter().copied().collect();
    while let Some(x) = stack.pop() {
        for c in x.children(game) {
            if movement.insert(c) {
                stack.push(c);
            }
        }
    }
    let slots = |set: &mut dyn Iterator<Item = &Sector>| -> (usize, u64) {
        let v: Vec<u64> = set.map(|s| s.index(morris::rules::Board::Nine).len()).collect();
        (v.len(), v.iter().sum())
    };
    let (nm, sm) = slots(&mut movement.iter());
    let (np, sp) = slots(&mut all.iter().filter(|s| !s.is_movement()));
    // A unit is a sector with its mirror (once for `s-s`).
    let unit_slots = |s: &Sector| s.index(morris::rules::Board::Nine).len() + if s.after_slide() == *s { 0 } else { s.after_slide().index(morris::rules::Board::Nine).len() };
    let largest = movement.iter().map(|s| (unit_slots(s), *s)).max().unwrap();
    println!("rules {rules}, start {wk}-{bk}");
    println!("movement sectors {nm}, slots {sm}");
    println!("placement sectors {np}, slots {sp}");
    println!("largest movement unit {} with its mirror: {} slots ({} bytes at 3 bytes a slot while solved)", largest.1, largest.0, 3 * largest.0);
    // Under Lasker rules a placement sector is solved with its mirror too (a slide keeps
    // both hands), so those units can outgrow the movement ones and set the peak memory.
    let size = |s: &Sector| if rules.lasker() { unit_slots(s) } else { s.index(morris::rules::Board::Nine).len() };
    let (size, sector) = all.iter().filter(|s| !s.is_movement()).map(|s| (size(s), *s)).max().unwrap_or((0, largest.1));
    let what = if rules.lasker() { "unit, with its mirror" } else { "sector" };
    println!("largest placement {what}: {sector}, {size} slots ({} bytes at 3 bytes a slot while solved)", 3 * size);
}
