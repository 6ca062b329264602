//! The bytes of one group of a class file before compression: what a frame holds for
//! [`GROUP`](super::GROUP) consecutive blocks of the strong table.

/// Why a group of classes does not fit the class file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GroupError {
    /// A block holds more draws than a group's 16-bit count.
    #[error("{0} entries in one block; a block holds at most 65535")]
    BlockEntries(usize),
    /// A group holds more distinct classes than its one-byte palette.
    #[error("{0} distinct classes in one group; a group holds at most 255")]
    Classes(usize),
}

/// A group's entries as stored before compression: for each of its strong blocks the
/// number of entries (`u16`), then the distinct classes of the group (a count byte, then
/// each as `i16`), then each entry's index in that list packed in `width(count)` bits
/// (none when the group has one class), then a depth byte for each entry whose class is
/// below the sector's rank (255: the depth is the next of the `u16`s that follow the
/// bytes). Packing the codes lets zstd's byte-wise entropy stage go below a bit a draw
/// (1 % smaller), and one frame for [`GROUP`](super::GROUP) blocks pays a frame's tables and an index
/// entry once (13 % smaller at 16 blocks, on the 6-6 start).
///
/// Only the unfavoured draws (class below the rank) keep their depth: a favoured draw's
/// depth is 1 + the least depth among its best moves, whose in-unit children are
/// unfavoured draws, so it is found one ply up (`solve::ultra::check::fill_favoured`,
/// `Tablebase::probe_class`). That halves the class files of the whole game, whose
/// depths take 2 bits a draw even under zstd.
#[doc(hidden)]
pub fn encode_group(blocks: &[Vec<(i16, u16)>], rank: i16) -> Result<Vec<u8>, GroupError> {
    let mut out = Vec::new();
    for b in blocks {
        out.extend_from_slice(&u16::try_from(b.len()).map_err(|_| GroupError::BlockEntries(b.len()))?.to_le_bytes());
    }
    let entries = || blocks.iter().flatten();
    let mut palette: Vec<i16> = entries().map(|e| e.0).collect();
    palette.sort_unstable();
    palette.dedup();
    if palette.len() > 255 {
        return Err(GroupError::Classes(palette.len()));
    }
    out.push(palette.len() as u8);
    palette.iter().for_each(|c| out.extend_from_slice(&c.to_le_bytes()));
    let w = width(palette.len());
    if w > 0 {
        let per = 8 / w;
        let codes: Vec<u8> = entries().map(|e| palette.binary_search(&e.0).unwrap() as u8).collect();
        out.extend(codes.chunks(per).map(|c| c.iter().enumerate().fold(0u8, |acc, (k, &x)| acc | x << (k * w))));
    }
    let kept = || entries().filter(|e| e.0 < rank).map(|e| e.1);
    out.extend(kept().map(|d| d.min(ESCAPE as u16) as u8));
    kept().filter(|&d| d >= ESCAPE as u16).for_each(|d| out.extend_from_slice(&d.to_le_bytes()));
    Ok(out)
}

/// Bits a code takes for `k` distinct classes: 0, 1, 2, 4 or 8, so that codes never
/// straddle a byte.
fn width(k: usize) -> usize {
    match k {
        0 | 1 => 0,
        2 => 1,
        3 | 4 => 2,
        5..=16 => 4,
        _ => 8,
    }
}

/// The depth byte that says "see the `u16`s after the depth bytes".
const ESCAPE: u8 = 255;

/// The inverse of [`encode_group`] for a group of `blocks` strong blocks (favoured
/// depths as 0); `None` if the bytes do not fit.
pub(super) fn decode_group(raw: &[u8], blocks: usize, rank: i16) -> Option<Vec<Vec<(i16, u16)>>> {
    let counts: Vec<usize> = (0..blocks).map(|b| Some(u16::from_le_bytes([*raw.get(2 * b)?, *raw.get(2 * b + 1)?]) as usize)).collect::<Option<_>>()?;
    let n: usize = counts.iter().sum();
    let mut at = 2 * blocks;
    let k = *raw.get(at)? as usize;
    at += 1;
    let palette: Vec<i16> = (0..k).map(|j| Some(i16::from_le_bytes([*raw.get(at + 2 * j)?, *raw.get(at + 2 * j + 1)?]))).collect::<Option<_>>()?;
    at += 2 * k;
    let w = width(k);
    let mut flat: Vec<(i16, u16)> = if n == 0 {
        Vec::new()
    } else if w == 0 {
        vec![(*palette.first()?, 0); n]
    } else {
        let per = 8 / w;
        let packed = raw.get(at..at + n.div_ceil(per))?;
        at += packed.len();
        let mask = (0xffu16 >> (8 - w)) as u8;
        (0..n).map(|e| Some((*palette.get((packed[e / per] >> (e % per * w) & mask) as usize)?, 0))).collect::<Option<_>>()?
    };
    let mut wide = at + flat.iter().filter(|e| e.0 < rank).count();
    for e in flat.iter_mut().filter(|e| e.0 < rank) {
        let b = *raw.get(at)?;
        at += 1;
        e.1 = if b == ESCAPE {
            let d = u16::from_le_bytes([*raw.get(wide)?, *raw.get(wide + 1)?]);
            wide += 2;
            d
        } else {
            b as u16
        };
    }
    if wide != raw.len() {
        return None;
    }
    let mut rest = flat.into_iter();
    Some(counts.iter().map(|&c| rest.by_ref().take(c).collect()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code width (1 to 200 classes a group), depths with escapes, empty blocks
    /// among full ones: decoded as encoded; a byte more or less is refused.
    #[test]
    fn groups_round_trip_at_every_code_width() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for classes in [1usize, 2, 3, 4, 5, 16, 17, 200] {
            let rank = (classes / 2) as i16;
            let blocks: Vec<Vec<(i16, u16)>> = (0..5)
                .map(|b| {
                    let n = if b == 2 { 0 } else { (next() % 700) as usize + 1 };
                    (0..n)
                        .map(|_| {
                            let c = (next() % classes as u64) as i16 - 3;
                            let d = if c < rank { [0u16, 7, 254, 255, 256, 4000][(next() % 6) as usize] } else { 0 };
                            (c, d)
                        })
                        .collect()
                })
                .collect();
            let raw = encode_group(&blocks, rank).unwrap();
            assert!(decode_group(&raw, blocks.len(), rank).as_ref() == Some(&blocks), "{classes} classes");
            assert!(decode_group(&raw[..raw.len() - 1], blocks.len(), rank).is_none());
            let mut longer = raw.clone();
            longer.push(0);
            assert!(decode_group(&longer, blocks.len(), rank).is_none());
        }
        let too_many: Vec<Vec<(i16, u16)>> = vec![(0..256).map(|c| (c as i16, 0)).collect()];
        assert!(encode_group(&too_many, 0).is_err());
    }
}
