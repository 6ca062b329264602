//! Criterion benches for the hot paths: index, unindex, move and unmove generation,
//! and a small full solve. Throughput is reported per position. Loops are wrapped in
//! `fast!`, as the solver's are, so they run the code path the processor allows
//! (`MORRIS_NO_BMI2=1` measures the portable one).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use morris::cpu::fast;
use morris::position::index::SubspaceIndex;
use morris::rules::movegen::{for_each_move, for_each_move_group, for_each_unmove};
use morris::solve::{solve_unit, DeepValues};
use morris::NoProgress;
use morris::{Subspace, Unit};
use std::collections::HashMap;

const N: usize = 4096;

fn sample(sub: Subspace) -> (SubspaceIndex, Vec<(u32, u32)>, Vec<u64>) {
    let idx = SubspaceIndex::new(morris::rules::Board::Nine, sub.s, sub.o);
    let mut x = 0x2545F4914F6CDD1Du64;
    let mut slots = Vec::with_capacity(N);
    let mut positions = Vec::with_capacity(N);
    while positions.len() < N {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let i = x % idx.len();
        if !idx.is_hole(i) {
            slots.push(i);
            positions.push(idx.unindex(i));
        }
    }
    (idx, positions, slots)
}

fn bench_index(c: &mut Criterion) {
    eprintln!("code path: {}", morris::cpu::describe());
    let mut g = c.benchmark_group("index");
    g.throughput(Throughput::Elements(N as u64));
    for name in ["3-3", "8-8", "9-7"] {
        let (idx, positions, slots) = sample(name.parse().unwrap());
        g.bench_function(format!("index {name}"), |b| b.iter(|| fast!(positions.iter().map(|&(m, o)| idx.index(m, o)).fold(0u64, |a, i| a ^ i))));
        g.bench_function(format!("unindex {name}"), |b| b.iter(|| fast!(slots.iter().map(|&i| idx.unindex(i)).fold(0u32, |a, (m, o)| a ^ m ^ o))));
        // The solver's common case: children sharing one side's stones, that side
        // canonicalised once (`prepare`) and the other ranked per child.
        g.bench_function(format!("index prepared {name}"), |b| {
            b.iter(|| {
                fast!(positions.iter().fold(0u64, |a, &(m, o)| {
                    let prep = idx.prepare(o, false).or_else(|| idx.prepare(m, true));
                    a ^ idx.index_with(&prep, m, o)
                }))
            })
        });
        g.bench_function(format!("is_hole {name}"), |b| b.iter(|| fast!(slots.iter().filter(|&&i| idx.is_hole(black_box(i))).count())));
    }
    g.finish();
}

/// The pieces of an index: the colex rank of a set, a symmetry applied to a set, and
/// the canonical form of a pair (orbit of the first set, least image of the second).
fn bench_canonical(c: &mut Criterion) {
    use morris::position::combin::rank;
    use morris::position::index::SetOrbits;
    use morris::rules::symmetry;
    let (_, positions, _) = sample("8-8".parse().unwrap());
    let mut g = c.benchmark_group("canonical");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("rank", |b| b.iter(|| fast!(positions.iter().fold(0u64, |a, &(m, o)| a ^ rank(black_box(m)) ^ rank(o)))));
    g.bench_function("symmetry apply", |b| b.iter(|| fast!(positions.iter().enumerate().fold(0u32, |a, (k, &(m, _))| a ^ symmetry::apply(k % symmetry::COUNT, black_box(m))))));
    for k in [3usize, 8] {
        let orbits = SetOrbits::get(morris::rules::Board::Nine, k);
        let (_, pairs, _) = sample(morris::Subspace::new(k as u8, 8).unwrap());
        g.bench_function(format!("canonical_pair {k}"), |b| {
            b.iter(|| {
                fast!(pairs.iter().fold(0u32, |a, &(m, o)| {
                    let (orbit, least) = orbits.canonical_pair(black_box(m), o);
                    a ^ orbit ^ least
                }))
            })
        });
    }
    g.finish();
}

/// Hardware `pext` against the byte-table version, on masks like the index's (the
/// points left free by 3..9 stones).
fn bench_pext(c: &mut Criterion) {
    use morris::position::combin::{pext, pext_table};
    let mut x = 0x9E3779B97F4A7C15u64;
    let pairs: Vec<(u32, u32)> = (0..N)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let taken = (x as u32 & 0xff_ffff) & (x >> 24) as u32 & (x >> 40) as u32;
            let free = !taken & 0xff_ffff;
            ((x >> 13) as u32 & 0xff_ffff, free)
        })
        .collect();
    let mut g = c.benchmark_group("pext");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("pext (run-time choice)", |b| b.iter(|| fast!(pairs.iter().fold(0u32, |a, &(v, m)| a ^ pext(black_box(v), m)))));
    g.bench_function("pext by byte tables", |b| b.iter(|| fast!(pairs.iter().fold(0u32, |a, &(v, m)| a ^ pext_table(black_box(v), m)))));
    g.finish();
}

fn bench_moves(c: &mut Criterion) {
    let game = morris::rules::game::Game::standard();
    let mut g = c.benchmark_group("movegen");
    g.throughput(Throughput::Elements(N as u64));
    for name in ["3-5", "7-7"] {
        let (_, positions, _) = sample(name.parse().unwrap());
        g.bench_function(format!("moves {name}"), |b| {
            b.iter(|| {
                fast!({
                    let mut n = 0u32;
                    for &(m, o) in &positions {
                        for_each_move(game, m, o, |_, cm, co| n = n.wrapping_add(cm ^ co));
                    }
                    black_box(n)
                })
            })
        });
        // The moves a stone at a time, split into plain and closing points: what the
        // verifier walks.
        g.bench_function(format!("groups {name}"), |b| {
            b.iter(|| {
                fast!({
                    let mut n = 0u32;
                    for &(m, o) in &positions {
                        for_each_move_group(game, m, o, 0, |from, plain, closing| n = n.wrapping_add(plain.count_ones() + closing.count_ones() + from as u32));
                    }
                    black_box(n)
                })
            })
        });
        g.bench_function(format!("unmoves {name}"), |b| {
            b.iter(|| {
                fast!({
                    let mut n = 0u32;
                    for &(m, o) in &positions {
                        for_each_unmove(game, m, o, |pm, po| n = n.wrapping_add(pm ^ po));
                    }
                    black_box(n)
                })
            })
        });
    }
    g.finish();
}

fn bench_solve(c: &mut Criterion) {
    let mut g = c.benchmark_group("solve");
    g.sample_size(10);
    let unit = "3-3".parse::<Subspace>().unwrap().unit();
    g.throughput(Throughput::Elements(SubspaceIndex::new(morris::rules::Board::Nine, 3, 3).len()));
    g.bench_function("solve 3-3", |b| {
        b.iter(|| {
            solve_unit(morris::rules::game::Game::standard(), &unit.sectors(), &HashMap::<Subspace, Vec<u8>>::new(), &NoProgress, DeepValues::Refuse)
                .expect("the values fit the encoding")
        })
    });
    let mut deps = HashMap::new();
    for u in Unit::all_in_order().into_iter().filter(|u| u.total() <= 7) {
        for s in solve_unit(morris::rules::game::Game::standard(), &u.sectors(), &deps, &NoProgress, DeepValues::Refuse).expect("the values fit the encoding") {
            deps.insert(s.sector.subspace().unwrap(), s.values);
        }
    }
    let unit44 = "4-4".parse::<Subspace>().unwrap().unit();
    g.throughput(Throughput::Elements(SubspaceIndex::new(morris::rules::Board::Nine, 4, 4).len()));
    g.bench_function("solve 4-4", |b| {
        b.iter(|| solve_unit(morris::rules::game::Game::standard(), &unit44.sectors(), &deps, &NoProgress, DeepValues::Refuse).expect("the values fit the encoding"))
    });
    g.finish();
}

/// The match harness's fallible opponent: nodes per second of its search, from the
/// empty board and from a movement position (the budget is spent in full in both).
fn bench_alphabeta(c: &mut Criterion) {
    use morris::arena::{alphabeta, Rng};
    let mut g = c.benchmark_group("alphabeta");
    g.sample_size(10);
    let rules = morris::Rules::default();
    const NODES: u64 = 100_000;
    g.throughput(Throughput::Elements(NODES));
    for (name, text) in [("empty board 9-9", "........................ w 9 9"), ("movement 8-8", "WWB.BWBW.BWBWB..BWBW.BW. w 0 0")] {
        let pos = morris::Position::parse(text, morris::Rules::STANDARD).unwrap();
        g.bench_function(name, |b| {
            let mut rng = Rng::for_game(1, 0);
            b.iter(|| alphabeta::best_move(&rules, black_box(&pos), NODES, &mut rng))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_index, bench_canonical, bench_pext, bench_moves, bench_solve, bench_alphabeta);
criterion_main!(benches);
