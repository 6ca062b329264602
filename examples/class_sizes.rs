//! What the class files of a directory would take with other group sizes (strong
//! blocks a zstd frame), against what they take: `cargo run --release --example
//! class_sizes -- DIR [SECTOR...]` (every class file of DIR by default).
use morris::position::value::DRAW;
use morris::solve::ultra::SectorValues;
use morris::table::class::encode_group;
use morris::table::ClassFile;
use morris::table::{table_path, TableFile};
use rayon::prelude::*;

const GROUPS: [usize; 5] = [1, 4, 8, 16, 32];

/// Bytes of a class file of `entries` (per strong block) at `group` blocks a frame.
fn size(blocks: &[Vec<(i16, u16)>], rank: i16, group: usize) -> u64 {
    let frames: u64 = blocks
        .par_chunks(group)
        .map(|g| {
            if g.iter().all(Vec::is_empty) {
                return 0;
            }
            let mut z = zstd::bulk::Compressor::new(19).unwrap();
            z.include_checksum(true).unwrap();
            z.compress(&encode_group(g, rank).unwrap()).unwrap().len() as u64
        })
        .sum();
    256 + 8 * blocks.len().div_ceil(group) as u64 + frames
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::Path::new(&args[1]);
    let rules = morris::Rules::default();
    let values = SectorValues::parse(&std::fs::read_to_string(dir.join("sector-values.txt")).unwrap()).unwrap();
    let mut names: Vec<String> = args[2..].to_vec();
    if names.is_empty() {
        for e in std::fs::read_dir(dir).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            if let Some(x) = name.strip_suffix(".mtc") {
                names.push(x.to_owned());
            }
        }
        names.sort();
    }
    let (mut now, mut strong_bytes, mut total) = (0u64, 0u64, [0u64; GROUPS.len()]);
    for name in &names {
        let x: morris::Sector = name.parse().unwrap();
        let strong = TableFile::open(&table_path(dir, x), x, &rules).unwrap();
        let file = ClassFile::open(dir, &strong, values.fingerprint()).unwrap();
        let stored = strong.read_all().unwrap();
        let bs = strong.header.block_size as usize;
        let blocks: Vec<Vec<(i16, u16)>> = stored.chunks(bs).enumerate().map(|(k, b)| if b.contains(&DRAW) { file.block(k, b).unwrap() } else { Vec::new() }).collect();
        let sizes: Vec<u64> = GROUPS.iter().map(|&g| size(&blocks, file.header.rank, g)).collect();
        println!(
            "{x}: {} B now ({} blocks a frame); {}",
            file.file_size(),
            file.header.group,
            GROUPS.iter().zip(&sizes).map(|(g, s)| format!("{g}: {s}")).collect::<Vec<_>>().join(", ")
        );
        now += file.file_size();
        sizes.iter().zip(total.iter_mut()).for_each(|(s, t)| *t += s);
    }
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_name().to_string_lossy().ends_with(".mtb") {
            strong_bytes += e.metadata().unwrap().len();
        }
    }
    let pct = |b: u64| 100.0 * b as f64 / strong_bytes.max(1) as f64;
    println!("all {} class files: {now} B now ({:.2} % of the directory's tables, {strong_bytes} B)", names.len(), pct(now));
    for (g, t) in GROUPS.iter().zip(total) {
        println!("  {g:>2} blocks a frame: {t} B ({:.2} %)", pct(t));
    }
}
