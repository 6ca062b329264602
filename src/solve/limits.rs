//! Where the value byte ends: the deepest win and loss that a byte of its own holds.

use crate::position::value::{enc_loss, enc_win, Value, DEEP_LOSS, DEEP_WIN, DRAW, MAX_LOSS, MAX_WIN};

/// The deepest win and loss a value byte of its own holds; deeper values take
/// [`DEEP_WIN`] or [`DEEP_LOSS`] and a [`Deep`](crate::position::value::Deep) entry.
/// Tests lower them to reach the deep paths on small sectors.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The deepest win with a byte of its own (odd).
    pub max_win: u16,
    /// The deepest loss with a byte of its own (even).
    pub max_loss: u16,
}

impl Limits {
    /// The table encoding's: [`MAX_WIN`] and [`MAX_LOSS`].
    pub const TABLE: Limits = Limits { max_win: MAX_WIN, max_loss: MAX_LOSS };

    /// Whether `v` is too deep for a byte of its own.
    #[inline(always)]
    pub(crate) fn is_deep(self, v: Value) -> bool {
        match v {
            Value::Win(d) => d > self.max_win,
            Value::Loss(d) => d > self.max_loss,
            Value::Draw => false,
        }
    }

    /// The byte of `v` (right parity assumed), and whether it is deep.
    #[inline(always)]
    pub(crate) fn byte(self, v: Value) -> (u8, bool) {
        match v {
            Value::Win(_) if self.is_deep(v) => (DEEP_WIN, true),
            Value::Loss(_) if self.is_deep(v) => (DEEP_LOSS, true),
            Value::Win(d) => (enc_win(d), false),
            Value::Loss(d) => (enc_loss(d), false),
            Value::Draw => (DRAW, false),
        }
    }
}
