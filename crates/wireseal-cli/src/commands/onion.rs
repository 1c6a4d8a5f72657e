//! `wireseal onion`: build and peel BOLT #4 Sphinx onions, create, wrap and
//! unwrap failure packets.

use crate::util::{hex_arg, parse_u32, secret_hex, secret_source, SecretSource};
use anyhow::{anyhow, bail, Context, Result};
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{self, blinding, failure, keys, Hop, Onion, Padding, Peeled, Route};

/// `wireseal onion ...`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Debug, clap::Subcommand)]
enum Cmd {
    /// Build an onion (deterministic padding unless --random-padding); prints its hex.
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
    /// Peel one layer; prints {"payload", "final", "next_onion"} as one JSON line.
    Peel {
        /// Our node private key (32 bytes hex); or use --private-file / --private-env.
        #[arg(long, value_name = "HEX", conflicts_with_all = ["hex", "file", "env"])]
        node_key: Option<String>,
        #[command(flatten)]
        key_source: SecretSource,
        /// Associated data the onion commits to.
        #[arg(long, value_name = "HEX", default_value = "")]
        associated_data: String,
        /// Path key of a blinded route (from update_add_htlc or the onion
        /// message): peel with the blinded private key.
        #[arg(long, value_name = "HEX")]
        path_key: Option<String>,
        /// The onion (1366 or 32834 bytes, hex).
        onion: String,
    },
    /// Failure packets.
    #[command(subcommand)]
    Error(ErrorCmd),
}

#[derive(Debug, clap::Subcommand)]
enum ErrorCmd {
    /// At the failing hop: create the failure packet; prints its hex.
    Create {
        /// The failing hop's node private key (or --private-file / --private-env)
        #[arg(long, value_name = "HEX", conflicts_with_all = ["hex", "file", "env"])]
        node_key: Option<String>,
        #[command(flatten)]
        key_source: SecretSource,
        /// The ephemeral public key of the onion this hop received.
        #[arg(long, value_name = "HEX")]
        ephemeral_key: String,
        /// The failure message (failure code and data), hex.
        #[arg(long, value_name = "HEX")]
        message: String,
    },
    /// At an intermediate hop: add this hop's layer; prints the packet hex.
    Wrap {
        /// This hop's node private key (or --private-file / --private-env)
        #[arg(long, value_name = "HEX", conflicts_with_all = ["hex", "file", "env"])]
        node_key: Option<String>,
        #[command(flatten)]
        key_source: SecretSource,
        /// The ephemeral public key of the onion this hop received.
        #[arg(long, value_name = "HEX")]
        ephemeral_key: String,
        /// The failure packet, hex.
        packet: String,
    },
    /// At the origin: attribute the failure; prints {"hop", "message"}.
    Unwrap {
        /// The session key the onion was built with.
        #[command(flatten)]
        session_key: SessionKeySource,
        /// Node public keys of the route, in order (repeat).
        #[arg(long = "hop-pubkey", value_name = "HEX", required = true)]
        hops: Vec<String>,
        /// The failure packet, hex.
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
        private_key(&self.text("session key")?, "session key")
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

/// The node key from --node-key or the --private-file / --private-env source.
fn node_key(hex: Option<&str>, src: &SecretSource) -> Result<PrivateKey> {
    if let Some(h) = hex {
        return private_key(h, "--node-key");
    }
    if src.is_absent() {
        bail!("a node key is required: give --node-key, --private-file or --private-env");
    }
    let b = src.load::<32>("node key")?;
    PrivateKey::from_bytes(&b).map_err(|_| anyhow!("node key: not a valid secp256k1 private key"))
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

/// What `onion peel` prints: one JSON object, keys in this order.
#[derive(serde::Serialize)]
struct PeelOutput {
    payload: String,
    #[serde(rename = "final")]
    is_final: bool,
    next_onion: Option<String>,
}

impl PeelOutput {
    fn of(p: &Peeled) -> Self {
        let (is_final, next_onion) = match p {
            Peeled::Forward { next, .. } => (false, Some(hex::encode(next.to_vec()))),
            Peeled::Final { .. } => (true, None),
        };
        Self {
            payload: hex::encode(p.payload()),
            is_final,
            next_onion,
        }
    }
}

/// Runs the subcommand.
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
            println!("{}", hex::encode(onion));
        }
        Cmd::Peel {
            node_key: nk,
            key_source,
            associated_data,
            path_key,
            onion,
        } => {
            let node = node_key(nk.as_deref(), &key_source)?;
            let ad = hex_arg(&associated_data, "--associated-data")?;
            let onion = Onion::parse_message(&hex_arg(&onion, "onion")?).context("bad onion")?;
            let unblinded = match path_key {
                Some(pk) => Some(blinding::unblind(&node, &public_key(&pk, "--path-key")?)?),
                None => None,
            };
            let key = unblinded
                .as_ref()
                .map(|u| u.blinded_privkey())
                .unwrap_or(&node);
            let peeled = onion.peel(key, &ad).context("cannot peel the onion")?;
            println!("{}", serde_json::to_string(&PeelOutput::of(&peeled))?);
        }
        Cmd::Error(e) => run_error(e)?,
    }
    Ok(())
}

fn run_error(e: ErrorCmd) -> Result<()> {
    match e {
        ErrorCmd::Create {
            node_key: nk,
            key_source,
            ephemeral_key,
            message,
        } => {
            let node = node_key(nk.as_deref(), &key_source)?;
            let ss = node.ecdh_sha256(&public_key(&ephemeral_key, "--ephemeral-key")?);
            let msg = hex_arg(&message, "--message")?;
            let p =
                failure::create_to_vec(&ss, &msg).context("cannot create the failure packet")?;
            println!("{}", hex::encode(p));
        }
        ErrorCmd::Wrap {
            node_key: nk,
            key_source,
            ephemeral_key,
            packet,
        } => {
            let node = node_key(nk.as_deref(), &key_source)?;
            let ss = node.ecdh_sha256(&public_key(&ephemeral_key, "--ephemeral-key")?);
            let mut p = hex_arg(&packet, "packet")?;
            failure::wrap_in_place(&ss, &mut p);
            println!("{}", hex::encode(p));
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
                .map(|(i, h)| public_key(h, &format!("--hop-pubkey #{}", i + 1)))
                .collect::<Result<Vec<_>>>()?;
            let (_, secrets) = keys::session_secrets(&session, pubs.into_iter())?;
            let f = failure::unwrap(&secrets, &hex_arg(&packet, "packet")?)
                .context("cannot attribute the failure")?;
            println!(
                "{}",
                serde_json::json!({"hop": f.hop, "message": hex::encode(f.message)})
            );
        }
    }
    Ok(())
}
