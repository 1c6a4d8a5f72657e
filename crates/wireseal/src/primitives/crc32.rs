//! CRC-32 (ISO-HDLC: reflected polynomial 0xEDB88320, initial value and
//! final XOR 0xFFFFFFFF, the zlib one) through `crc32fast`. Not a security
//! primitive: Meshtastic derives node numbers with it.

/// The CRC-32 of `bytes`.
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

#[cfg(test)]
mod tests {
    /// The catalogue check value of CRC-32/ISO-HDLC.
    #[test]
    fn check_value() {
        assert_eq!(super::crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(super::crc32(b""), 0);
    }
}
