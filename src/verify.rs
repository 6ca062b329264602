//! The forward verifier: every stored value must equal the minimax of its successors'
//! stored values. It shares nothing with the solver's backward pass: it reads the
//! written files through the table reader (checksums included) and generates moves
//! forward, so a bug in unmove generation, counting or depth bookkeeping shows up here.

use crate::index::SubspaceIndex;
use crate::movegen::for_each_move;
use crate::position::{Color, Position};
use crate::probe::Tablebase;
use crate::solver::Progress;
use crate::subspace::Subspace;
use crate::table::TableError;
use crate::value::Value;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;

/// One disagreement between a stored value and its successors.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub sub: Subspace,
    pub slot: u64,
    /// The position, White to move (colour is immaterial in the movement phase).
    pub position: String,
    pub stored: Value,
    pub expected: Value,
}

#[derive(Debug, Default)]
pub struct Outcome {
    pub checked: u64,
    pub mismatches: Vec<Mismatch>,
    pub mismatch_count: u64,
}

const KEEP: usize = 100;

/// The value implied by the successors' values (`None` when there is no move: blocked).
pub fn minimax(mover: u32, opp: u32, child_value: &mut impl FnMut(u32, u32) -> Value) -> Value {
    let mut best: Option<Value> = None;
    for_each_move(mover, opp, |_, cm, co| {
        let v = if cm.count_ones() < 3 { Value::Win(1) } else { child_value(cm, co).parent() };
        if best.is_none_or(|b| v.goodness() > b.goodness()) {
            best = Some(v);
        }
    });
    best.unwrap_or(Value::Loss(0))
}

/// Verifies the given subspaces, whose tables (and those their moves lead to) must exist.
pub fn verify(tb: &Tablebase, subs: &[Subspace], progress: &dyn Progress) -> Result<Outcome, TableError> {
    let mut out = Outcome::default();
    let mut loaded: HashMap<Subspace, Vec<u8>> = HashMap::new();
    for &sub in subs {
        let mut need = vec![sub, sub.mirror()];
        need.extend(sub.after_capture());
        loaded.retain(|s, _| need.contains(s));
        for s in need {
            if !loaded.contains_key(&s) {
                loaded.insert(s, tb.table(s)?.read_all()?);
            }
        }
        let idx = SubspaceIndex::new(sub);
        let mirror = (SubspaceIndex::new(sub.mirror()), &loaded[&sub.mirror()]);
        let capture = sub.after_capture().map(|c| (SubspaceIndex::new(c), &loaded[&c]));
        let values = &loaded[&sub];
        let found = Mutex::new(Vec::new());
        progress.begin(&format!("verify {sub}"), values.len() as u64);
        let (checked, bad): (u64, u64) = values
            .par_chunks(1 << 14)
            .enumerate()
            .map(|(c, chunk)| {
                let (mut checked, mut bad) = (0u64, 0u64);
                for (k, &byte) in chunk.iter().enumerate() {
                    let i = (c << 14) as u64 + k as u64;
                    let stored = Value::decode(byte);
                    if idx.may_be_hole(i) && idx.is_hole(i) {
                        continue; // a don't-care entry
                    }
                    let (m, o) = idx.unindex(i);
                    let expected = minimax(m, o, &mut |cm, co| {
                        let (ci, cv) = if co.count_ones() == sub.s as u32 && cm.count_ones() == sub.o as u32 {
                            mirror
                        } else {
                            capture.expect("a capture leads to a solved subspace")
                        };
                        Value::decode(cv[ci.index(cm, co) as usize])
                    });
                    checked += 1;
                    if expected != stored {
                        bad += 1;
                        let mut f = found.lock().unwrap();
                        if f.len() < KEEP {
                            f.push(Mismatch {
                                sub,
                                slot: i,
                                position: Position::movement(Color::White, m, o).to_string(),
                                stored,
                                expected,
                            });
                        }
                    }
                }
                progress.advance(chunk.len() as u64);
                (checked, bad)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        out.checked += checked;
        out.mismatch_count += bad;
        out.mismatches.extend(found.into_inner().unwrap());
    }
    Ok(out)
}
