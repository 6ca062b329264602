use morris::position::index::SubspaceIndex;
use morris::table::{table_path, TableFile};
use morris::Sector;
fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap());
    let names: Vec<Sector> = std::env::args().skip(2).map(|s| s.parse().unwrap()).collect();
    let (mut pos, mut wld_b, mut wld2_b, mut dep_b, mut full_b) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for sub in names {
        let t = TableFile::open(&table_path(&dir, sub), sub, &morris::rules::Rules::STANDARD).unwrap();
        let v = t.read_all().unwrap();
        let idx: SubspaceIndex = sub.index(morris::rules::Board::Nine);
        let mut wld = Vec::with_capacity(v.len());
        let mut dep = Vec::new();
        let mut last = 0u8;
        for (i, &b) in v.iter().enumerate() {
            let hole = idx.may_be_hole(i as u64) && idx.is_hole(i as u64);
            let w = if hole {
                last
            } else if b == 0 {
                0
            } else if b < 128 {
                1
            } else {
                2
            };
            last = w;
            wld.push(w);
            if !hole && b != 0 {
                dep.push(if b < 128 { b - 1 } else { b - 128 });
            }
        }
        let bs: usize = std::env::var("BS").unwrap().parse().unwrap();
        let lvl: i32 = std::env::var("LVL").unwrap().parse().unwrap();
        let wl: usize = wld.chunks(bs).map(|c| zstd::bulk::compress(c, lvl).unwrap().len()).sum();
        // 2-bit packed
        let packed: Vec<u8> = wld.chunks(4).map(|c| c.iter().enumerate().fold(0u8, |a, (k, &x)| a | x << (2 * k))).collect();
        let wl2: usize = packed.chunks(bs / 4).map(|c| zstd::bulk::compress(c, lvl).unwrap().len()).sum();
        let dl: usize = dep.chunks(bs).map(|c| zstd::bulk::compress(c, lvl).unwrap().len()).sum();
        let p = t.header.stats.positions;
        println!(
            "{sub} pos {p} wld-bytes {:.3} wld-2bit {:.3} depth {:.3} current {:.3}",
            wl as f64 * 8.0 / p as f64,
            wl2 as f64 * 8.0 / p as f64,
            dl as f64 * 8.0 / p as f64,
            t.file_size() as f64 * 8.0 / p as f64
        );
        pos += p;
        wld_b += wl as u64;
        wld2_b += wl2 as u64;
        dep_b += dl as u64;
        full_b += t.file_size();
    }
    println!(
        "TOTAL wld {:.3} wld2 {:.3} depth {:.3} wld+depth {:.3} current {:.3}",
        wld_b as f64 * 8.0 / pos as f64,
        wld2_b as f64 * 8.0 / pos as f64,
        dep_b as f64 * 8.0 / pos as f64,
        (wld_b.min(wld2_b) + dep_b) as f64 * 8.0 / pos as f64,
        full_b as f64 * 8.0 / pos as f64
    );
}
