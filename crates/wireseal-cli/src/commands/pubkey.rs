//! `wireseal pubkey`: the public key of a private key.

use super::keygen::Kind;
use crate::util::{output, KeySource};
use anyhow::{anyhow, Result};
use serde_json::Value;
use wireseal::keys::{PrivateKey, StaticSecret};

/// `wireseal pubkey KIND --key-file FILE` (or `--key` / `--key-env`).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Which kind of key.
    #[arg(value_enum)]
    kind: Kind,
    /// The private key.
    #[command(flatten)]
    key: KeySource,
}

/// Prints the public key (`public-key`).
///
/// # Errors
///
/// The key is missing, unreadable, not 32 bytes of hex, or not a valid key.
pub fn run(a: Args) -> Result<()> {
    let sk = a.key.load::<32>()?;
    let public = match a.kind {
        Kind::X25519 => StaticSecret::from_bytes(&sk)
            .map_err(|_| anyhow!("{}: not a valid X25519 private key", a.key.given_flag()))?
            .public_key()
            .to_vec(),
        Kind::Secp256k1 => PrivateKey::from_bytes(&sk)
            .map_err(|_| anyhow!("{}: not a valid secp256k1 private key", a.key.given_flag()))?
            .public_key()
            .serialize()
            .to_vec(),
    };
    output::fields_shown(
        &[
            ("kind", Value::String(a.kind.name().into())),
            ("public_key", Value::String(hex::encode(public))),
        ],
        &["public_key"],
    );
    Ok(())
}
