//! Measures how small a context model could code a table's planes, against zstd:
//! the conditional entropy of each entry's result (and of each win's or loss's depth)
//! given cheap contexts. Usage: `context_entropy DIR SECTOR...` (README, "Compact sets").
//!
//! Contexts for the result: c0 none, c1 the previous entry, c2 the previous two, c3
//! features of the position (mills the side to move and the opponent can close in one
//! move, 0/1/2+, and whether either side is blocked), c4 features and previous entry,
//! c5 features and previous two. For the depth: d0 the result, d1 result and the
//! previous depth of that result, d2 result and features, d3 all three.

use morris::rules::geometry::Bits;
use morris::rules::Board;
use morris::table::{table_path, TableFile};
use morris::Sector;

/// Moves of `own` that close a mill, capped at 2 (a placing or flying side may close
/// any mill with two stones and an empty third point).
fn closers(own: Bits, opp: Bits, hand: u8) -> usize {
    let geo = Board::Nine.geometry();
    let empty = geo.mask() & !own & !opp;
    let mut targets = 0;
    for &m in geo.mills() {
        let have = own & m;
        if have.count_ones() == 2 && m & !have & empty != 0 {
            targets |= m & !have;
        }
    }
    if hand > 0 || own.count_ones() == 3 {
        return (targets.count_ones() as usize).min(2);
    }
    let mut n = 0;
    let mut t = targets;
    while t != 0 {
        let p = t.trailing_zeros() as usize;
        t &= t - 1;
        let mut q = geo.adj()[p] & own;
        while q != 0 {
            let k = q.trailing_zeros() as usize;
            q &= q - 1;
            let after = (own & !(1 << k)) | (1 << p);
            if geo.point_mills()[p].iter().any(|&m| m & !after == 0) {
                n += 1;
            }
        }
    }
    n.min(2)
}

fn blocked(own: Bits, opp: Bits, hand: u8) -> bool {
    let geo = Board::Nine.geometry();
    let empty = geo.mask() & !own & !opp;
    hand == 0 && own.count_ones() > 3 && (0..24).all(|k| own >> k & 1 == 0 || geo.adj()[k] & empty == 0)
}

/// Total code length in bits of symbols counted per context, each context coded with
/// its own static frequencies.
fn bits(counts: &[Vec<u64>]) -> f64 {
    let mut b = 0.0;
    for c in counts {
        let n: u64 = c.iter().sum();
        for &x in c.iter().filter(|&&x| x > 0) {
            b -= x as f64 * (x as f64 / n as f64).log2();
        }
    }
    b
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().expect("usage: context_entropy DIR SECTOR..."));
    let (mut n_all, mut zstd_wld, mut zstd_depth) = (0u64, 0u64, 0u64);
    let (mut wld, mut depth) = ([0f64; 6], [0f64; 4]);
    for name in args {
        let sec: Sector = name.parse().expect("a sector S-O or S-O-SH-OH");
        let t = TableFile::open(&table_path(&dir, sec), sec, &morris::rules::Rules::STANDARD).unwrap();
        let v = t.read_all().unwrap();
        let idx = sec.index(Board::Nine);
        let sizes = [1, 3, 9, 27, 81, 243];
        let mut c: Vec<Vec<Vec<u64>>> = sizes.iter().map(|&n| vec![vec![0u64; 3]; n]).collect();
        let mut d: Vec<Vec<Vec<u64>>> = [2, 2 * 27, 2 * 257, 2 * 257 * 27].iter().map(|&n| vec![vec![0u64; 256]; n]).collect();
        let (mut p1, mut p2, mut last) = (0usize, 0usize, [256usize; 2]);
        for (i, m, o) in idx.walk(0, idx.len()) {
            if idx.may_be_hole(i) && idx.is_hole(i) {
                continue;
            }
            let b = v[i as usize];
            let x = if b == 0 {
                0
            } else if b < 128 {
                1
            } else {
                2
            };
            let f = closers(m, o, sec.sh) * 9 + closers(o, m, sec.oh) * 3 + (blocked(m, o, sec.sh) as usize + 2 * blocked(o, m, sec.oh) as usize).min(2);
            for (k, ctx) in [0, p1, p1 * 3 + p2, f, f * 3 + p1, f * 9 + p1 * 3 + p2].into_iter().enumerate() {
                c[k][ctx][x] += 1;
            }
            if x != 0 {
                let r = x - 1;
                let dv = if b < 128 { b - 1 } else { b - 128 } as usize;
                for (k, ctx) in [r, r * 27 + f, r * 257 + last[r], (r * 257 + last[r]) * 27 + f].into_iter().enumerate() {
                    d[k][ctx][dv] += 1;
                }
                last[r] = dv;
            }
            (p2, p1) = (p1, x);
        }
        let n = t.header.stats.positions;
        let (zw, zd) = t.plane_bytes();
        let per = |b: f64| b / n as f64;
        print!("{sec:>9} {n:>11} positions, bits/position: WLD zstd {:.3}", per(zw as f64 * 8.0));
        for k in 0..6 {
            let b = bits(&c[k]);
            wld[k] += b;
            print!(" c{k} {:.3}", per(b));
        }
        print!("; depth zstd {:.3}", per(zd as f64 * 8.0));
        for k in 0..4 {
            let b = bits(&d[k]);
            depth[k] += b;
            print!(" d{k} {:.3}", per(b));
        }
        println!();
        (n_all, zstd_wld, zstd_depth) = (n_all + n, zstd_wld + zw, zstd_depth + zd);
    }
    let per = |b: f64| b / n_all.max(1) as f64;
    print!("{:>9} {n_all:>11} positions, bits/position: WLD zstd {:.3}", "all", per(zstd_wld as f64 * 8.0));
    for k in 0..6 {
        print!(" c{k} {:.3}", per(wld[k]));
    }
    print!("; depth zstd {:.3}", per(zstd_depth as f64 * 8.0));
    for k in 0..4 {
        print!(" d{k} {:.3}", per(depth[k]));
    }
    println!();
}
