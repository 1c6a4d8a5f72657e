//! `wireseal sphinx`: build and peel BOLT #4 Sphinx onions;
//! failure packets and fulfill hold times with attribution data
//! ([`failure`]).
//!
//! `peel` prints the onion's ephemeral key, which the failure and fulfill
//! commands take at each hop (`--ephemeral-key`, or the onion itself with
//! `--onion`); the origin's unwraps name hops by their 1-based position on
//! the route. Areas, padding, hop numbers and every check come from
//! `wireseal::sphinx`.

mod failure;
mod fulfill;

use crate::util::input::{data, InFormat};
use crate::util::{hex_arg, output, secret_hex, secret_source, KeySource};
use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{self, blinding, keys, Area, Hop, Incoming, Onion, Padding, Peeled, Route};

/// `wireseal sphinx ...`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Debug, clap::Subcommand)]
enum Cmd {
    /// Build an onion; prints it (`onion`).
    Build {
        #[command(flatten)]
        session_key: SessionKeySource,
        /// Associated data (the payment hash for payments; empty for onion messages).
        #[arg(long, value_name = "HEX", default_value = "")]
        associated_data: String,
        /// A hop, in path order: node public key and TLV payload (without its
        /// BigSize length prefix). Repeat for each hop.
        #[arg(long = "hop", value_name = "PUBKEY_HEX:PAYLOAD_HEX", required = true)]
        hops: Vec<String>,
        /// Payload area: `payment` (1300 bytes: payments, small onion
        /// messages) or `message-large` (32768 bytes), or its size in bytes.
        #[arg(long, value_name = "AREA", default_value_t = Area::default())]
        area: Area,
        /// How the unused area is filled: `deterministic` (BOLT #4's `pad`-key
        /// stream from the session key) or `random` (the OS CSPRNG).
        #[arg(long, value_name = "PADDING", default_value_t = Padding::default())]
        padding: Padding,
    },
    /// Peel one layer; prints `payload`, `final`, `ephemeral-key` (what the
    /// failure and fulfill commands take) and `next-onion` (absent at the
    /// final hop).
    Peel {
        /// Our node private key (secp256k1).
        #[command(flatten)]
        key: KeySource,
        /// Associated data the onion commits to.
        #[arg(long, value_name = "HEX", default_value = "")]
        associated_data: String,
        /// Path key of a blinded route (from update_add_htlc or the onion
        /// message): peel with the blinded private key.
        #[arg(long, value_name = "HEX")]
        path_key: Option<String>,
        /// How ONION is written: hex (default) or raw bytes (with `-`).
        #[arg(long, value_enum, default_value = "hex")]
        in_format: InFormat,
        /// The onion (1366 or 32834 bytes): hex, or `-` for stdin.
        onion: String,
    },
    /// Failure packets (`update_fail_htlc`), with attribution data, and the
    /// `update_fail_malformed_htlc` reply to an onion that does not peel.
    #[command(subcommand)]
    Error(failure::ErrorCmd),
    /// What comes back with `update_fulfill_htlc`: hold times (attribution
    /// data) and the final node's `fulfillment_payload`.
    #[command(subcommand)]
    Fulfill(fulfill::FulfillCmd),
}

/// The onion a hop received, for the shared secret its failure or fulfill
/// needs.
#[derive(Debug, clap::Args)]
#[group(required = true, multiple = false)]
struct Received {
    /// The ephemeral public key of the onion this hop received (`peel` prints it).
    #[arg(long, value_name = "HEX")]
    ephemeral_key: Option<String>,
    /// The onion this hop received (hex, or `-` for stdin); its ephemeral key is used.
    #[arg(long, value_name = "HEX")]
    onion: Option<String>,
}

impl Received {
    fn ephemeral(&self) -> Result<PublicKey> {
        match (&self.ephemeral_key, &self.onion) {
            (Some(k), _) => public_key(k, "--ephemeral-key"),
            (None, Some(o)) => {
                let bytes = data(o, "--onion", InFormat::Hex)?;
                Ok(*Onion::parse_message(&bytes)
                    .context("--onion")?
                    .ephemeral_key())
            }
            (None, None) => bail!("give --ephemeral-key or --onion"),
        }
    }

    /// This hop's shared secret with the onion's sender and how its HTLC
    /// arrived: with `path_key`
    /// (the `update_add_htlc`'s), the hop is inside a blinded path and its
    /// secret comes from its blinded key.
    fn hop(
        &self,
        key: &KeySource,
        path_key: Option<&str>,
    ) -> Result<(sphinx::SharedSecret, Incoming)> {
        let node = node_key(key)?;
        let unblinded = unblind(&node, path_key)?;
        let key = unblinded.as_ref().map_or(&node, |u| u.blinded_privkey());
        Ok((
            keys::shared_secret(key, &self.ephemeral()?),
            Incoming::from_path_key(path_key),
        ))
    }
}

secret_source! {
    /// The session private key (32 bytes hex): on the command line, in a file or
    /// in an environment variable.
    struct SessionKeySource {
        flags: ["session-key", "session-key-file", "session-key-env"],
        value_name: "HEX",
        help: [
            "Session private key, 32 bytes hex (visible in the process list; prefer --session-key-file or --session-key-env)",
            "Read the session private key (hex) from this file",
            "Read the session private key (hex) from this environment variable",
        ],
    }
}

impl SessionKeySource {
    fn private_key(&self) -> Result<PrivateKey> {
        private_key(&self.text()?, self.given_flag())
    }
}

/// The origin's view of a route: the session key and the hops' node keys.
#[derive(Debug, clap::Args)]
struct Origin {
    /// The session key the onion was built with.
    #[command(flatten)]
    session_key: SessionKeySource,
    /// Node public keys of the route, in order (repeat, one per hop; the
    /// blinded node ids of a blinded path's hops).
    #[arg(long = "peer-key", value_name = "HEX", required = true)]
    hops: Vec<String>,
    /// How many of the last hops are inside a blinded path (after its
    /// introduction node): they add no attribution data, which is then read
    /// up to the introduction node.
    #[arg(long, value_name = "N", default_value_t = 0)]
    blinded_hops: usize,
}

impl Origin {
    /// The hops' public keys and the route's shared secrets.
    fn secrets(&self) -> Result<(Vec<PublicKey>, sphinx::HopSecrets)> {
        let session = self.session_key.private_key()?;
        let pubs = self
            .hops
            .iter()
            .enumerate()
            .map(|(i, h)| public_key(h, &format!("--peer-key #{}", i + 1)))
            .collect::<Result<Vec<_>>>()?;
        let (_, secrets) = keys::session_secrets(&session, pubs.iter().copied())?;
        let secrets = secrets
            .with_blinded_tail(self.blinded_hops)
            .context("--blinded-hops")?;
        Ok((pubs, secrets))
    }
}

/// A private key written as hex; errors never quote the text.
fn private_key(s: &str, what: &str) -> Result<PrivateKey> {
    let b = secret_hex::<32>(s, what)?;
    PrivateKey::from_bytes(&b).map_err(|_| anyhow!("{what}: not a valid secp256k1 private key"))
}

/// What a hop inside a blinded path derives from its `--path-key`, if given
/// (its blinded key peels the onion).
fn unblind(node: &PrivateKey, path_key: Option<&str>) -> Result<Option<blinding::Unblinded>> {
    path_key
        .map(|pk| Ok(blinding::unblind(node, &public_key(pk, "--path-key")?)?))
        .transpose()
}

/// Our node key, secp256k1.
fn node_key(src: &KeySource) -> Result<PrivateKey> {
    let b = src.load::<32>()?;
    PrivateKey::from_bytes(&b)
        .map_err(|_| anyhow!("{}: not a valid secp256k1 private key", src.given_flag()))
}

fn public_key(s: &str, what: &str) -> Result<PublicKey> {
    let b = hex_arg(s, what)?;
    if b.len() != 33 {
        bail!(
            "{what}: expected a 33-byte compressed public key, got {} bytes",
            b.len()
        );
    }
    PublicKey::from_slice(&b).map_err(|_| anyhow!("{what}: not a valid secp256k1 public key"))
}

/// Runs the subcommand.
///
/// # Errors
///
/// Bad input, or an onion that does not authenticate.
pub fn run(a: Args) -> Result<()> {
    match a.cmd {
        Cmd::Build {
            session_key,
            associated_data,
            hops,
            area,
            padding,
        } => {
            let session = session_key.private_key()?;
            let ad = hex_arg(&associated_data, "--associated-data")?;
            let mut parsed = Vec::with_capacity(hops.len());
            for (i, h) in hops.iter().enumerate() {
                let (p, d) = h
                    .split_once(':')
                    .ok_or_else(|| anyhow!("--hop #{}: expected PUBKEY_HEX:PAYLOAD_HEX", i + 1))?;
                let payload = hex_arg(d, &format!("--hop #{} payload", i + 1))?;
                parsed.push((
                    public_key(p, &format!("--hop #{} public key", i + 1))?,
                    payload,
                ));
            }
            let hops: Vec<Hop> = parsed
                .iter()
                .map(|(p, d)| Hop {
                    pubkey: *p,
                    payload: d,
                })
                .collect();
            let route = Route::new(&hops, &ad).with_area(area).with_padding(padding);
            let (onion, _) =
                sphinx::build_to_vec(&session, &route).context("cannot build the onion")?;
            output::fields(&[("onion", hex::encode(onion).into())]);
        }
        Cmd::Peel {
            key,
            associated_data,
            path_key,
            in_format,
            onion,
        } => {
            let node = node_key(&key)?;
            let ad = hex_arg(&associated_data, "--associated-data")?;
            let onion =
                Onion::parse_message(&data(&onion, "ONION", in_format)?).context("bad onion")?;
            let ephemeral = hex::encode(onion.ephemeral_key().serialize());
            let unblinded = unblind(&node, path_key.as_deref())?;
            let key = unblinded
                .as_ref()
                .map(|u| u.blinded_privkey())
                .unwrap_or(&node);
            let peeled = onion.peel(key, &ad).context("cannot peel the onion")?;
            let (is_final, next) = match &peeled {
                Peeled::Forward { next, .. } => (false, Value::String(hex::encode(next.to_vec()))),
                Peeled::Final { .. } => (true, Value::Null),
            };
            output::fields(&[
                ("payload", hex::encode(peeled.payload()).into()),
                ("final", is_final.into()),
                ("ephemeral_key", ephemeral.into()),
                ("next_onion", next),
            ]);
        }
        Cmd::Error(e) => failure::run_error(e)?,
        Cmd::Fulfill(f) => fulfill::run(f)?,
    }
    Ok(())
}
