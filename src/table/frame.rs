//! The one test that a stored region is the frame its index names.
//!
//! zstd decodes frames placed back to back and skips "skippable" frames, so a region
//! that merely *ends* with the right checksum proves nothing: another block's frame
//! followed by a skippable frame ending in the expected 4 bytes would decode to the
//! other block's values. A region passes only if it is exactly one ordinary zstd
//! frame, spanning every byte, that carries a content checksum equal to the index's.
//! zstd then verifies that checksum against the plane it decodes, so the plane read is
//! the plane written.

/// The magic number that opens an ordinary (not skippable) zstd frame.
const ZSTD_MAGIC: [u8; 4] = 0xFD2F_B528u32.to_le_bytes();

/// Whether `region` is exactly one zstd frame with a content checksum equal to
/// `check` (an empty region stands for no frame, and matches only `check == 0`).
pub(crate) fn is_named_frame(region: &[u8], check: u32) -> bool {
    if region.is_empty() {
        return check == 0;
    }
    // Magic (4), frame header descriptor (1, bit 2: content checksum present), at
    // least one block header (3) and the checksum (4).
    if region.len() < 12 || region[..4] != ZSTD_MAGIC || region[4] & 0x04 == 0 {
        return false;
    }
    let stored = u32::from_le_bytes(region[region.len() - 4..].try_into().unwrap());
    stored == check && zstd::zstd_safe::find_frame_compressed_size(region) == Ok(region.len())
}

#[cfg(test)]
mod tests {
    use super::is_named_frame;

    fn frame(data: &[u8]) -> Vec<u8> {
        let mut c = zstd::bulk::Compressor::new(3).unwrap();
        c.include_checksum(true).unwrap();
        c.compress(data).unwrap()
    }

    fn check(f: &[u8]) -> u32 {
        u32::from_le_bytes(f[f.len() - 4..].try_into().unwrap())
    }

    /// A skippable frame of `len` bytes in all whose last 4 bytes are `tail`.
    fn skippable(len: usize, tail: u32) -> Vec<u8> {
        let mut s = 0x184D_2A50u32.to_le_bytes().to_vec();
        s.extend_from_slice(&((len - 8) as u32).to_le_bytes());
        s.resize(len - 4, 0);
        s.extend_from_slice(&tail.to_le_bytes());
        s
    }

    #[test]
    fn only_one_whole_frame_with_the_named_checksum_passes() {
        let a = frame(&[1u8; 2048]);
        let b = frame(&(0..2048u32).map(|i| (i * 7 % 251) as u8).collect::<Vec<_>>());
        assert!(is_named_frame(&a, check(&a)));
        assert!(is_named_frame(&[], 0));
        assert!(!is_named_frame(&[], 1));
        assert!(!is_named_frame(&a, check(&a) ^ 1), "another checksum");
        // Another frame followed by a skippable frame that ends with `b`'s checksum.
        let mut spliced = a.clone();
        spliced.extend(skippable(16, check(&b)));
        assert!(!is_named_frame(&spliced, check(&b)), "frame + skippable frame");
        // Two ordinary frames back to back, the second the named one.
        let mut two = a.clone();
        two.extend_from_slice(&b);
        assert!(!is_named_frame(&two, check(&b)), "two frames");
        // A skippable frame alone.
        assert!(!is_named_frame(&skippable(32, check(&b)), check(&b)));
        // Truncated, or with a byte more.
        assert!(!is_named_frame(&b[..b.len() - 1], check(&b)));
        // A frame without a content checksum.
        let plain = zstd::bulk::compress(&[5u8; 100], 3).unwrap();
        assert!(!is_named_frame(&plain, u32::from_le_bytes(plain[plain.len() - 4..].try_into().unwrap())));
    }
}
