//! Shared by the draw-class tests: a start solved strongly and classed in memory.

use morris::rules::Rules;
use morris::solve::generate::{self, Options};
use morris::solve::ultra::run::{classes_in_memory, counts_of, sectors_of, InMemory};
use morris::solve::ultra::SectorValues;
use morris::table::{table_path, TableFile};
use morris::NoProgress;
use std::collections::BTreeMap;

/// Solves a start strongly, then classes it in memory.
pub fn classed(rules: &str, wk: u8, bk: u8) -> (Rules, SectorValues, InMemory) {
    let rules: Rules = rules.parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let opts = Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(wk, bk)], rules };
    generate::run(&opts, &NoProgress).unwrap();
    let game = rules.game();
    let set = sectors_of(game, &[(wk, bk)]);
    let mut mem = InMemory::default();
    let mut counts = BTreeMap::new();
    for &x in &set {
        let t = TableFile::open(&table_path(dir.path(), x), x, &rules).unwrap_or_else(|e| panic!("{x}: {e}"));
        counts.insert(x, counts_of(&t.header.stats));
        mem.values.insert(x, t.read_all().unwrap());
    }
    let values = SectorValues::from_counts(&counts);
    classes_in_memory(game, &set, &values, &mut mem).unwrap();
    (rules, values, mem)
}
