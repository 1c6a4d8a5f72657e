//! Hex text of keys, read without an allocation and without repeating the
//! text in any error (the callers say what was wrong, never what was
//! given).

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
}
