//! Random probes through the table files (warm page cache, one thread).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use morris::generate::{self, Options};
use morris::index::SubspaceIndex;
use morris::probe::Tablebase;
use morris::solver::NoProgress;
use morris::Subspace;

const N: usize = 4096;

fn bench_probe(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    generate::run(&Options { dir: dir.path().to_owned(), max_stones: 8, only: None, start: None }, &NoProgress).unwrap();
    let subs: Vec<Subspace> = Subspace::all().filter(|s| s.total() <= 8).collect();
    let mut x = 0x9E3779B97F4A7C15u64;
    let mut positions = Vec::new();
    while positions.len() < N {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let sub = subs[(x % subs.len() as u64) as usize];
        let idx = SubspaceIndex::new(sub);
        let i = (x >> 8) % idx.len();
        if !idx.is_hole(i) {
            positions.push(idx.unindex(i));
        }
    }
    let mut g = c.benchmark_group("probe");
    g.throughput(Throughput::Elements(N as u64));
    let uncached = Tablebase::with_cache(dir.path(), 0).unwrap();
    g.bench_function("random probes, no block cache", |b| {
        b.iter(|| positions.iter().map(|&(m, o)| uncached.probe_movement(m, o).unwrap().goodness() as i64).sum::<i64>())
    });
    g.bench_function("random WLD-only probes, no block cache", |b| {
        b.iter(|| positions.iter().filter(|&&(m, o)| uncached.probe_wdl_movement(m, o).unwrap() == morris::probe::Wdl::Win).count())
    });
    let cached = Tablebase::open(dir.path()).unwrap();
    g.bench_function("random probes, default block cache", |b| {
        b.iter(|| positions.iter().map(|&(m, o)| cached.probe_movement(m, o).unwrap().goodness() as i64).sum::<i64>())
    });
    g.finish();
}

criterion_group!(benches, bench_probe);
criterion_main!(benches);
