//! The test traffic `wireseal v2 connect` sends: deterministic contents, so
//! the checker can regenerate what it expects back.

/// Contents of packet `i` with `len` bytes, written into `out`.
pub(super) fn contents(i: usize, len: usize, out: &mut Vec<u8>) {
    out.clear();
    out.extend((0..len).map(|j| (i.wrapping_mul(31).wrapping_add(j)) as u8));
}
