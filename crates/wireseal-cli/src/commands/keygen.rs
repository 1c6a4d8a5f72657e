//! `wireseal keygen`: a new private key, written to a file (mode 0600) or
//! printed, and its public key.

use crate::util::output;
use anyhow::Result;
use serde_json::Value;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use wireseal::keys::{PrivateKey, StaticSecret};
use zeroize::Zeroizing;

/// Key types `keygen` and `pubkey` know.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Kind {
    /// X25519 (Meshtastic PKC, peat-btle per-peer E2EE).
    X25519,
    /// secp256k1 (Lightning node keys and session keys for `sphinx`).
    Secp256k1,
}

impl Kind {
    /// The name the command line accepts.
    pub fn name(self) -> &'static str {
        match self {
            Kind::X25519 => "x25519",
            Kind::Secp256k1 => "secp256k1",
        }
    }
}

/// `wireseal keygen KIND [--out FILE] [--force]`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Which kind of key.
    #[arg(value_enum)]
    kind: Kind,
    /// Write the private key to FILE (one hex line, mode 0600; every
    /// `--*-file` option reads it) and print only the public key.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Replace FILE if it is a regular file (never a device, FIFO or link).
    #[arg(long, requires = "out")]
    force: bool,
}

/// Makes the key; writes or prints it (`key`, `public-key`).
///
/// # Errors
///
/// FILE exists (without `--force`), is not a regular file, or cannot be written.
pub fn run(a: Args) -> Result<()> {
    let (private, public) = generate(a.kind);
    let kind = Value::String(a.kind.name().into());
    let public = Value::String(hex::encode(public));
    match &a.out {
        Some(path) => {
            write_key_file(path, &private, a.force, || {
                output::fields_shown(
                    &[
                        ("kind", kind),
                        ("public_key", public),
                        ("out", Value::String(path.display().to_string())),
                    ],
                    &["public_key"],
                );
            })?;
        }
        None => {
            if !std::io::stdout().is_terminal() {
                eprintln!(
                    "wireseal: note: the private key goes to stdout; `--out FILE` writes it \
                     with mode 0600"
                );
            }
            output::fields_shown(
                &[
                    ("kind", kind),
                    ("key", Value::String(private.as_str().to_owned())),
                    ("public_key", public),
                ],
                &["key", "public_key"],
            );
        }
    }
    Ok(())
}

/// A new private key as hex (wiped when dropped) and its public key.
fn generate(kind: Kind) -> (Zeroizing<String>, Vec<u8>) {
    match kind {
        Kind::X25519 => {
            let k = StaticSecret::generate();
            (
                Zeroizing::new(hex::encode(k.expose())),
                k.public_key().to_vec(),
            )
        }
        Kind::Secp256k1 => {
            let k = PrivateKey::random();
            (
                Zeroizing::new(hex::encode(k.to_secret().expose())),
                k.public_key().serialize().to_vec(),
            )
        }
    }
}

/// Writes `hex` and a newline to `path` with mode 0600 (a new file, or with
/// `force` a replacement for a regular file), then runs `announce`.
fn write_key_file(path: &Path, hex: &str, force: bool, announce: impl FnOnce()) -> Result<()> {
    let line = Zeroizing::new(format!("{hex}\n"));
    crate::util::secret::write_secret_file(path, &line, force, announce)
}
