//! Random probes through the table files (warm page cache, one thread).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use morris::position::index::SubspaceIndex;
use morris::probe::Tablebase;
use morris::solve::generate::{self, Options};
use morris::NoProgress;
use morris::Subspace;

const N: usize = 4096;

fn bench_probe(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    generate::run(&Options { dir: dir.path().to_owned(), max_stones: 8, only: None, starts: vec![], rules: morris::Rules::STANDARD }, &NoProgress).unwrap();
    let subs: Vec<Subspace> = Subspace::all().filter(|s| s.total() <= 8).collect();
    let mut x = 0x9E3779B97F4A7C15u64;
    let mut positions = Vec::new();
    while positions.len() < N {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let sub = subs[(x % subs.len() as u64) as usize];
        let idx = SubspaceIndex::new(morris::rules::Board::Nine, sub.s, sub.o);
        let i = (x >> 8) % idx.len();
        if !idx.is_hole(i) {
            positions.push(idx.unindex(i));
        }
    }
    let mut g = c.benchmark_group("probe");
    g.throughput(Throughput::Elements(N as u64));
    let uncached = Tablebase::with_cache(dir.path(), 0).unwrap();
    g.bench_function("random probes, no block cache", |b| {
        b.iter(|| positions.iter().map(|&(m, o)| uncached.probe_movement::<morris::Value>(m, o).unwrap().goodness() as i64).sum::<i64>())
    });
    g.bench_function("random WLD-only probes, no block cache", |b| {
        b.iter(|| positions.iter().filter(|&&(m, o)| uncached.probe_movement::<morris::Wdl>(m, o).unwrap() == morris::Wdl::Win).count())
    });
    let cached = Tablebase::open(dir.path()).unwrap();
    g.bench_function("random probes, default block cache", |b| {
        b.iter(|| positions.iter().map(|&(m, o)| cached.probe_movement::<morris::Value>(m, o).unwrap().goodness() as i64).sum::<i64>())
    });
    let results = Tablebase::open(dir.path()).unwrap();
    g.bench_function("random WLD-only probes, default block cache", |b| {
        b.iter(|| positions.iter().filter(|&&(m, o)| results.probe_movement::<morris::Wdl>(m, o).unwrap() == morris::Wdl::Win).count())
    });
    g.finish();
}

/// Random positions with stones in hand, each one lookup in its sector's table (one
/// thread, default block cache). Tables: `MORRIS_BENCH_DB` if set (for example the
/// full tables of `morris solve --all`), otherwise the 5-5 start solved here.
/// `MORRIS_BENCH_START=9-9` draws the positions from that start's sectors.
fn bench_placement_probe(c: &mut Criterion) {
    use morris::{Color, Position, Sector};
    let tmp = tempfile::tempdir().unwrap();
    let dir = match std::env::var_os("MORRIS_BENCH_DB") {
        Some(d) => std::path::PathBuf::from(d),
        None => {
            generate::run(&Options { dir: tmp.path().to_owned(), max_stones: 0, only: None, starts: vec![(5, 5)], rules: morris::Rules::STANDARD }, &NoProgress).unwrap();
            tmp.path().to_owned()
        }
    };
    // `MORRIS_BENCH_START=WK-BK`: the positions of that start's placement sectors, even
    // where a compact set (`morris compact`) left the table out; otherwise the
    // placement tables present.
    let sectors: Vec<Sector> = match std::env::var("MORRIS_BENCH_START") {
        Ok(start) => {
            let (wk, bk) = start.split_once('-').expect("MORRIS_BENCH_START=WK-BK");
            Sector::reachable(Sector::start(wk.parse().unwrap(), bk.parse().unwrap()).expect("a start"), morris::rules::game::Game::standard()).into_iter().collect()
        }
        Err(_) => std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".mtb")?.parse::<Sector>().ok()).collect(),
    };
    let sectors: Vec<Sector> = sectors.into_iter().filter(|s| !s.is_movement()).collect();
    // Weighted by size, as positions of a random game are.
    let sizes: Vec<u64> = sectors.iter().map(|s| s.index(morris::rules::Board::Nine).len()).collect();
    let total: u64 = sizes.iter().sum();
    let mut x = 0x2545F4914F6CDD1Du64;
    let mut positions = Vec::new();
    while positions.len() < N {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut r = x % total;
        let k = sizes
            .iter()
            .position(|&n| {
                if r < n {
                    true
                } else {
                    r -= n;
                    false
                }
            })
            .unwrap();
        let (s, idx) = (sectors[k], sectors[k].index(morris::rules::Board::Nine));
        let (m, o) = idx.unindex(r);
        positions.push(Position::unchecked(morris::Rules::STANDARD, m, o, s.sh, s.oh, Color::White));
    }
    let tb = Tablebase::open(&dir).unwrap();
    let mut g = c.benchmark_group("probe");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function(format!("random placement probes, {} sectors", sectors.len()), |b| b.iter(|| positions.iter().map(|p| tb.probe(p).unwrap().goodness() as i64).sum::<i64>()));
    g.finish();
}

/// Random draws of the 4-4 start, each probed for its draw class (`probe_ultra`: the
/// strong block, then the class file's group of 16 blocks; a favoured draw also reads
/// its children one ply up). One thread, default block cache.
fn bench_ultra_probe(c: &mut Criterion) {
    use morris::{Color, Position, Sector, Value};
    let tmp = tempfile::tempdir().unwrap();
    let rules = morris::Rules::STANDARD;
    generate::run(&Options { dir: tmp.path().to_owned(), max_stones: 0, only: None, starts: vec![(4, 4)], rules }, &NoProgress).unwrap();
    morris::solve::ultra::run::run_dir(tmp.path(), &rules, &[(4, 4)], None, &NoProgress, &mut |_| {}).unwrap();
    let tb = Tablebase::open(tmp.path()).unwrap();
    // The sectors the start reaches with a draw: those with a class file.
    let sectors: Vec<Sector> =
        Sector::reachable(Sector::start(4, 4).unwrap(), morris::rules::game::Game::standard()).into_iter().filter(|&s| morris::table::class_path(tmp.path(), s).exists()).collect();
    let mut x = 0x853C49E6748FEA9Bu64;
    let mut positions = Vec::new();
    while positions.len() < N / 4 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let s = sectors[(x % sectors.len() as u64) as usize];
        let idx = s.index(morris::rules::Board::Nine);
        let i = (x >> 8) % idx.len();
        if idx.is_hole(i) {
            continue;
        }
        let (m, o) = idx.unindex(i);
        let p = Position::unchecked(morris::Rules::STANDARD, m, o, s.sh, s.oh, Color::White);
        if tb.probe(&p).is_ok_and(|v| v == Value::Draw) {
            positions.push(p);
        }
    }
    let mut g = c.benchmark_group("probe");
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function("random draws of the 4-4 start, with their class", |b| {
        b.iter(|| positions.iter().filter(|p| matches!(tb.probe_ultra(p).unwrap(), morris::UltraValue::Draw(_))).count())
    });
    g.finish();
}

criterion_group!(benches, bench_probe, bench_placement_probe, bench_ultra_probe);
criterion_main!(benches);
