//! BigSize: the Lightning variable-length integer (big-endian, canonical).

use super::Error;

/// Bytes needed to encode `n` as BigSize.
pub const fn len(n: u64) -> usize {
    match n {
        0..=0xfc => 1,
        0xfd..=0xffff => 3,
        0x1_0000..=0xffff_ffff => 5,
        _ => 9,
    }
}

/// Writes `n` at the start of `out` (at least [`len`]`(n)` bytes); returns the
/// number of bytes written.
pub fn write(n: u64, out: &mut [u8]) -> usize {
    let l = len(n);
    match l {
        1 => out[0] = n as u8,
        3 => {
            out[0] = 0xfd;
            out[1..3].copy_from_slice(&(n as u16).to_be_bytes());
        }
        5 => {
            out[0] = 0xfe;
            out[1..5].copy_from_slice(&(n as u32).to_be_bytes());
        }
        _ => {
            out[0] = 0xff;
            out[1..9].copy_from_slice(&n.to_be_bytes());
        }
    }
    l
}

/// Appends `n` to `out`.
pub fn push(n: u64, out: &mut Vec<u8>) {
    let mut b = [0u8; 9];
    let l = write(n, &mut b);
    out.extend_from_slice(&b[..l]);
}

/// Reads a canonical BigSize from the start of `b`: `(value, bytes used)`.
///
/// # Errors
///
/// [`Error::BadPayload`] when `b` is empty, ends inside the number, or the
/// encoding is not canonical (the shortest one).
pub fn read(b: &[u8]) -> Result<(u64, usize), Error> {
    let first = *b.first().ok_or(Error::BadPayload)?;
    let (v, l) = match first {
        0xfd => (u16::from_be_bytes(take::<2>(b)?) as u64, 3),
        0xfe => (u32::from_be_bytes(take::<4>(b)?) as u64, 5),
        0xff => (u64::from_be_bytes(take::<8>(b)?), 9),
        x => (x as u64, 1),
    };
    if len(v) != l {
        return Err(Error::BadPayload);
    }
    Ok((v, l))
}

fn take<const N: usize>(b: &[u8]) -> Result<[u8; N], Error> {
    b.get(1..1 + N)
        .and_then(|s| s.try_into().ok())
        .ok_or(Error::BadPayload)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The BOLT #1 BigSize test vectors (decoding and encoding).
    #[test]
    fn bolt1_vectors() {
        let ok: &[(u64, &str)] = &[
            (0, "00"),
            (252, "fc"),
            (253, "fd00fd"),
            (65535, "fdffff"),
            (65536, "fe00010000"),
            (4294967295, "feffffffff"),
            (4294967296, "ff0000000100000000"),
            (18446744073709551615, "ffffffffffffffffff"),
        ];
        for (v, h) in ok {
            let b = hex::decode(h).unwrap();
            assert_eq!(read(&b).unwrap(), (*v, b.len()));
            let mut out = Vec::new();
            push(*v, &mut out);
            assert_eq!(out, b);
        }
        for bad in [
            "fd00fc",
            "fe0000ffff",
            "ff00000000ffffffff",
            "fd00",
            "feffff",
            "ffffffffff",
            "",
        ] {
            assert!(read(&hex::decode(bad).unwrap()).is_err(), "{bad}");
        }
    }
}
