//! Orbits of raw positions under a board's 16 symmetries: Burnside's lemma
//! from the cycle structure of each symmetry, and explicit enumeration.

use super::index::{expand, masks_with};
use super::rules::{apply_perm, Board, Geometry};
use super::{RawPos, RefSolution, RefValue};
use rayon::prelude::*;
use std::collections::HashMap;

fn board_geometry(board: Board) -> &'static Geometry {
    super::rules::geometry(board)
}

/// Cycle lengths of a permutation.
pub fn cycle_lengths(perm: &[usize]) -> Vec<usize> {
    let mut seen = vec![false; perm.len()];
    let mut out = Vec::new();
    for i in 0..perm.len() {
        if !seen[i] {
            let mut len = 0;
            let mut j = i;
            while !seen[j] {
                seen[j] = true;
                j = perm[j];
                len += 1;
            }
            out.push(len);
        }
    }
    out
}

/// Number of (mover, opp) pairs with `s` and `o` stones fixed by `perm`: the
/// stones of each side must fill whole cycles. Counted by dynamic
/// programming over the cycles: ways[a][b] = colourings of the cycles so far
/// with a mover and b opponent points.
pub fn fixed_points(perm: &[usize], s: usize, o: usize) -> u64 {
    let mut ways = vec![vec![0u64; o + 1]; s + 1];
    ways[0][0] = 1;
    for len in cycle_lengths(perm) {
        let mut next = ways.clone(); // the cycle stays empty
        for a in 0..=s {
            for b in 0..=o {
                if a >= len {
                    next[a][b] += ways[a - len][b];
                }
                if b >= len {
                    next[a][b] += ways[a][b - len];
                }
            }
        }
        ways = next;
    }
    ways[s][o]
}

/// Orbits of the raw positions of a sector with `s` and `o` stones on the
/// board, by Burnside's lemma: the average number of fixed points.
pub fn burnside_orbits(board: Board, s: u32, o: u32) -> u64 {
    let syms = &board_geometry(board).symmetries;
    let total: u64 = syms.iter().map(|g| fixed_points(g, s as usize, o as usize)).sum();
    assert_eq!(total % syms.len() as u64, 0, "Burnside sum not divisible");
    total / syms.len() as u64
}

/// The smallest image of (mover, opp) under the symmetries, as one number.
pub fn canonical(g: &Geometry, mover: u32, opp: u32) -> u64 {
    g.symmetries.iter().map(|perm| ((apply_perm(perm, mover) as u64) << 32) | apply_perm(perm, opp) as u64).min().unwrap()
}

/// Orbits of the raw positions of a sector, by listing every position and
/// counting those that are the smallest of their orbit.
pub fn explicit_orbits(board: Board, s: u32, o: u32) -> u64 {
    let g = board_geometry(board);
    let n = g.names.len() as u32;
    let full = (1u32 << n) - 1;
    let minors = masks_with(n - s, o);
    masks_with(n, s)
        .par_iter()
        .map(|&m| {
            minors
                .iter()
                .filter(|&&c| {
                    let p = expand(c, full & !m);
                    canonical(g, m, p) == ((m as u64) << 32 | p as u64)
                })
                .count() as u64
        })
        .sum()
}

/// Number of orbits per value over a solution that is closed under the
/// symmetries (a whole sector, or what a start reaches): each orbit is
/// counted at its smallest position. Panics if a position's images do not
/// all have its value.
pub fn orbit_histogram(board: Board, sol: &RefSolution) -> HashMap<RefValue, u64> {
    let g = board_geometry(board);
    let mut h = HashMap::new();
    for (pos, v) in sol.iter() {
        let me = ((pos.mover as u64) << 32) | pos.opp as u64;
        let mut smallest = true;
        for perm in &g.symmetries {
            let img = RawPos { mover: apply_perm(perm, pos.mover), opp: apply_perm(perm, pos.opp), ..pos };
            assert_eq!(sol.get(&img), Some(v), "symmetry changes the value of {pos:?}");
            if (((img.mover as u64) << 32) | img.opp as u64) < me {
                smallest = false;
            }
        }
        if smallest {
            *h.entry(v).or_insert(0) += 1;
        }
    }
    h
}

/// (wins, draws, losses) in orbits (see `orbit_histogram`).
pub fn orbit_counts(board: Board, sol: &RefSolution) -> (u64, u64, u64) {
    let (mut w, mut d, mut l) = (0, 0, 0);
    for (v, k) in orbit_histogram(board, sol) {
        match v {
            RefValue::Win(_) => w += k,
            RefValue::Draw => d += k,
            RefValue::Loss(_) => l += k,
        }
    }
    (w, d, l)
}
