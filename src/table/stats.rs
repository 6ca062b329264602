//! The figures a table's header records: counts and deepest values over its
//! positions. They belong to the table, not to the solver that computes them, so that
//! the table format needs nothing from the layers above it.

use crate::position::index::SubspaceIndex;
use crate::position::value::{value_at, Deep, Value};
use rayon::prelude::*;

/// Slots a parallel task counts.
const CHUNK: usize = 1 << 14;

/// Figures over the positions (not holes) of one solved subspace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Positions up to symmetry: the index's slots that are not holes.
    pub positions: u64,
    /// Positions the side to move wins.
    pub wins: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Positions the side to move loses.
    pub losses: u64,
    /// Depth in plies of the deepest win (0 if there is none).
    pub max_win: u16,
    /// Depth in plies of the deepest loss (0 if there is none or all are immediate).
    pub max_loss: u16,
}

impl Stats {
    /// The figures of a solved table: `values` holds one value byte per slot of `index`.
    pub fn of(index: &SubspaceIndex, values: &[u8]) -> Stats {
        Stats::of_deep(index, values, None)
    }

    /// [`Stats::of`] a table with deep values, whose depths are in `deep`.
    pub fn of_deep(index: &SubspaceIndex, values: &[u8], deep: Option<&Deep>) -> Stats {
        values
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                crate::cpu::fast!({
                    let mut st = Stats::default();
                    let first = (c * CHUNK) as u64;
                    // The next hole, or `u64::MAX` past the last: one compare per slot.
                    let mut holes = index.holes(first, first + chunk.len() as u64);
                    let mut hole = holes.next().unwrap_or(u64::MAX);
                    for (k, &b) in chunk.iter().enumerate() {
                        let i = first + k as u64;
                        if i == hole {
                            hole = holes.next().unwrap_or(u64::MAX);
                            continue;
                        }
                        st.positions += 1;
                        match value_at(b, i, deep) {
                            Value::Win(d) => {
                                st.wins += 1;
                                st.max_win = st.max_win.max(d)
                            }
                            Value::Loss(d) => {
                                st.losses += 1;
                                st.max_loss = st.max_loss.max(d)
                            }
                            Value::Draw => st.draws += 1,
                        }
                    }
                    st
                })
            })
            .reduce(Stats::default, |a, b| Stats {
                positions: a.positions + b.positions,
                wins: a.wins + b.wins,
                draws: a.draws + b.draws,
                losses: a.losses + b.losses,
                max_win: a.max_win.max(b.max_win),
                max_loss: a.max_loss.max(b.max_loss),
            })
    }
}
