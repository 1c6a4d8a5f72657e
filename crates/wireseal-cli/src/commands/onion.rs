//! `wireseal sphinx` (alias `onion`): build and peel BOLT #4 Sphinx onions,
//! create, wrap and unwrap failure packets.
//!
//! `peel` prints the onion's ephemeral key, which `error create` and `error
//! wrap` take (`--ephemeral-key`, or the onion itself with `--onion`);
//! `error unwrap` names the failing hop by its 1-based position on the route
//! (`hop`) and by its node key (`node-key`).

use crate::util::input::{data, InFormat};
use crate::util::{hex_arg, output, parse_u32, secret_hex, secret_source, KeySource};
use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{self, blinding, failure, keys, Hop, Onion, Padding, Peeled, Route};

/// `wireseal sphinx ...`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Debug, clap::Subcommand)]
enum Cmd {
    /// Build an onion (deterministic padding unless --random-padding); prints it (`onion`).
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
        /// Payload area in bytes: 1300 (payments) or 32768 (large onion messages),
        /// decimal or 0x-hex; nothing else.
        #[arg(long, default_value_t = sphinx::PAYMENT_AREA, value_parser = parse_area)]
        area: usize,
        /// Fill the unused area from the OS CSPRNG instead of the `pad` key stream.
        #[arg(long)]
        random_padding: bool,
    },
    /// Peel one layer; prints `payload`, `final`, `ephemeral-key` (what `error
    /// create`/`wrap` take) and `next-onion` (absent at the final hop).
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
    /// Failure packets.
    #[command(subcommand)]
    Error(ErrorCmd),
}

/// The onion a hop received, for its failure packet's shared secret.
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
                Ok(*Onion::parse_any(&bytes).context("--onion")?.ephemeral_key())
            }
            (None, None) => bail!("give --ephemeral-key or --onion"),
        }
    }
}

#[derive(Debug, clap::Subcommand)]
enum ErrorCmd {
    /// At the failing hop: create the failure packet; prints it (`packet`).
    Create {
        /// The failing hop's node private key.
        #[command(flatten)]
        key: KeySource,
        #[command(flatten)]
        received: Received,
        /// The failure message (failure code and data), hex.
        #[arg(long, value_name = "HEX")]
        message: String,
    },
    /// At an intermediate hop: add this hop's layer; prints the packet (`packet`).
    Wrap {
        /// This hop's node private key.
        #[command(flatten)]
        key: KeySource,
        #[command(flatten)]
        received: Received,
        /// The failure packet: hex, or `-` for stdin.
        packet: String,
    },
    /// At the origin: attribute the failure; prints `hop` (1-based position on
    /// the route: 1 = the first hop after us), `node-key` (that hop's public
    /// key) and `message`.
    Unwrap {
        /// The session key the onion was built with.
        #[command(flatten)]
        session_key: SessionKeySource,
        /// Node public keys of the route, in order (repeat, one per hop).
        #[arg(
            long = "peer-key",
            alias = "hop-pubkey",
            value_name = "HEX",
            required = true
        )]
        hops: Vec<String>,
        /// The failure packet: hex, or `-` for stdin.
        packet: String,
    },
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

/// A payload area the packet format defines: 1300 or 32768 bytes (clap value parser).
fn parse_area(s: &str) -> std::result::Result<usize, String> {
    match parse_u32(s)? as usize {
        a @ (sphinx::PAYMENT_AREA | sphinx::MESSAGE_AREA_LARGE) => Ok(a),
        a => Err(format!(
            "{a} is not a payload area: use {} (payments, small onion messages) or {} (large onion messages)",
            sphinx::PAYMENT_AREA,
            sphinx::MESSAGE_AREA_LARGE
        )),
    }
}

/// A private key written as hex; errors never quote the text.
fn private_key(s: &str, what: &str) -> Result<PrivateKey> {
    let b = secret_hex::<32>(s, what)?;
    PrivateKey::from_bytes(&b).map_err(|_| anyhow!("{what}: not a valid secp256k1 private key"))
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
/// Bad input, or an onion or failure packet that does not authenticate.
pub fn run(a: Args) -> Result<()> {
    match a.cmd {
        Cmd::Build {
            session_key,
            associated_data,
            hops,
            area,
            random_padding,
        } => {
            let session = session_key.private_key()?;
            let ad = hex_arg(&associated_data, "--associated-data")?;
            let mut parsed = Vec::with_capacity(hops.len());
            for (i, h) in hops.iter().enumerate() {
                let (p, d) = h
                    .split_once(':')
                    .ok_or_else(|| anyhow!("--hop #{}: expected PUBKEY_HEX:PAYLOAD_HEX", i + 1))?;
                let payload = hex_arg(d, &format!("--hop #{} payload", i + 1))?;
                if payload.is_empty() {
                    bail!(
                        "--hop #{}: empty payload (a hop payload is a TLV stream of at least one record)",
                        i + 1
                    );
                }
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
            let pad = if random_padding {
                Padding::Random
            } else {
                Padding::Deterministic
            };
            let route = Route {
                hops: &hops,
                associated_data: &ad,
                area,
                padding: pad,
            };
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
            let unblinded = match path_key {
                Some(pk) => Some(blinding::unblind(&node, &public_key(&pk, "--path-key")?)?),
                None => None,
            };
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
        Cmd::Error(e) => run_error(e)?,
    }
    Ok(())
}

fn run_error(e: ErrorCmd) -> Result<()> {
    match e {
        ErrorCmd::Create {
            key,
            received,
            message,
        } => {
            let node = node_key(&key)?;
            let ss = node.ecdh_sha256(&received.ephemeral()?);
            let msg = hex_arg(&message, "--message")?;
            let p =
                failure::create_to_vec(&ss, &msg).context("cannot create the failure packet")?;
            output::fields(&[("packet", hex::encode(p).into())]);
        }
        ErrorCmd::Wrap {
            key,
            received,
            packet,
        } => {
            let mut p = data(&packet, "PACKET", InFormat::Hex)?;
            if p.len() < failure::MIN_FAILURE_LEN {
                bail!(
                    "PACKET: a failure packet is at least {} bytes, got {}",
                    failure::MIN_FAILURE_LEN,
                    p.len()
                );
            }
            let node = node_key(&key)?;
            let ss = node.ecdh_sha256(&received.ephemeral()?);
            failure::wrap_in_place(&ss, &mut p);
            output::fields(&[("packet", hex::encode(p).into())]);
        }
        ErrorCmd::Unwrap {
            session_key,
            hops,
            packet,
        } => {
            let session = session_key.private_key()?;
            let pubs = hops
                .iter()
                .enumerate()
                .map(|(i, h)| public_key(h, &format!("--peer-key #{}", i + 1)))
                .collect::<Result<Vec<_>>>()?;
            let (_, secrets) = keys::session_secrets(&session, pubs.iter().copied())?;
            let f = failure::unwrap(&secrets, &data(&packet, "PACKET", InFormat::Hex)?)
                .context("cannot attribute the failure")?;
            let node = pubs.get(f.hop).map(|k| hex::encode(k.serialize()));
            output::fields(&[
                ("hop", (f.hop + 1).into()),
                ("node_key", node.map_or(Value::Null, Value::String)),
                ("message", hex::encode(f.message).into()),
            ]);
        }
    }
    Ok(())
}
