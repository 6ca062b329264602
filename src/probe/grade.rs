//! What a probe or a check reads for a position: its [`Value`], with the depth, or its
//! [`Wdl`] result alone. Both back up from children the same way (the best for the
//! side to move, one ply up) and differ only in which planes of a table they need, so
//! the probe and the verifier are written once, generic over [`Grade`].

use crate::position::value::{is_deep, value_at, Deep, Value, Wdl};
use crate::table::{Planes, TableError, TableFile};
use std::fmt;

/// A value of a position for its side to move, as the tables give it: [`Value`] (win,
/// draw or loss with its depth, from both planes of a table) or [`Wdl`] (the result
/// alone, from the WLD plane, which results-only tables also have). Greater is better
/// for the side to move, so the best of several is their maximum.
///
/// ```rust
/// use morris::{Grade, Value, Wdl};
///
/// // The value of a move, from the value of the position it leads to.
/// fn backed_up<V: Grade>(children: &[V]) -> V {
///     children.iter().map(|v| v.parent()).max().unwrap_or(V::LOST)
/// }
/// assert_eq!(backed_up(&[Value::Win(3), Value::Loss(8), Value::Loss(2)]), Value::Win(3));
/// assert_eq!(backed_up(&[Wdl::Win, Wdl::Draw]), Wdl::Draw);
/// assert_eq!(backed_up::<Wdl>(&[]), Wdl::Loss, "a blocked side has lost");
/// ```
pub trait Grade: Copy + Ord + fmt::Debug + fmt::Display + Send + Sync + 'static + sealed::Read {
    /// A position whose side to move has lost: down to two stones, or blocked.
    const LOST: Self;
    /// A move that takes the opponent down to two stones, for the side that plays it.
    const WIN_NOW: Self;
    /// Neither side can force a win.
    const DRAW: Self;

    /// The grade one ply earlier, for the side that moved into this position: the
    /// value of that move for the side that plays it.
    fn parent(self) -> Self;
}

impl Grade for Value {
    const LOST: Value = Value::Loss(0);
    const WIN_NOW: Value = Value::Win(1);
    const DRAW: Value = Value::Draw;

    #[inline(always)]
    fn parent(self) -> Value {
        Value::parent(self)
    }
}

impl Grade for Wdl {
    const LOST: Wdl = Wdl::Loss;
    const WIN_NOW: Wdl = Wdl::Win;
    const DRAW: Wdl = Wdl::Draw;

    #[inline(always)]
    fn parent(self) -> Wdl {
        Wdl::parent(self)
    }
}

/// The result of a 2-bit WLD code; `None` for 3, which no table holds.
#[inline(always)]
fn wdl_of_code(code: u8) -> Option<Wdl> {
    use crate::position::wld::{DRAW, LOSS, WIN};
    match code {
        DRAW => Some(Wdl::Draw),
        WIN => Some(Wdl::Win),
        LOSS => Some(Wdl::Loss),
        _ => None,
    }
}

/// How a grade is read from a table: the crate's own business, so that no grade
/// beyond the two whose planes the table format has can be asked for.
pub(crate) mod sealed {
    use super::*;

    pub trait Read: Sized {
        /// Whether a read needs the depth plane, which a results-only table lacks.
        const DEPTHS: bool;
        /// A whole table as a check reads it, slot by slot.
        type Whole: Send + Sync;

        /// Entry `off` of a checked block of `t`, slot `slot` of the table; `None` if
        /// the block has no valid entry there. The block holds the depths if
        /// [`Read::DEPTHS`].
        fn in_block(t: &TableFile, block: &Planes, off: usize, slot: u64) -> Result<Option<Self>, TableError>;
        /// Entry `off` of block `k` of `t` (slot `slot`), read without a block cache.
        fn uncached(t: &TableFile, k: usize, off: usize, slot: u64) -> Result<Option<Self>, TableError>;
        /// All of `t`, each block checked on the way.
        fn whole(t: &TableFile) -> Result<Self::Whole, TableError>;
        /// The entry at `slot` of a whole table. A deep value without its depth is a
        /// broken invariant of the table reader, so it panics rather than guess.
        fn at(whole: &Self::Whole, slot: u64) -> Self;
        /// Asks the processor to start loading the entry at `slot`.
        fn prefetch(whole: &Self::Whole, slot: u64);
        /// `at(whole, slot).parent()` as a key that orders as the grades do, so that
        /// the best of many children is a maximum of integers: the check takes one
        /// per child, and decoding each into a grade and comparing grades was a fifth
        /// of its instructions. Every key is above [`NO_KEY`].
        fn parent_key(whole: &Self::Whole, slot: u64) -> i32;
        /// The grade of a key from [`Read::parent_key`].
        fn of_key(key: i32) -> Self;
    }

    pub use crate::position::value::NO_KEY;

    impl Read for Value {
        const DEPTHS: bool = true;
        type Whole = (Vec<u8>, Deep);

        #[inline(always)]
        fn in_block(t: &TableFile, block: &Planes, off: usize, slot: u64) -> Result<Option<Value>, TableError> {
            match block.get(off) {
                Some(b) if is_deep(b) => t.value_of(b, slot).map(Some),
                b => Ok(b.map(Value::decode)),
            }
        }

        fn uncached(t: &TableFile, k: usize, off: usize, slot: u64) -> Result<Option<Value>, TableError> {
            Self::in_block(t, &t.read_planes(k)?, off, slot)
        }

        fn whole(t: &TableFile) -> Result<Self::Whole, TableError> {
            Ok((t.read_all()?, t.deep().clone()))
        }

        #[inline(always)]
        fn at(whole: &Self::Whole, slot: u64) -> Value {
            value_at(whole.0[slot as usize], slot, Some(&whole.1))
        }

        #[inline(always)]
        fn prefetch(whole: &Self::Whole, slot: u64) {
            crate::cpu::prefetch(whole.0.as_ptr().wrapping_add(slot as usize));
        }

        #[inline(always)]
        fn parent_key(whole: &Self::Whole, slot: u64) -> i32 {
            crate::position::value::parent_key(whole.0[slot as usize], slot, Some(&whole.1))
        }

        #[inline(always)]
        fn of_key(key: i32) -> Value {
            Value::of_goodness(key)
        }
    }

    /// A results-only read: the WLD plane, a quarter of the data, and enough for
    /// results-only tables.
    impl Read for Wdl {
        const DEPTHS: bool = false;
        /// The packed WLD plane (four codes a byte, see [`TableFile::read_wld_mapped`]).
        type Whole = memmap2::MmapMut;

        #[inline(always)]
        fn in_block(_: &TableFile, block: &Planes, off: usize, _: u64) -> Result<Option<Wdl>, TableError> {
            Ok(block.wld(off).and_then(wdl_of_code))
        }

        fn uncached(t: &TableFile, k: usize, off: usize, _: u64) -> Result<Option<Wdl>, TableError> {
            Ok(wdl_of_code(t.read_wld(k, off)?))
        }

        fn whole(t: &TableFile) -> Result<Self::Whole, TableError> {
            t.read_wld_mapped()
        }

        #[inline(always)]
        fn at(whole: &Self::Whole, slot: u64) -> Wdl {
            let code = whole[slot as usize / 4] >> (2 * (slot % 4)) & 3;
            wdl_of_code(code).expect("the reader checks that no WLD code is 3")
        }

        #[inline(always)]
        fn prefetch(whole: &Self::Whole, slot: u64) {
            crate::cpu::prefetch(whole.as_ptr().wrapping_add(slot as usize / 4));
        }

        #[inline(always)]
        fn parent_key(whole: &Self::Whole, slot: u64) -> i32 {
            Self::at(whole, slot).parent() as i32
        }

        #[inline(always)]
        fn of_key(key: i32) -> Wdl {
            match key {
                0 => Wdl::Loss,
                1 => Wdl::Draw,
                _ => Wdl::Win,
            }
        }
    }
}
