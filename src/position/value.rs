//! Game-theoretic values and their one-byte encoding.
//!
//! Depth parity is implied by the result (a win has an odd depth, a loss an even one),
//! so a value fits in one byte: `0` draw, `1..=126` win in `2v - 1`, `128..=254` loss
//! in `2(v - 128)`. That covers wins up to 251 plies and losses up to 252; the deepest
//! published value is 204. The two top codes, [`DEEP_WIN`] and [`DEEP_LOSS`], mark a
//! value deeper than that, whose exact depth is kept beside the bytes in a [`Deep`]
//! list: some rule sets (`removal=strict`) go deeper, and a byte per position stays
//! the cost of every table, however deep a few of its values are.

use crate::position::sector::Sector;
use std::fmt;

/// The game-theoretic value of a position for its side to move, with the depth in
/// plies (half-moves) to the end of the game under best play: the winner wins as fast
/// as it can, the loser resists as long as it can.
///
/// A win has an odd depth and a loss an even one: `Loss(0)` is a position whose side to
/// move has already lost (down to two stones, or blocked), `Win(1)` one it wins with its
/// next move. Values of consecutive positions alternate perspective: see
/// [`Value::parent`].
///
/// # Examples
///
/// ```rust
/// use morris::Value;
///
/// let v = Value::Loss(26);
/// assert_eq!(v.to_string(), "loss in 26");
/// assert_eq!(v.parent(), Value::Win(27), "the move into it wins, one ply further out");
/// assert_eq!(Value::decode(v.encode().unwrap()), v);
/// assert_eq!(Value::Win(2).encode(), None, "a win has an odd depth");
///
/// // Best first: a faster win, then a draw, then a slower loss.
/// let mut vs = [Value::Loss(4), Value::Win(9), Value::Draw, Value::Loss(20), Value::Win(3)];
/// vs.sort_by_key(|v| -v.goodness());
/// assert_eq!(vs, [Value::Win(3), Value::Win(9), Value::Draw, Value::Loss(20), Value::Loss(4)]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins, in this many plies (odd, 1..=[`MAX_WIN`]).
    Win(u16),
    /// The side to move loses, in this many plies (even, 0..=[`MAX_LOSS`]).
    Loss(u16),
    /// Neither side can force a win.
    Draw,
}

/// The byte of [`Value::Draw`].
pub const DRAW: u8 = 0;
/// The deepest win the byte encoding holds.
pub const MAX_WIN: u16 = 251;
/// The deepest loss the byte encoding holds.
pub const MAX_LOSS: u16 = 252;
/// The byte of a win deeper than [`MAX_WIN`]: its depth is in the [`Deep`] list.
pub const DEEP_WIN: u8 = 127;
/// The byte of a loss deeper than [`MAX_LOSS`]: its depth is in the [`Deep`] list.
pub const DEEP_LOSS: u8 = 255;

/// Whether `b` is [`DEEP_WIN`] or [`DEEP_LOSS`].
#[inline(always)]
pub const fn is_deep(b: u8) -> bool {
    b & 127 == 127
}

impl Value {
    /// The value of a stored byte (see the module documentation for the encoding).
    /// [`DEEP_WIN`] and [`DEEP_LOSS`] decode to their least depths, 253 and 254: read
    /// them through [`Deep::value`] where a table may hold deep values.
    #[inline(always)]
    pub fn decode(b: u8) -> Value {
        match b {
            0 => Value::Draw,
            1..=127 => Value::Win(2 * b as u16 - 1),
            _ => Value::Loss(2 * (b as u16 - 128)),
        }
    }

    /// The byte for this value; `None` if the depth has the wrong parity or is deeper
    /// than the byte holds (see [`Value::byte`]).
    pub fn encode(self) -> Option<u8> {
        match self {
            Value::Draw => Some(0),
            Value::Win(d) if d % 2 == 1 && d <= MAX_WIN => Some(d.div_ceil(2) as u8),
            Value::Loss(d) if d % 2 == 0 && d <= MAX_LOSS => Some(128 + (d / 2) as u8),
            _ => None,
        }
    }

    /// The byte for this value, [`DEEP_WIN`] or [`DEEP_LOSS`] where it is deeper than
    /// the byte holds; `None` if the depth has the wrong parity.
    pub fn byte(self) -> Option<u8> {
        match self {
            Value::Win(d) if d % 2 == 1 && d > MAX_WIN => Some(DEEP_WIN),
            Value::Loss(d) if d % 2 == 0 && d > MAX_LOSS => Some(DEEP_LOSS),
            v => v.encode(),
        }
    }

    /// The value one ply earlier, for the side that moved into this position: a move
    /// into a position lost in `d` wins in `d + 1`, and so on. This is the value of that
    /// move for the side that plays it.
    #[inline]
    pub fn parent(self) -> Value {
        match self {
            Value::Win(d) => Value::Loss(d + 1),
            Value::Loss(d) => Value::Win(d + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// The depth in plies to the end of the game; `None` for a draw, which has no end.
    pub fn plies(self) -> Option<u16> {
        match self {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw => None,
        }
    }

    /// `"win"`, `"loss"` or `"draw"`, without the depth (`Display` gives it).
    pub fn result_word(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::Loss(_) => "loss",
            Value::Draw => "draw",
        }
    }

    /// Ordering key from the mover's point of view: larger is better.
    /// Faster wins beat slower wins; slower losses beat faster losses.
    ///
    /// A win in `d` is `100_000 - d`, a loss in `d` is `-100_000 + d`, a draw `0`: the
    /// placement search works on these scores.
    #[inline]
    pub fn goodness(self) -> i32 {
        match self {
            Value::Win(d) => 100_000 - d as i32,
            Value::Draw => 0,
            Value::Loss(d) => -100_000 + d as i32,
        }
    }

    /// The value of a [`Value::goodness`]; the check keeps the best of a position's
    /// children as one.
    #[inline]
    pub fn of_goodness(g: i32) -> Value {
        match g {
            0 => Value::Draw,
            1.. => Value::Win((100_000 - g) as u16),
            _ => Value::Loss((g + 100_000) as u16),
        }
    }
}

/// Encoded win in `d` plies (`d` odd).
#[inline(always)]
pub const fn enc_win(d: u16) -> u8 {
    d.div_ceil(2) as u8
}

/// Encoded loss in `d` plies (`d` even).
#[inline(always)]
pub const fn enc_loss(d: u16) -> u8 {
    128 + (d / 2) as u8
}

/// The exact depths of a table's deep values ([`DEEP_WIN`], [`DEEP_LOSS`]), by slot:
/// few enough to keep as a sorted list and find by binary search.
///
/// ```rust
/// use morris::position::value::{Deep, Value, DEEP_WIN};
///
/// let deep = Deep::new(vec![(9, 301), (2, 255)]);
/// assert_eq!(deep.value(DEEP_WIN, 2), Some(Value::Win(255)));
/// assert_eq!(deep.value(DEEP_WIN, 3), None, "a deep byte must have its entry");
/// assert_eq!(deep.value(Value::Win(7).byte().unwrap(), 3), Some(Value::Win(7)));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deep(Vec<(u64, u16)>);

impl Deep {
    /// The list of `(slot, depth)` pairs, in any order.
    pub fn new(mut entries: Vec<(u64, u16)>) -> Deep {
        entries.sort_unstable();
        Deep(entries)
    }

    /// Whether the table has no deep value.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The number of deep values.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The `(slot, depth)` pairs, by slot.
    pub fn entries(&self) -> &[(u64, u16)] {
        &self.0
    }

    /// The depth kept for `slot`, if any.
    pub fn depth(&self, slot: u64) -> Option<u16> {
        self.0.binary_search_by_key(&slot, |e| e.0).ok().map(|k| self.0[k].1)
    }

    /// The value of the byte `b` stored at `slot`; `None` if `b` is deep and the list
    /// has no depth for it, or a depth of the wrong parity.
    #[inline]
    pub fn value(&self, b: u8, slot: u64) -> Option<Value> {
        if !is_deep(b) {
            return Some(Value::decode(b));
        }
        let d = self.depth(slot)?;
        match b {
            DEEP_WIN if d % 2 == 1 => Some(Value::Win(d)),
            DEEP_LOSS if d % 2 == 0 => Some(Value::Loss(d)),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(d) => write!(f, "win in {d}"),
            Value::Loss(d) => write!(f, "loss in {d}"),
            Value::Draw => write!(f, "draw"),
        }
    }
}

/// Better for the side to move is greater: a faster win, then a slower win, a draw, a
/// slower loss, a faster loss ([`Value::goodness`]).
impl Ord for Value {
    #[inline]
    fn cmp(&self, other: &Value) -> std::cmp::Ordering {
        self.goodness().cmp(&other.goodness())
    }
}

impl PartialOrd for Value {
    #[inline]
    fn partial_cmp(&self, other: &Value) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A result without depth, for the side to move; what a results-only table holds.
/// Ordered as [`Value`] is: `Loss < Draw < Win`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    /// The opponent can force a win.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move can force a win.
    Win,
}

impl Wdl {
    /// The result one ply earlier, for the side that moved into this position.
    #[inline]
    pub fn parent(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        }
    }
}

impl From<Value> for Wdl {
    fn from(v: Value) -> Wdl {
        match v {
            Value::Win(_) => Wdl::Win,
            Value::Draw => Wdl::Draw,
            Value::Loss(_) => Wdl::Loss,
        }
    }
}

/// `win`, `draw` or `loss`.
impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        })
    }
}

/// A legal move, the position it leads to, and its value for the side that plays it
/// (a [`Value`], or a [`Wdl`] from results-only reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveInfo<V = Value> {
    /// The move.
    pub mv: crate::rules::movegen::Move,
    /// The position after it.
    pub child: crate::position::Position,
    /// Its value for the side that plays it: the value of the position before it, if
    /// it is a best move.
    pub value: V,
}

/// Sorts moves best first, and equally good moves in a fixed order (from, to, capture),
/// so that every front end lists them alike and `best_move` is deterministic.
pub fn sort_moves<V: Ord + Copy>(moves: &mut [MoveInfo<V>]) {
    moves.sort_by_key(|m| (std::cmp::Reverse(m.value), m.mv.from, m.mv.to, m.mv.capture));
}

/// Below every key of [`parent_key`]: the best of no children.
pub const NO_KEY: i32 = i32::MIN;

/// [`parent_key`] of each byte that is not deep, built at compile time; [`NO_KEY`]
/// for the two deep bytes, whose depth is elsewhere. A test holds it equal to
/// `Value::decode(b).parent().goodness()`.
static PARENT_KEY: [i32; 256] = {
    let mut t = [NO_KEY; 256];
    let mut b = 0;
    while b < 256 {
        if !is_deep(b as u8) {
            t[b] = match b {
                0 => 0,
                // Win(2b - 1), whose parent loses in 2b.
                1..=126 => -100_000 + 2 * b as i32,
                // Loss(2(b - 128)), whose parent wins in one more.
                _ => 100_000 - (2 * (b as i32 - 128) + 1),
            };
        }
        b += 1;
    }
    t
};

/// `value_at(b, slot, deep).parent().goodness()`: the worth of the move into a
/// position of that value for the side that plays it, so that the best of a
/// position's children is the greatest key. Decoding every child into a [`Value`] and
/// comparing values cost the solver's induction, its exits and the verifier a fifth
/// to a tenth of their instructions; this is one table lookup, and only a deep byte
/// is decoded. Always above [`NO_KEY`].
#[inline(always)]
pub fn parent_key(b: u8, slot: u64, deep: Option<&Deep>) -> i32 {
    let k = PARENT_KEY[b as usize];
    if k == NO_KEY {
        value_at(b, slot, deep).parent().goodness()
    } else {
        k
    }
}

/// The value of the byte `b` at `slot` of a table whose deep values are `deep`.
/// A deep byte without its depth is a broken invariant of the caller (tables are
/// checked when read), so it panics rather than guess.
#[inline(always)]
pub fn value_at(b: u8, slot: u64, deep: Option<&Deep>) -> Value {
    if !is_deep(b) {
        return Value::decode(b);
    }
    deep.and_then(|d| d.value(b, slot)).unwrap_or_else(|| panic!("deep value byte {b} at slot {slot} without its depth"))
}

/// A unit whose values go deeper than the one-byte value encoding holds (wins to
/// [`MAX_WIN`](MAX_WIN) plies, losses to
/// [`MAX_LOSS`](MAX_LOSS)): no table can be written for it. The standard
/// game's deepest value is 204 plies, but other rules can go deeper (`removal=strict`
/// does, from its 4-6 subspace on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{sector} has values of {depth} plies or more, beyond the one-byte value encoding of the tables (wins to 251 plies, losses to 252): these rules cannot be tabled in this format")]
pub struct TooDeep {
    /// A sector of the unit that holds such a value.
    pub sector: Sector,
    /// The first depth that did not fit.
    pub depth: u16,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_order_by_goodness() {
        let mut vs = [Value::Loss(4), Value::Win(9), Value::Draw, Value::Loss(20), Value::Win(3), Value::Loss(0)];
        vs.sort();
        assert_eq!(vs, [Value::Loss(0), Value::Loss(4), Value::Loss(20), Value::Draw, Value::Win(9), Value::Win(3)]);
        assert!(Wdl::Loss < Wdl::Draw && Wdl::Draw < Wdl::Win);
        assert_eq!(Wdl::Win.to_string(), "win");
        for v in vs {
            assert_eq!(Wdl::from(v.parent()), Wdl::from(v).parent());
        }
    }

    #[test]
    fn parent_keys_are_the_goodness_of_the_move() {
        // Deep bytes take their depth from the list: a deep win and a deep loss at
        // slots 1 and 2, each one ply past the byte's reach.
        let deep = Deep::new(vec![(1, Value::decode(DEEP_WIN).plies().unwrap() + 2), (2, Value::decode(DEEP_LOSS).plies().unwrap() + 2)]);
        for b in 0..=255u8 {
            let slot = match b {
                DEEP_WIN => 1,
                DEEP_LOSS => 2,
                _ => 0,
            };
            let v = value_at(b, slot, Some(&deep));
            assert_eq!(parent_key(b, slot, Some(&deep)), v.parent().goodness(), "byte {b}");
            assert_eq!(Value::of_goodness(parent_key(b, slot, Some(&deep))), v.parent(), "byte {b}");
            assert!(parent_key(b, slot, Some(&deep)) > NO_KEY);
        }
    }

    #[test]
    fn encoding_round_trips() {
        for b in 0..=255u8 {
            let want = if is_deep(b) { None } else { Some(b) };
            assert_eq!(Value::decode(b).encode(), want, "{b}");
            assert_eq!(Value::decode(b).byte(), Some(b), "{b}");
        }
        assert_eq!(Value::Win(MAX_WIN).encode(), Some(126));
        assert_eq!(Value::Win(MAX_WIN + 2).byte(), Some(DEEP_WIN));
        assert_eq!(Value::Loss(MAX_LOSS + 2).byte(), Some(DEEP_LOSS));
        assert_eq!(Value::Loss(MAX_LOSS).byte(), Some(254));
        assert_eq!(Value::Win(2).encode(), None);
        assert_eq!(Value::Loss(3).encode(), None);
        assert_eq!(Value::decode(enc_win(25)), Value::Win(25));
        assert_eq!(Value::decode(enc_loss(0)), Value::Loss(0));
        assert_eq!(Value::decode(enc_loss(204)), Value::Loss(204));
    }
}
