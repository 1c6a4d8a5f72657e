//! Data arguments: hex on the command line or from stdin (`-`), whitespace
//! and newlines allowed, or raw bytes with `--in-format raw`.

use anyhow::{anyhow, bail, Context, Result};
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};

/// Most bytes read from stdin for one data argument.
pub const STDIN_CAP: u64 = 64 * 1024 * 1024;

static STDIN_TAKEN: AtomicBool = AtomicBool::new(false);

/// Marks stdin as read by `what`; refuses a second reader.
///
/// # Errors
///
/// Another option or argument already reads stdin.
pub fn claim_stdin(what: &str) -> Result<()> {
    if STDIN_TAKEN.swap(true, Ordering::SeqCst) {
        bail!("{what}: stdin (`-`) is already read by another option or argument");
    }
    Ok(())
}

/// How a data argument is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum InFormat {
    /// Hex digits (whitespace, newlines and a `0x` prefix allowed).
    #[default]
    Hex,
    /// The bytes themselves (from stdin with `-`, or the argument's UTF-8).
    Raw,
}

/// How a data result is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OutFormat {
    /// One line of hex.
    #[default]
    Hex,
    /// The bytes themselves, nothing added.
    Raw,
}

/// `--in-format` and `--out-format` of the commands whose data are payloads.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct Formats {
    /// How DATA is written: hex (default) or raw bytes (use `-` to read them from stdin).
    #[arg(long, value_enum, default_value = "hex")]
    pub in_format: InFormat,
    /// How the result is written: hex (default) or raw bytes (not with --json).
    #[arg(long, value_enum, default_value = "hex")]
    pub out_format: OutFormat,
}

impl Formats {
    /// Reads DATA as `--in-format` says.
    ///
    /// # Errors
    ///
    /// See [`data`].
    pub fn read(&self, arg: &str, what: &str) -> Result<Vec<u8>> {
        data(arg, what, self.in_format)
    }
}

/// The bytes of a data argument: hex (or raw) text, or stdin for `-`.
///
/// # Errors
///
/// Stdin unreadable, too large or already taken, or not hex.
pub fn data(arg: &str, what: &str, format: InFormat) -> Result<Vec<u8>> {
    let bytes = if arg == "-" {
        claim_stdin(what)?;
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .take(STDIN_CAP + 1)
            .read_to_end(&mut buf)
            .with_context(|| format!("{what}: cannot read stdin"))?;
        if buf.len() as u64 > STDIN_CAP {
            bail!("{what}: stdin holds more than {} MiB", STDIN_CAP >> 20);
        }
        buf
    } else {
        arg.as_bytes().to_vec()
    };
    match format {
        InFormat::Raw => Ok(bytes),
        InFormat::Hex => {
            let text = std::str::from_utf8(&bytes).map_err(|_| anyhow!("{what}: not hex text"))?;
            hex_arg(text, what)
        }
    }
}

/// Decodes hex (whitespace, newlines and a `0x` prefix tolerated) with a
/// message naming `what`.
///
/// # Errors
///
/// Not valid hex.
pub fn hex_arg(s: &str, what: &str) -> Result<Vec<u8>> {
    let t: String = s.split_whitespace().collect();
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(&t);
    hex::decode(t).map_err(|e| anyhow!("{what}: not valid hex ({e})"))
}

/// Decodes hex of exactly `N` bytes.
///
/// # Errors
///
/// Not valid hex or the wrong length.
pub fn hex_array<const N: usize>(s: &str, what: &str) -> Result<[u8; N]> {
    let v = hex_arg(s, what)?;
    let n = v.len();
    v.try_into().map_err(|_| {
        anyhow!(
            "{what}: expected {N} bytes ({} hex digits), got {n} bytes",
            2 * N
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_lengths_are_checked() {
        assert!(hex_array::<4>("00112233", "k").is_ok());
        assert_eq!(
            hex_arg("00 11\n22\t33\n", "k").unwrap(),
            [0, 0x11, 0x22, 0x33]
        );
        let e = hex_array::<4>("001122", "k").unwrap_err().to_string();
        assert!(e.contains("expected 4 bytes"), "{e}");
        assert!(hex_arg("zz", "k").is_err());
        assert_eq!(data("hi", "d", InFormat::Raw).unwrap(), b"hi");
    }
}
