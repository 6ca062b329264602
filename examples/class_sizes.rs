//! How a class file's bytes split between classes and depths, and what other
//! encodings would take: `cargo run --release --example class_sizes -- DIR SECTOR...`.
use morris::table::{table_path, TableFile};
use morris::ultra::classes::NO_CLASS;
use morris::ultra::file::ClassFile;
use morris::ultra::SectorValues;

fn z(b: &[u8]) -> usize {
    zstd::bulk::compress(b, 19).unwrap().len()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::Path::new(&args[1]);
    let rules = morris::Rules::default();
    let values = SectorValues::parse(&std::fs::read_to_string(dir.join("sector-values.txt")).unwrap()).unwrap();
    for name in &args[2..] {
        let x: morris::Sector = name.parse().unwrap();
        let strong = TableFile::open(&table_path(dir, x), x, &rules).unwrap();
        let file = ClassFile::open(dir, &strong, values.fingerprint()).unwrap();
        let cl = file.read_all(&strong).unwrap();
        let rank = values.get(x).unwrap() as i16;
        let (mut classes, mut dlo, mut dhi, mut dv) = (vec![], vec![], vec![], vec![]);
        let mut hist = std::collections::BTreeMap::new();
        for (c, d) in cl.class.iter().zip(&cl.depth) {
            if *c == NO_CLASS {
                continue;
            }
            classes.push(*c as u8);
            if *c < rank {
                dv.push(d.min(&255u16).to_owned() as u8);
            }
            if *c != rank {
                dlo.push(*d as u8);
                dhi.push((*d >> 8) as u8);
                *hist.entry(*d).or_insert(0u64) += 1;
            }
        }
        let n = dlo.len() as f64;
        let ent: f64 = hist.values().map(|&k| { let p = k as f64 / n; -p * p.log2() }).sum();
        println!(
            "{x}: file {} B; {} draws, {} with a depth (max {:?}, entropy {ent:.2} bits); zstd: classes {} B, unfavoured depth bytes {} B, lo {} B + hi {} B",
            file.file_size(), classes.len(), dlo.len(), hist.keys().last(), z(&classes), z(&dv), z(&dlo), z(&dhi)
        );
    }
}
