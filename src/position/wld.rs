//! The packed win/draw/loss code: two bits an entry, four entries a byte, entry `i` in
//! bits `2 * (i % 4)` of byte `i / 4` (low bits first). A code is 0 for a draw, 1 for
//! a win and 2 for a loss; 3 is never stored, so finding it means damage.
//!
//! The tables' WLD planes, the results-only loads of whole tables and the placement
//! search's result tables all use this layout, and this file is the only one that
//! knows it: a reader and a writer that each wrote their own shifts could disagree in
//! a way no checksum sees, since both sides would hash what they themselves packed.
//! Everything is `#[inline(always)]`, so that the hot loops that call it (inside
//! [`crate::cpu::fast!`] too) compile as if the shifts were written in place.

use crate::position::value::{enc_loss, enc_win};

/// The code of a draw.
pub const DRAW: u8 = 0;
/// The code of a win.
pub const WIN: u8 = 1;
/// The code of a loss.
pub const LOSS: u8 = 2;

/// Entries a byte.
pub const PER_BYTE: usize = 4;
/// Entries a little-endian `u64` of packed bytes.
pub const PER_WORD: usize = 32;

/// Bytes that hold `n` entries.
#[inline(always)]
pub const fn packed_len(n: usize) -> usize {
    n.div_ceil(PER_BYTE)
}

/// The code of a value byte (see [`crate::position::value`]): its result, without the
/// depth.
#[inline(always)]
pub const fn code_of(b: u8) -> u8 {
    match b {
        0 => DRAW,
        1..=127 => WIN,
        _ => LOSS,
    }
}

/// The value byte that stands for a code where depths are not known: a win in 1, a
/// loss in 0. The minimax of results does not depend on depths, so results computed
/// from these bytes are exact.
#[inline(always)]
pub const fn stand_in(code: u8) -> u8 {
    match code {
        DRAW => 0,
        WIN => enc_win(1),
        _ => enc_loss(0),
    }
}

/// Where entry `i` sits in its byte.
#[inline(always)]
pub const fn shift(i: usize) -> u32 {
    2 * (i % PER_BYTE) as u32
}

/// The code at `shift` (from [`shift`]) of the byte `x`.
#[inline(always)]
pub const fn at_shift(x: u8, shift: u32) -> u8 {
    (x >> shift) & 3
}

/// The code of entry `i % 4` of the byte `x`.
#[inline(always)]
pub const fn in_byte(x: u8, i: usize) -> u8 {
    at_shift(x, shift(i))
}

/// The code of entry `i`.
#[inline(always)]
pub fn get(bytes: &[u8], i: usize) -> u8 {
    in_byte(bytes[i / PER_BYTE], i)
}

/// Sets the code of entry `i`.
#[inline(always)]
pub fn set(bytes: &mut [u8], i: usize, code: u8) {
    let b = &mut bytes[i / PER_BYTE];
    *b = *b & !(3 << shift(i)) | code << shift(i);
}

/// The byte that holds the codes of (up to) four entries, the first in its low bits.
#[inline(always)]
pub fn byte_of(codes: &[u8]) -> u8 {
    codes.iter().enumerate().fold(0, |b, (i, &c)| b | c << shift(i))
}

/// The packed codes of value bytes.
pub fn pack(values: &[u8]) -> Vec<u8> {
    values.chunks(PER_BYTE).map(|c| c.iter().enumerate().fold(0, |b, (i, &v)| b | code_of(v) << shift(i))).collect()
}

/// The codes of the first `n` entries, one a byte.
pub fn unpack(bytes: &[u8], n: usize) -> impl Iterator<Item = u8> + '_ {
    (0..n).map(move |i| get(bytes, i))
}

/// The code of entry `k % 32` of a word of packed bytes read little-endian.
#[inline(always)]
pub const fn in_word(w: u64, k: usize) -> u8 {
    ((w >> (2 * (k % PER_WORD))) & 3) as u8
}

/// The packed bytes as little-endian words, the last one padded with draws.
pub fn words(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect()
}

/// One bit (the low bit of each entry's two) per decided entry, a win or a loss, of a
/// word of codes: popcounts of it count the decided entries, whose depths a depth
/// plane lists in entry order.
#[inline(always)]
pub const fn decided_mask(w: u64) -> u64 {
    (w | w >> 1) & 0x5555_5555_5555_5555
}

/// The mask of the entries of a word before entry `k % 32`.
#[inline(always)]
pub const fn before_mask(k: usize) -> u64 {
    (1u64 << (2 * (k % PER_WORD))) - 1
}

/// Decided entries among packed codes.
#[inline(always)]
pub fn decided(bytes: &[u8]) -> usize {
    bytes.iter().map(|&x| ((x | x >> 1) & 0x55).count_ones() as usize).sum()
}

/// Whether packed codes hold the code 3. A fold over whole words, without an early
/// exit, so that it vectorises: a probe pays this for every block it reads.
pub fn has_code_3(bytes: &[u8]) -> bool {
    let mut chunks = bytes.chunks_exact(8);
    let mut bad = chunks.by_ref().fold(0u64, |a, c| {
        let w = u64::from_le_bytes(c.try_into().unwrap());
        a | (w & (w >> 1) & 0x5555_5555_5555_5555)
    });
    for &x in chunks.remainder() {
        bad |= (x & (x >> 1) & 0x55) as u64;
    }
    bad != 0
}

/// Whether the packing of `n` entries has a code other than a draw past entry `n`,
/// in the padding of its last byte.
#[inline]
pub fn has_codes_past(bytes: &[u8], n: usize) -> bool {
    !n.is_multiple_of(PER_BYTE) && bytes.last().is_some_and(|&x| x >> shift(n) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout the table format documents: entry `i` in bits `2 * (i % 4)` of byte
    /// `i / 4`; every accessor agrees with it and with the others.
    #[test]
    fn every_accessor_reads_the_documented_layout() {
        let values: Vec<u8> = (0..37u32).map(|i| [0u8, 5, 130, 0, 1, 255, 127][(i * 7 % 11 % 7) as usize]).collect();
        let packed = pack(&values);
        assert_eq!(packed.len(), packed_len(values.len()));
        let words = words(&packed);
        let mut set_one_by_one = vec![0xffu8; packed.len()];
        for (i, &v) in values.iter().enumerate() {
            let c = code_of(v);
            assert_eq!((packed[i / 4] >> (2 * (i % 4))) & 3, c, "entry {i}");
            assert_eq!(get(&packed, i), c);
            assert_eq!(in_word(words[i / 32], i), c);
            set(&mut set_one_by_one, i, c);
        }
        assert_eq!(&set_one_by_one[..9], &packed[..9]);
        assert_eq!(unpack(&packed, values.len()).collect::<Vec<_>>(), values.iter().map(|&v| code_of(v)).collect::<Vec<_>>());
        assert_eq!(decided(&packed), values.iter().filter(|&&v| v != 0).count());
        assert!(!has_code_3(&packed));
        assert!(!has_codes_past(&packed, values.len()));
        assert!(has_codes_past(&set_one_by_one, values.len()), "the padding of 0xff");
        let mut bad = packed.clone();
        set(&mut bad, 20, 3);
        assert!(has_code_3(&bad));
        assert_eq!(byte_of(&[WIN, DRAW, LOSS]), 0b10_00_01);
        assert_eq!([DRAW, WIN, LOSS].map(|c| code_of(stand_in(c))), [DRAW, WIN, LOSS]);
    }
}
