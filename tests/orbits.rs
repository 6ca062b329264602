//! Orbit counts: the index's number of non-hole slots per subspace equals Burnside's
//! count, computed here independently from the cycle structure of the 16 symmetries.

use morris::position::index::SubspaceIndex;
use morris::Subspace;

/// The 16 symmetries as permutations of algebraic point names, built from docs/rules.md
/// geometry (columns a..g, rows 1..7) rather than the engine's internal numbering.
fn symmetries() -> Vec<Vec<usize>> {
    let names = ["a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4", "e4", "f4", "g4", "c3", "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1"];
    let coord = |n: &str| -> (i32, i32) { ((n.as_bytes()[0] - b'a') as i32 - 3, (n.as_bytes()[1] - b'1') as i32 - 3) };
    let find = |x: i32, y: i32| names.iter().position(|n| coord(n) == (x, y)).unwrap();
    let mut out = vec![];
    for swap in [false, true] {
        for mirror in [false, true] {
            for rot in 0..4 {
                let perm: Vec<usize> = names
                    .iter()
                    .map(|n| {
                        let (mut x, mut y) = coord(n);
                        if mirror {
                            x = -x;
                        }
                        for _ in 0..rot {
                            (x, y) = (-y, x);
                        }
                        if swap {
                            // inner (radius 1) <-> outer (radius 3) square, middle stays
                            let r = x.abs().max(y.abs());
                            let nr = 4 - r;
                            (x, y) = (x / r * nr, y / r * nr);
                        }
                        find(x, y)
                    })
                    .collect();
                out.push(perm);
            }
        }
    }
    out
}

/// Burnside: orbits of (mover set of size s, disjoint opponent set of size o).
fn burnside(s: usize, o: usize, syms: &[Vec<usize>]) -> u128 {
    let mut total: u128 = 0;
    for perm in syms {
        let mut seen = [false; 24];
        let mut cycles = vec![];
        for start in 0..24 {
            if !seen[start] {
                let mut len = 0;
                let mut p = start;
                while !seen[p] {
                    seen[p] = true;
                    p = perm[p];
                    len += 1;
                }
                cycles.push(len);
            }
        }
        // poly[a][b]: ways to pick unions of cycles, a points for the mover, b for the opponent
        let mut poly = vec![vec![0u128; o + 1]; s + 1];
        poly[0][0] = 1;
        for &len in &cycles {
            let mut next = poly.clone();
            for a in 0..=s {
                for b in 0..=o {
                    if poly[a][b] == 0 {
                        continue;
                    }
                    if a + len <= s {
                        next[a + len][b] += poly[a][b];
                    }
                    if b + len <= o {
                        next[a][b + len] += poly[a][b];
                    }
                }
            }
            poly = next;
        }
        total += poly[s][o];
    }
    assert_eq!(total % 16, 0);
    total / 16
}

#[test]
fn burnside_matches_published_counts() {
    let syms = symmetries();
    let distinct: std::collections::HashSet<_> = syms.iter().collect();
    assert_eq!(distinct.len(), 16);
    let b = |name: &str| {
        let sub: Subspace = name.parse().unwrap();
        burnside(sub.s as usize, sub.o as usize, &syms)
    };
    assert_eq!(b("3-3"), 169_626);
    assert_eq!(b("3-4"), 760_398);
    assert_eq!(b("4-3"), 760_398);
    assert_eq!(b("4-4"), 3_225_597);
    assert_eq!(b("5-5"), 30_914_424);
    assert_eq!(b("6-6"), 156_229_360);
    assert_eq!(b("7-7"), 420_793_096);
    assert_eq!(b("8-8"), 591_726_690);
    assert_eq!(b("9-9"), 409_106_740);
    let all: u128 = Subspace::all().map(|s| burnside(s.s as usize, s.o as usize, &syms)).sum();
    assert_eq!(all, 8_904_593_601);
}

#[test]
fn index_positions_equal_burnside_for_every_subspace() {
    let syms = symmetries();
    let mut slots = 0;
    for sub in Subspace::all() {
        let idx = SubspaceIndex::new(morris::rules::Board::Nine, sub.s, sub.o);
        assert_eq!(idx.positions() as u128, burnside(sub.s as usize, sub.o as usize, &syms), "{sub}");
        slots += idx.len();
    }
    // At most 1.04 slots per orbit over all 49 subspaces (Malom: 1.032).
    assert!((slots as f64) < 1.04 * 8_904_593_601.0, "{slots} slots");
    eprintln!("slots {slots}, {:.4} per orbit", slots as f64 / 8_904_593_601.0);
}

#[path = "reference_family/mod.rs"]
mod reference_family;

/// Every board of the family: the index's positions per `s-o` equal Burnside's count
/// from the family reference's own geometry (built from the coordinates of docs/rules.md).
/// `six` (16 points) is indexed on the same symmetry tables as the 24-point boards.
#[test]
fn six_board_positions_equal_burnside() {
    use morris::rules::Board;
    use reference_family::orbits::burnside_orbits;
    let (mut total, mut slots) = (0u64, 0u64);
    for s in 0..=8u8 {
        for o in 0..=8u8 {
            let idx = SubspaceIndex::new(Board::Six, s, o);
            let want = burnside_orbits(reference_family::Board::Six, s as u32, o as u32);
            assert_eq!(idx.positions(), want, "six {s}-{o}");
            slots += idx.len();
            // Every slot's position lies on the board's 16 points and comes back.
            for i in (0..idx.len()).step_by((idx.len() / 500).max(1) as usize) {
                let (m, p) = idx.unindex(i);
                assert_eq!((m | p) & !Board::Six.mask(), 0, "six {s}-{o}: slot {i} off the board");
                assert_eq!((m.count_ones(), p.count_ones()), (s as u32, o as u32));
                assert!(idx.index(m, p) == i || idx.may_be_hole(i));
            }
            total += want;
        }
    }
    // 7.8 % holes (the nine board: 1.9 %): more of its small sets are symmetric.
    eprintln!("six: {slots} slots for {total} positions");
    assert!(slots as f64 <= 1.10 * total as f64, "six: {slots} slots for {total} positions");
}
