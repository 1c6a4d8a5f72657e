//! Argument parsing shared by the subcommands: hex, numbers, secrets.

use anyhow::{anyhow, bail, Context, Result};
use std::path::Path;
use zeroize::Zeroizing;

/// Decodes hex (whitespace and a `0x` prefix tolerated) with a message naming `what`.
pub fn hex_arg(s: &str, what: &str) -> Result<Vec<u8>> {
    let t: String = s.split_whitespace().collect();
    let t = t.strip_prefix("0x").unwrap_or(&t);
    hex::decode(t).map_err(|e| anyhow!("{what}: not valid hex ({e})"))
}

/// Decodes hex of exactly `N` bytes.
pub fn hex_array<const N: usize>(s: &str, what: &str) -> Result<[u8; N]> {
    let v = hex_arg(s, what)?;
    let n = v.len();
    v.try_into()
        .map_err(|_| anyhow!("{what}: expected {N} bytes ({} hex digits), got {n}", 2 * N))
}

/// Parses a number written in decimal or with a `0x` prefix (clap value parser).
pub fn parse_u32(s: &str) -> std::result::Result<u32, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16),
        None => s.parse::<u32>(),
    };
    r.map_err(|e| format!("{s:?} is not a 32-bit number, decimal or 0x-prefixed hex ({e})"))
}

/// Declares the three mutually exclusive options of one secret, `--NAME`
/// (inline, visible in the process list), `--NAME-file FILE` and
/// `--NAME-env VAR`, as a struct to `#[command(flatten)]`, with a `Debug`
/// that never shows the inline value, `text` (the secret's text, from
/// whichever option was given) and `load::<N>` (exactly `N` bytes of hex).
macro_rules! secret_source {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            flags: [$flag:literal, $file_flag:literal, $env_flag:literal],
            value_name: $value_name:literal,
            help: [$help:literal, $file_help:literal, $env_help:literal $(,)?] $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Default, clap::Args)]
        $vis struct $name {
            /// The secret itself.
            #[arg(id = $flag, long = $flag, value_name = $value_name, help = $help)]
            pub hex: Option<String>,
            /// A file holding the secret.
            #[arg(
                id = $file_flag,
                long = $file_flag,
                value_name = "FILE",
                conflicts_with = $flag,
                help = $file_help
            )]
            pub file: Option<std::path::PathBuf>,
            /// An environment variable holding the secret.
            #[arg(
                id = $env_flag,
                long = $env_flag,
                value_name = "VAR",
                conflicts_with_all = [$flag, $file_flag],
                help = $env_help
            )]
            pub env: Option<String>,
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("hex", &self.hex.as_ref().map(|_| "redacted"))
                    .field("file", &self.file)
                    .field("env", &self.env)
                    .finish()
            }
        }

        #[allow(dead_code)]
        impl $name {
            /// The secret's text from whichever option was given (trimmed,
            /// wiped when dropped); `what` names it in errors.
            pub fn text(&self, what: &str) -> anyhow::Result<zeroize::Zeroizing<String>> {
                $crate::util::read_secret_text(
                    self.hex.as_deref(),
                    self.file.as_deref(),
                    self.env.as_deref(),
                    what,
                    concat!("--", $flag, ", --", $file_flag, " or --", $env_flag),
                )
            }

            /// Exactly `N` secret bytes, written as hex.
            pub fn load<const N: usize>(
                &self,
                what: &str,
            ) -> anyhow::Result<zeroize::Zeroizing<[u8; N]>> {
                $crate::util::secret_hex(&self.text(what)?, what)
            }

            /// Whether none of the three options was given.
            pub fn is_absent(&self) -> bool {
                self.hex.is_none() && self.file.is_none() && self.env.is_none()
            }
        }
    };
}
pub(crate) use secret_source;

secret_source! {
    /// Our private key (hex): on the command line, in a file, or in an
    /// environment variable.
    pub struct SecretSource {
        flags: ["private", "private-file", "private-env"],
        value_name: "HEX",
        help: [
            "Our private key as hex (visible to other local users via the process list; prefer --private-file or --private-env)",
            "Read the private key (hex) from this file",
            "Read the private key (hex) from this environment variable",
        ],
    }
}

/// Reads a secret's text from whichever of its three sources was given:
/// inline on the command line, a file, or an environment variable. `flags`
/// names the three options for the error when none was given. Surrounding
/// whitespace is trimmed; the text is wiped when dropped.
pub fn read_secret_text(
    inline: Option<&str>,
    file: Option<&Path>,
    env: Option<&str>,
    what: &str,
    flags: &str,
) -> Result<Zeroizing<String>> {
    let text = Zeroizing::new(if let Some(h) = inline {
        h.to_owned()
    } else if let Some(f) = file {
        std::fs::read_to_string(f)
            .with_context(|| format!("cannot read {what} from {}", f.display()))?
    } else if let Some(v) = env {
        std::env::var(v).map_err(|_| anyhow!("environment variable {v} is not set"))?
    } else {
        bail!("{what} is required: give {flags}");
    });
    Ok(Zeroizing::new(text.trim().to_owned()))
}

/// Decodes a secret written as hex into exactly `N` bytes. Unlike
/// [`hex_arg`], errors never quote any character of the input.
pub fn secret_hex<const N: usize>(text: &str, what: &str) -> Result<Zeroizing<[u8; N]>> {
    let compact: Zeroizing<String> = Zeroizing::new(text.split_whitespace().collect());
    let digits = compact.strip_prefix("0x").unwrap_or(&compact);
    if digits.len() != 2 * N {
        bail!(
            "{what}: expected {N} bytes ({} hex digits), got {} digits",
            2 * N,
            digits.len()
        );
    }
    let mut out = Zeroizing::new([0u8; N]);
    hex::decode_to_slice(digits, &mut out[..])
        .map_err(|_| anyhow!("{what}: not valid hex (the value is not shown)"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_both_bases() {
        assert_eq!(parse_u32("2345"), Ok(2345));
        assert_eq!(parse_u32("0x929"), Ok(0x929));
        assert!(parse_u32("0x1_0000_0000").is_err());
        assert!(parse_u32("-1").is_err());
    }

    #[test]
    fn hex_lengths_are_checked() {
        assert!(hex_array::<4>("00112233", "k").is_ok());
        let e = hex_array::<4>("001122", "k").unwrap_err().to_string();
        assert!(e.contains("expected 4 bytes"), "{e}");
        assert!(hex_arg("zz", "k").is_err());
    }

    #[test]
    fn secret_from_env_and_file() {
        std::env::set_var("WIRESEAL_TEST_KEY", "0102");
        let s = SecretSource {
            env: Some("WIRESEAL_TEST_KEY".into()),
            ..Default::default()
        };
        assert_eq!(*s.load::<2>("key").unwrap(), [1, 2]);
        let dir = std::env::temp_dir().join(format!("wireseal-util-{}", std::process::id()));
        std::fs::write(&dir, "0a0b\n").unwrap();
        let s = SecretSource {
            file: Some(dir.clone()),
            ..Default::default()
        };
        assert_eq!(*s.load::<2>("key").unwrap(), [10, 11]);
        std::fs::remove_file(dir).unwrap();
        assert!(SecretSource::default().load::<2>("key").is_err());
    }

    #[test]
    fn secret_hex_errors_do_not_quote_the_secret() {
        assert_eq!(*secret_hex::<2>(" 0x0a0B\n", "k").unwrap(), [10, 11]);
        let e = secret_hex::<2>("0aZq", "k").unwrap_err().to_string();
        assert!(!e.contains('Z') && !e.contains('q'), "{e}");
        let e = secret_hex::<2>("0a0b0c", "k").unwrap_err().to_string();
        assert!(e.contains("expected 2 bytes") && !e.contains("0c"), "{e}");
    }
}
