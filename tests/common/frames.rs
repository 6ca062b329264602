//! The crafted region of the attack the table readers must refuse: a shorter zstd
//! frame followed by a skippable frame whose last 4 bytes are the replaced region's
//! own last 4 (its checksum). zstd decodes the short frame and skips the rest, so a
//! reader that checks only where a region ends and its last bytes would take it.

/// `frame` padded to `len` bytes by a skippable frame ending in `tail` (4 bytes).
/// `frame` must be at least 12 bytes shorter than `len`: 8 bytes of skippable
/// header and the 4 of `tail`.
pub fn hidden_behind_skippable(frame: &[u8], len: usize, tail: &[u8]) -> Vec<u8> {
    assert!(frame.len() + 12 <= len && tail.len() == 4, "no room for a skippable frame");
    let mut region = frame.to_vec();
    region.extend_from_slice(&0x184D_2A50u32.to_le_bytes());
    region.extend_from_slice(&((len - frame.len() - 8) as u32).to_le_bytes());
    region.resize(len - 4, 0);
    region.extend_from_slice(tail);
    region
}
