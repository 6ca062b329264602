//! The match harness: games between players from a start, to measure how strong a
//! player is (issue 17: how much the ultra-strong choice among draws adds).
//!
//! A game ends when a side to move has lost (fewer than 3 stones, or no move), or is
//! drawn: after `quiet_plies` plies in a row without a placement or a capture (public
//! game servers use 50 moves, 100 plies), on the third occurrence of a position, or at
//! `max_plies`. Every game has its own random generator, seeded from the match seed
//! and the game's number, so a match gives the same games on any number of threads.

pub mod alphabeta;

use crate::position::{Color, Position};
use crate::probe::ultra::UltraValue;
use crate::probe::{ProbeError, Tablebase};
use crate::rules::movegen::NONE;
use crate::rules::Rules;
use rayon::prelude::*;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

/// A small seeded generator (SplitMix64): games repeat from their seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for game `game` of a match seeded `seed`.
    pub fn for_game(seed: u64, game: u64) -> Rng {
        Rng(seed ^ game.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ 0x2545_F491_4F6C_DD1D)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// Who chooses the moves of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerKind {
    /// The perfect player of the strong solution: a move of the best value, draws all
    /// alike, chosen uniformly among the equally good.
    Strong,
    /// The perfect player of the ultra-strong solution: as `Strong`, with draws ranked
    /// by class and its depth tie-break (needs `solve --ultra`).
    Ultra,
    /// A fallible engine: alpha-beta search with iterative deepening to this many
    /// nodes a move, a heuristic evaluation and random tie-breaks.
    AlphaBeta {
        /// Nodes a move.
        nodes: u64,
    },
    /// Uniformly random legal moves (a baseline).
    Random,
}

/// Why a player specification does not parse; each holds the text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerParseError {
    /// No player of that name.
    #[error("unknown player {0:?}: expected strong, ultra, random or alphabeta:nodes=N (N from 1 to 10^9)")]
    Unknown(String),
    /// `alphabeta:nodes=N` with an N that is not a number from 1 to 10^9.
    #[error("unknown player {0:?}: the nodes of alphabeta:nodes=N are a number from 1 to 10^9")]
    Nodes(String),
}

impl FromStr for PlayerKind {
    type Err = PlayerParseError;
    fn from_str(s: &str) -> Result<PlayerKind, PlayerParseError> {
        let err = || PlayerParseError::Unknown(s.to_string());
        let nodes_err = || PlayerParseError::Nodes(s.to_string());
        match s.trim() {
            "strong" => Ok(PlayerKind::Strong),
            "ultra" => Ok(PlayerKind::Ultra),
            "random" => Ok(PlayerKind::Random),
            other => {
                let n = other.strip_prefix("alphabeta:nodes=").ok_or_else(err)?;
                let nodes: u64 = n.replace('_', "").parse().map_err(|_| nodes_err())?;
                if !(1..=1_000_000_000).contains(&nodes) {
                    return Err(nodes_err());
                }
                Ok(PlayerKind::AlphaBeta { nodes })
            }
        }
    }
}

impl fmt::Display for PlayerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerKind::Strong => write!(f, "strong"),
            PlayerKind::Ultra => write!(f, "ultra"),
            PlayerKind::Random => write!(f, "random"),
            PlayerKind::AlphaBeta { nodes } => write!(f, "alphabeta:nodes={nodes}"),
        }
    }
}

/// How a game ended, for White.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// White won.
    WhiteWins,
    /// Black won.
    BlackWins,
    /// Drawn by the quiet-move rule, repetition or the ply limit.
    Draw,
}

/// One game's record.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The result.
    pub outcome: Outcome,
    /// Plies played.
    pub plies: u32,
}

/// What a match plays.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// White's player.
    pub white: PlayerKind,
    /// Black's player.
    pub black: PlayerKind,
    /// Games.
    pub games: u64,
    /// The match seed.
    pub seed: u64,
    /// Stones each side places.
    pub start: (u8, u8),
    /// Plies without a placement or capture after which a game is drawn.
    pub quiet_plies: u32,
    /// Plies after which a game is drawn in any case.
    pub max_plies: u32,
}

/// A player's move from `pos`, or `None` when it has none.
fn choose(kind: PlayerKind, tb: &Tablebase, rules: &Rules, pos: &Position, rng: &mut Rng) -> Result<Option<crate::rules::movegen::Move>, ProbeError> {
    let pick = |n: usize, rng: &mut Rng| rng.below(n);
    Ok(match kind {
        PlayerKind::Strong => {
            let moves = tb.probe_moves(pos)?;
            let Some(best) = moves.first().map(|m| m.value) else { return Ok(None) };
            let top: Vec<_> = moves.iter().filter(|m| m.value == best).collect();
            Some(top[pick(top.len(), rng)].mv)
        }
        PlayerKind::Ultra => {
            let moves = tb.probe_moves_ultra(pos)?;
            let Some(best) = moves.first().map(|m| m.value) else { return Ok(None) };
            let top: Vec<_> = moves.iter().filter(|m| m.value.better(&best) == Ordering::Equal && same_draw(&m.value, &best)).collect();
            Some(top[pick(top.len(), rng)].mv)
        }
        PlayerKind::Random => {
            let moves = pos.legal_moves();
            (!moves.is_empty()).then(|| moves[pick(moves.len(), rng)])
        }
        PlayerKind::AlphaBeta { nodes } => alphabeta::best_move(rules, pos, nodes, rng),
    })
}

/// Two draws are equally good for the ultra player only with the same class and depth.
fn same_draw(a: &UltraValue, b: &UltraValue) -> bool {
    match (a, b) {
        (UltraValue::Draw(x), UltraValue::Draw(y)) => x.class == y.class && x.depth == y.depth,
        _ => true,
    }
}

/// Plays game number `game` of a match.
pub fn play_game(tb: &Tablebase, opts: &MatchOptions, game: u64) -> Result<GameRecord, ProbeError> {
    let rules = *tb.rules();
    let mut rng = Rng::for_game(opts.seed, game);
    let (wk, bk) = opts.start;
    let mut pos = Position::new(rules, 0, 0, wk, bk, Color::White)?;
    let mut seen: HashMap<Position, u8> = HashMap::new();
    let mut quiet = 0u32;
    for ply in 0..opts.max_plies {
        let kind = if pos.to_move == Color::White { opts.white } else { opts.black };
        let lost = |c: Color| if c == Color::White { Outcome::BlackWins } else { Outcome::WhiteWins };
        let (own, hand) = (pos.mover().count_ones() as u8, pos.mover_hand());
        if own + hand < 3 {
            return Ok(GameRecord { outcome: lost(pos.to_move), plies: ply });
        }
        let Some(mv) = choose(kind, tb, &rules, &pos, &mut rng)? else {
            // No move: a full board under `full-board=draw` is a draw, else a loss.
            let full = rules.game().full_board_draw() && (pos.white | pos.black).count_ones() as usize == rules.board().points() as usize;
            return Ok(GameRecord { outcome: if full { Outcome::Draw } else { lost(pos.to_move) }, plies: ply });
        };
        let next = pos.play(&mv).expect("players choose legal moves");
        quiet = if mv.from == NONE || mv.capture != NONE { 0 } else { quiet + 1 };
        pos = next;
        if quiet >= opts.quiet_plies {
            return Ok(GameRecord { outcome: Outcome::Draw, plies: ply + 1 });
        }
        let n = seen.entry(pos).or_insert(0);
        *n += 1;
        if *n >= 3 {
            return Ok(GameRecord { outcome: Outcome::Draw, plies: ply + 1 });
        }
    }
    Ok(GameRecord { outcome: Outcome::Draw, plies: opts.max_plies })
}

/// Plays every game of a match, in parallel (one game a thread), and returns the
/// records in game order.
pub fn play_match(tb: &Tablebase, opts: &MatchOptions, done: &(dyn Fn(u64, &GameRecord) + Sync)) -> Result<Vec<GameRecord>, ProbeError> {
    (0..opts.games as usize)
        .into_par_iter()
        .with_max_len(1)
        .map(|g| {
            let g = g as u64;
            let r = play_game(tb, opts, g)?;
            done(g, &r);
            Ok(r)
        })
        .collect()
}

/// The Wilson score interval at 95 % for `k` successes in `n` trials.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (n, p, z) = (n as f64, k as f64 / n as f64, 1.959_963_984_540_054);
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}
