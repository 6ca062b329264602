//! Sector values: each sector of a solved start ranked to an integer, symmetric about
//! 0, from the strong solution's counts (`docs/ultra.md`, "Sector values").
//!
//! Scores are fractions of counts that reach 10^10, so two sectors can differ in the
//! 20th digit: they are compared exactly, as 128-bit fractions, so that the ranks (and
//! every draw class built on them) do not depend on rounding.

use crate::position::sector::Sector;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A sector's positions up to symmetry, by value for the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SectorCounts {
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
}

impl SectorCounts {
    fn total(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
}

/// A fraction `num / den` with `den > 0`.
#[derive(Clone, Copy, Debug)]
struct Frac {
    num: i128,
    den: i128,
}

impl Frac {
    fn zero() -> Frac {
        Frac { num: 0, den: 1 }
    }

    fn abs(self) -> Frac {
        Frac { num: self.num.abs(), den: self.den }
    }

    fn signum(self) -> i32 {
        self.num.signum() as i32
    }

    /// Exact comparison; both sides stay below 2^127 for counts below 2^40 (the
    /// largest sector holds about 2^30 positions).
    fn cmp(&self, other: &Frac) -> Ordering {
        (self.num * other.den).cmp(&(other.num * self.den))
    }
}

/// `(2W + D - T) / 2T`, the score `v - 1/2` of a sector without a mirror, or of a
/// movement sector with its mirror's counts added in.
fn half_centred(twice_good: i128, total: i128) -> Frac {
    if total == 0 {
        return Frac::zero();
    }
    Frac { num: twice_good - total, den: 2 * total }
}

/// The rank of every sector of a solved start, from the side to move's point of view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectorValues {
    ranks: BTreeMap<Sector, i32>,
}

/// A sector-values file that cannot serve the start.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SectorValuesError {
    /// A line that is not `S-O-SH-OH RANK`.
    #[error("line {line}: expected `S-O-SH-OH RANK` (a sector and an integer), found {text:?}")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// The line.
        text: String,
    },
    /// A sector named twice.
    #[error("line {line}: sector {sector} is listed twice")]
    Duplicate {
        /// 1-based line number.
        line: usize,
        /// The sector.
        sector: Sector,
    },
    /// A sector and its mirror are not `k` and `-k`.
    #[error("sector {sector} has rank {rank} but its mirror {mirror} has {mirror_rank}: a sector and its mirror must have opposite ranks")]
    NotSymmetric {
        /// The sector.
        sector: Sector,
        /// Its rank.
        rank: i32,
        /// Its mirror.
        mirror: Sector,
        /// The mirror's rank.
        mirror_rank: i32,
    },
    /// A sector that is its own mirror (`k-k`, or equal hands too) ranked other than 0.
    #[error("sector {0} is its own mirror and must have rank 0, not {1}")]
    SelfMirror(Sector, i32),
    /// A sector of the start that the file does not rank.
    #[error("the sector values do not rank sector {0}, which the start reaches")]
    Missing(Sector),
}

/// The sector with the two sides' roles swapped.
pub fn mirror(x: Sector) -> Sector {
    Sector { s: x.o, o: x.s, sh: x.oh, oh: x.sh }
}

impl SectorValues {
    /// Ranks the sectors of `counts` (every sector a start reaches, with its counts
    /// up to symmetry) as `docs/ultra.md` defines.
    pub fn from_counts(counts: &BTreeMap<Sector, SectorCounts>) -> SectorValues {
        let score = |x: &Sector| -> Frac {
            let c = counts[x];
            let m = mirror(*x);
            if x.is_movement() {
                let mc = counts.get(&m).copied().unwrap_or_default();
                // W(x) + L(x') + D(x)/2 + D(x')/2 over T(x) + T(x'), less 1/2.
                let twice_good = 2 * (c.wins + mc.losses) as i128 + (c.draws + mc.draws) as i128;
                half_centred(twice_good, (c.total() + mc.total()) as i128)
            } else {
                let own = half_centred(2 * c.wins as i128 + c.draws as i128, c.total() as i128);
                match counts.get(&m) {
                    Some(mc) if m != *x => {
                        let other = half_centred(2 * mc.wins as i128 + mc.draws as i128, mc.total() as i128);
                        // (v(x) - v(x')) / 2 = ((v(x) - 1/2) - (v(x') - 1/2)) / 2.
                        Frac { num: own.num * other.den - other.num * own.den, den: 2 * own.den * other.den }
                    }
                    Some(_) => Frac::zero(),
                    None => own,
                }
            }
        };
        let scores: Vec<(Sector, Frac)> = counts.keys().map(|x| (*x, score(x))).collect();
        let mut magnitudes: Vec<Frac> = scores.iter().map(|(_, f)| f.abs()).filter(|f| f.num != 0).collect();
        magnitudes.sort_by(|a, b| a.cmp(b));
        magnitudes.dedup_by(|a, b| a.cmp(b) == Ordering::Equal);
        let ranks = scores
            .into_iter()
            .map(|(x, f)| {
                let rank = if f.num == 0 {
                    0
                } else {
                    let k = magnitudes.partition_point(|m| m.cmp(&f.abs()) == Ordering::Less) + 1;
                    f.signum() * k as i32
                };
                (x, rank)
            })
            .collect();
        SectorValues { ranks }
    }

    /// The rank of `x`, if it is listed.
    pub fn get(&self, x: Sector) -> Option<i32> {
        self.ranks.get(&x).copied()
    }

    /// A sector of rank `r`, for words: a movement sector if one has it (that is where
    /// play can stay), else the first in sector order.
    pub fn sector_of_rank(&self, r: i32) -> Option<Sector> {
        let mut of = self.ranks.iter().filter(|(_, &k)| k == r).map(|(x, _)| *x);
        let all: Vec<Sector> = of.by_ref().collect();
        all.iter().copied().find(|x| x.is_movement()).or(all.first().copied())
    }

    /// Every sector with its rank, in sector order.
    pub fn iter(&self) -> impl Iterator<Item = (Sector, i32)> + '_ {
        self.ranks.iter().map(|(x, r)| (*x, *r))
    }

    /// The file's text: `S-O-SH-OH RANK` per line, in sector order.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for (x, r) in &self.ranks {
            let _ = writeln!(s, "{}-{}-{}-{} {r}", x.s, x.o, x.sh, x.oh);
        }
        s
    }

    /// Parses a file of `S-O-SH-OH RANK` lines (blank lines and `#` comments
    /// skipped), and checks that a sector and its mirror have opposite ranks.
    pub fn parse(text: &str) -> Result<SectorValues, SectorValuesError> {
        let mut ranks = BTreeMap::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let syntax = || SectorValuesError::Syntax { line: i + 1, text: raw.to_string() };
            let mut f = line.split_whitespace();
            let (Some(name), Some(rank), None) = (f.next(), f.next(), f.next()) else { return Err(syntax()) };
            let n: Vec<u8> = name.split('-').map(|p| p.parse().map_err(|_| syntax())).collect::<Result<_, _>>()?;
            let [s, o, sh, oh] = n[..] else { return Err(syntax()) };
            let sector = Sector::new(s, o, sh, oh).ok_or_else(syntax)?;
            let rank: i32 = rank.parse().map_err(|_| syntax())?;
            if ranks.insert(sector, rank).is_some() {
                return Err(SectorValuesError::Duplicate { line: i + 1, sector });
            }
        }
        let values = SectorValues { ranks };
        values.check_symmetric()?;
        Ok(values)
    }

    fn check_symmetric(&self) -> Result<(), SectorValuesError> {
        for (x, r) in self.iter() {
            let m = mirror(x);
            let want = -r;
            if m == x {
                if r != 0 {
                    return Err(SectorValuesError::SelfMirror(x, r));
                }
                continue;
            }
            if let Some(mr) = self.get(m) {
                if mr != want {
                    return Err(SectorValuesError::NotSymmetric { sector: x, rank: r, mirror: m, mirror_rank: mr });
                }
            }
        }
        Ok(())
    }

    /// Checks that every sector of `needed` is ranked.
    pub fn covers(&self, needed: impl IntoIterator<Item = Sector>) -> Result<(), SectorValuesError> {
        needed.into_iter().try_for_each(|x| if self.ranks.contains_key(&x) { Ok(()) } else { Err(SectorValuesError::Missing(x)) })
    }

    /// A fingerprint of the ranks, recorded in every table whose classes depend on them.
    pub fn fingerprint(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(self.to_text().as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sec(s: &str) -> Sector {
        s.parse().unwrap()
    }

    fn counts(list: &[(&str, u64, u64, u64)]) -> BTreeMap<Sector, SectorCounts> {
        list.iter().map(|&(x, wins, draws, losses)| (sec(x), SectorCounts { wins, draws, losses })).collect()
    }

    #[test]
    fn ranks_are_antisymmetric_and_follow_the_scores() {
        // 4-3: (W 10 + L(3-4) 4 + 0 + 0) / (11 + 5) = 14/16, score 3/8; 3-4 gets -3/8.
        // 3-3 and 4-4: 0. Placement 0-0-3-3: its own mirror, 0.
        // 1-0-2-3: (3 + 0) / 4 - 1/2 = 1/4, no mirror reached: below 3/8.
        let c = counts(&[("4-3", 10, 0, 1), ("3-4", 1, 0, 4), ("3-3", 5, 2, 1), ("4-4", 1, 1, 1), ("0-0-3-3", 1, 2, 1), ("1-0-2-3", 3, 0, 1)]);
        let v = SectorValues::from_counts(&c);
        let r = |x: &str| v.get(sec(x)).unwrap();
        assert_eq!((r("4-3"), r("3-4"), r("3-3"), r("4-4"), r("0-0-3-3"), r("1-0-2-3")), (2, -2, 0, 0, 0, 1));
        assert_eq!(SectorValues::parse(&v.to_text()).unwrap(), v);
    }

    #[test]
    fn close_scores_are_told_apart_exactly() {
        // Two placement sectors whose scores differ by about 1e-19: doubles would tie.
        let n = 3_000_000_000u64;
        let c = counts(&[("1-0-4-4", n + 1, 0, n), ("2-0-3-4", n + 2, 0, n + 1)]);
        let v = SectorValues::from_counts(&c);
        assert_eq!(v.get(sec("1-0-4-4")), Some(2));
        assert_eq!(v.get(sec("2-0-3-4")), Some(1));
    }

    #[test]
    fn bad_files_are_refused() {
        assert!(matches!(SectorValues::parse("4-3 1\n3-4 -1\n"), Err(SectorValuesError::Syntax { line: 1, .. })));
        assert!(matches!(SectorValues::parse("4-3-0-0 1\n3-4-0-0 2\n"), Err(SectorValuesError::NotSymmetric { .. })));
        assert!(matches!(SectorValues::parse("4-4-0-0 1\n"), Err(SectorValuesError::SelfMirror(..))));
        assert!(matches!(SectorValues::parse("4-3-0-0 1\n4-3-0-0 1\n"), Err(SectorValuesError::Duplicate { line: 2, .. })));
        let v = SectorValues::parse("# a comment\n4-3-0-0 1\n\n3-4-0-0 -1 # the mirror\n").unwrap();
        assert_eq!(v.covers([sec("4-3"), sec("3-3")]), Err(SectorValuesError::Missing(sec("3-3"))));
    }
}
