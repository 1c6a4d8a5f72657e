//! Argument parsing and output shared by the subcommands: hex and data
//! arguments (`-` for stdin), numbers, secrets, JSON or human results.

pub mod errors;
pub mod input;
pub(crate) mod interrupt;
pub mod output;
pub mod secret;

pub use input::{hex_arg, hex_array, Formats};
pub(crate) use secret::secret_source;
pub use secret::{secret_hex, KeySource};

/// Parses a number written in decimal or with a `0x` prefix (clap value parser).
///
/// # Errors
///
/// Not a number, or out of range for `u32`.
pub fn parse_u32(s: &str) -> std::result::Result<u32, String> {
    let v = parse_u64(s)?;
    u32::try_from(v).map_err(|_| format!("{s:?} is larger than a 32-bit number"))
}

/// Parses a 64-bit number written in decimal or with a `0x` prefix (clap
/// value parser).
///
/// # Errors
///
/// Not a number, or out of range for `u64`.
pub fn parse_u64(s: &str) -> std::result::Result<u64, String> {
    let t = s.replace('_', "");
    let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse::<u64>(),
    };
    r.map_err(|e| format!("{s:?} is not a number, decimal or 0x-prefixed hex ({e})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_both_bases() {
        assert_eq!(parse_u32("2345"), Ok(2345));
        assert_eq!(parse_u32("0x929"), Ok(0x929));
        assert_eq!(parse_u64("0x1_0000_0000"), Ok(1 << 32));
        assert!(parse_u32("0x1_0000_0000").is_err());
        assert!(parse_u32("-1").is_err());
    }
}
