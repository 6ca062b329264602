//! The placement search on small starts (tables solved in memory beforehand), one
//! fresh transposition table per search, so each iteration does the full work.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use morris::placement::{search, MovementTables};
use morris::solver::{solve_unit, NoProgress};
use morris::{Color, Position, Unit};
use std::collections::HashMap;

fn tables(max: u8) -> MovementTables {
    let mut solved = HashMap::new();
    for unit in Unit::all_in_order().into_iter().filter(|u| u.total() <= max) {
        for (sub, values) in solve_unit(unit, &solved, &NoProgress) {
            solved.insert(sub, values);
        }
    }
    MovementTables::from_map(solved)
}

fn bench_placement(c: &mut Criterion) {
    let tables = tables(8);
    let mut g = c.benchmark_group("placement");
    g.sample_size(10);
    for (wk, bk) in [(3, 3), (4, 4)] {
        let root = Position { white: 0, black: 0, white_hand: wk, black_hand: bk, to_move: Color::White };
        let nodes = search::solve(&root, &tables, &NoProgress).nodes;
        g.throughput(Throughput::Elements(nodes));
        g.bench_function(format!("empty board {wk}-{bk} ({nodes} nodes)"), |b| {
            b.iter(|| {
                let tt = search::Tt::new(search::table_bytes_for(&root));
                search::solve_in(&root, &tables, &tt, &NoProgress).value
            })
        });
    }
    // A mid-placement position of the 4-4 start: two stones each placed, White to move.
    let root: Position = "W.....B....W...B........ w 2 2".parse().unwrap();
    g.throughput(Throughput::Elements(1));
    g.bench_function("placement probe, 4-4 after 4 plies", |b| {
        b.iter(|| {
            let tt = search::Tt::new(search::table_bytes_for(&root));
            search::solve_in(&root, &tables, &tt, &NoProgress).value
        })
    });
    g.finish();
}

criterion_group!(benches, bench_placement);
criterion_main!(benches);
