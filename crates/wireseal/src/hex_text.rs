//! Hex text: keys read without an allocation and without repeating the
//! text in any error (the callers say what was wrong, never what was
//! given), and (feature `serde`) bytes written into records.

/// The value of one hex digit (either case).
const fn digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Decodes exactly `out.len()` bytes of hex `text` (either case) into
/// `out`. `Err(())` when the text has another length or a non-hex
/// character; `out` may then hold part of the bytes.
pub(crate) fn decode_into(text: &str, out: &mut [u8]) -> Result<(), ()> {
    let b = text.as_bytes();
    if b.len() != out.len() * 2 {
        return Err(());
    }
    for (o, pair) in out.iter_mut().zip(b.chunks_exact(2)) {
        *o = (digit(pair[0]).ok_or(())? << 4) | digit(pair[1]).ok_or(())?;
    }
    Ok(())
}

/// Bytes serialized as one lowercase hex string, written through a stack
/// buffer 64 bytes at a time: one `write_str` per chunk rather than a
/// formatter call per byte.
#[cfg(feature = "serde")]
pub(crate) struct Hex<'a>(pub(crate) &'a [u8]);

#[cfg(feature = "serde")]
impl core::fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut buf = [0u8; 128];
        for chunk in self.0.chunks(64) {
            for (i, b) in chunk.iter().enumerate() {
                buf[2 * i] = DIGITS[usize::from(b >> 4)];
                buf[2 * i + 1] = DIGITS[usize::from(b & 15)];
            }
            let text =
                core::str::from_utf8(&buf[..2 * chunk.len()]).map_err(|_| core::fmt::Error)?;
            f.write_str(text)?;
        }
        Ok(())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Hex<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_both_cases_and_refuses_the_rest() {
        let mut out = [0u8; 2];
        assert_eq!(super::decode_into("aB0f", &mut out), Ok(()));
        assert_eq!(out, [0xab, 0x0f]);
        assert_eq!(super::decode_into("aB0", &mut out), Err(()));
        assert_eq!(super::decode_into("aB0g", &mut out), Err(()));
        assert_eq!(super::decode_into("aB0f00", &mut out), Err(()));
    }

    #[cfg(feature = "serde")]
    #[test]
    fn writes_lowercase_hex_across_chunks() {
        let json = |b: &[u8]| serde_json::to_string(&super::Hex(b)).unwrap();
        assert_eq!(json(&[]), r#""""#);
        assert_eq!(json(&[0x00, 0xab, 0x0f, 0xff]), r#""00ab0fff""#);
        for len in [63, 64, 65, 128, 600] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
            let expected: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(json(&bytes), format!("\"{expected}\""), "{len} bytes");
        }
    }
}
