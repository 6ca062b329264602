//! Game-theoretic values and their one-byte encoding.
//!
//! Depth parity is implied by the result (a win has an odd depth, a loss an even one),
//! so a value fits in one byte: `0` draw, `1..=127` win in `2v - 1`, `128..=255` loss
//! in `2(v - 128)`. That covers wins up to 253 plies and losses up to 254; the deepest
//! published value is 204.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Win(u16),
    Loss(u16),
    Draw,
}

pub const DRAW: u8 = 0;
pub const MAX_WIN: u16 = 253;
pub const MAX_LOSS: u16 = 254;

impl Value {
    #[inline(always)]
    pub fn decode(b: u8) -> Value {
        match b {
            0 => Value::Draw,
            1..=127 => Value::Win(2 * b as u16 - 1),
            _ => Value::Loss(2 * (b as u16 - 128)),
        }
    }

    /// The byte for this value; `None` if the depth has the wrong parity or is too deep.
    pub fn encode(self) -> Option<u8> {
        match self {
            Value::Draw => Some(0),
            Value::Win(d) if d % 2 == 1 && d <= MAX_WIN => Some(d.div_ceil(2) as u8),
            Value::Loss(d) if d % 2 == 0 && d <= MAX_LOSS => Some(128 + (d / 2) as u8),
            _ => None,
        }
    }

    /// The value one ply earlier, for the side that moved into this position.
    pub fn parent(self) -> Value {
        match self {
            Value::Win(d) => Value::Loss(d + 1),
            Value::Loss(d) => Value::Win(d + 1),
            Value::Draw => Value::Draw,
        }
    }

    pub fn plies(self) -> Option<u16> {
        match self {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw => None,
        }
    }

    pub fn result_word(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::Loss(_) => "loss",
            Value::Draw => "draw",
        }
    }

    /// Ordering key from the mover's point of view: larger is better.
    /// Faster wins beat slower wins; slower losses beat faster losses.
    pub fn goodness(self) -> i32 {
        match self {
            Value::Win(d) => 100_000 - d as i32,
            Value::Draw => 0,
            Value::Loss(d) => -100_000 + d as i32,
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

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(d) => write!(f, "win in {d}"),
            Value::Loss(d) => write!(f, "loss in {d}"),
            Value::Draw => write!(f, "draw"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips() {
        for b in 0..=255u8 {
            assert_eq!(Value::decode(b).encode(), Some(b));
        }
        assert_eq!(Value::Win(2).encode(), None);
        assert_eq!(Value::Loss(3).encode(), None);
        assert_eq!(Value::decode(enc_win(25)), Value::Win(25));
        assert_eq!(Value::decode(enc_loss(0)), Value::Loss(0));
        assert_eq!(Value::decode(enc_loss(204)), Value::Loss(204));
    }
}
