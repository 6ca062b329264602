//! The placement search on small starts (tables solved in memory beforehand), one
//! fresh transposition table per search, so each iteration does the full work.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use morris::solve::placement::{search, MovementTables};
use morris::solve::{solve_unit, DeepValues};
use morris::NoProgress;
use morris::{Color, Position, Unit};
use std::collections::HashMap;

fn tables(max: u8) -> MovementTables {
    let mut solved = HashMap::new();
    for unit in Unit::all_in_order().into_iter().filter(|u| u.total() <= max) {
        for s in solve_unit(morris::rules::game::Game::standard(), &unit.sectors(), &solved, &NoProgress, DeepValues::Refuse).expect("the values fit the encoding") {
            solved.insert(s.sector.subspace().unwrap(), s.values);
        }
    }
    MovementTables::from_map(morris::rules::game::Game::standard(), solved)
}

fn bench_placement(c: &mut Criterion) {
    let tables = tables(8);
    let mut g = c.benchmark_group("placement");
    g.sample_size(10);
    for (wk, bk) in [(3, 3), (4, 4)] {
        let root = Position::unchecked(morris::Rules::STANDARD, 0, 0, wk, bk, Color::White);
        let nodes = search::solve(&root, &tables, &NoProgress).nodes;
        g.throughput(Throughput::Elements(nodes));
        g.bench_function(format!("empty board {wk}-{bk} ({nodes} nodes)"), |b| {
            b.iter(|| {
                let tt = search::Tt::new(search::table_bytes_for(&root));
                search::solve_with_tt(&root, &tables, &tt, &NoProgress).value
            })
        });
    }
    // A mid-placement position of the 4-4 start: two stones each placed, White to move.
    let root = Position::parse("W.....B....W...B........ w 2 2", morris::Rules::STANDARD).unwrap();
    g.throughput(Throughput::Elements(1));
    g.bench_function("placement probe, 4-4 after 4 plies", |b| {
        b.iter(|| {
            let tt = search::Tt::new(search::table_bytes_for(&root));
            search::solve_with_tt(&root, &tables, &tt, &NoProgress).value
        })
    });
    g.finish();
}

/// Backward induction of one placement sector from its children's tables in memory.
fn bench_sector(c: &mut Criterion) {
    use morris::solve::generate::{self, Options};
    use morris::table::{table_path, TableFile};
    use morris::Sector;
    let dir = tempfile::tempdir().unwrap();
    generate::run(&Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(5, 5)], rules: morris::Rules::STANDARD }, &NoProgress).unwrap();
    let mut g = c.benchmark_group("sector");
    g.sample_size(10);
    for name in ["4-4-1-1", "4-5-1-0"] {
        let sector: Sector = name.parse().unwrap();
        let children: HashMap<Sector, Vec<u8>> = sector
            .children(morris::rules::game::Game::standard())
            .into_iter()
            .map(|s| (s, TableFile::open(&table_path(dir.path(), s), s, &morris::rules::Rules::STANDARD).unwrap().read_all().unwrap()))
            .collect();
        g.throughput(Throughput::Elements(sector.index(morris::rules::Board::Nine).len()));
        g.bench_function(format!("solve sector {name}"), |b| {
            b.iter(|| {
                solve_unit(morris::rules::game::Game::standard(), &[sector], &children, &NoProgress, DeepValues::Refuse).expect("the values fit the encoding")[0].values.len()
            })
        });
    }
    g.finish();
}

/// A Lasker placement unit, solved by retrograde analysis (stones move during
/// placement, so the sector has cycles), from its children's tables in memory. Each of
/// its positions reads about ten children in other sectors, most of them placements:
/// the path of `retro::exits` that Lasker's placement phase, most of its game, runs.
fn bench_lasker_unit(c: &mut Criterion) {
    use morris::solve::generate::{self, Options};
    use morris::solve::graph::UnitId;
    use morris::table::{table_path, TableFile};
    use morris::Sector;
    let rules: morris::Rules = "lasker".parse().unwrap();
    let game = morris::rules::game::Game::of(rules);
    let dir = tempfile::tempdir().unwrap();
    generate::run(&Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(4, 4)], rules }, &NoProgress).unwrap();
    let mut g = c.benchmark_group("sector");
    g.sample_size(10);
    for name in ["3-3-1-1", "3-2-1-1"] {
        let unit = UnitId::parse(name, &rules).unwrap();
        let children: HashMap<Sector, Vec<u8>> =
            unit.reads(game).into_iter().map(|s| (s, TableFile::open(&table_path(dir.path(), s), s, &rules).unwrap().read_all().unwrap())).collect();
        g.throughput(Throughput::Elements(unit.sectors().iter().map(|s| s.index(rules.board()).len()).sum()));
        g.bench_function(format!("solve Lasker unit {name}"), |b| {
            b.iter(|| solve_unit(game, unit.sectors(), &children, &NoProgress, DeepValues::Refuse).expect("the values fit the encoding").len())
        });
    }
    g.finish();
}

criterion_group!(benches, bench_placement, bench_sector, bench_lasker_unit);
criterion_main!(benches);
