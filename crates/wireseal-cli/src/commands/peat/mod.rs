//! `wireseal peat`: peat-btle mesh-wide frames, genesis provisioning,
//! per-peer frames, and the encryption policy (`policy.rs`). Mesh ids, names
//! and their rules come from `wireseal::peat`; this module parses and prints.

mod policy;

use crate::util::{hex_array, output, parse_u32, parse_u64, secret_source, Formats, KeySource};
use anyhow::{Context, Result};
use clap::Subcommand;
use serde_json::Value;
use std::io::IsTerminal;
use std::path::PathBuf;
use wireseal::keys::StaticSecret;
use wireseal::peat::{Genesis, KeyExchange, MeshId, MeshKey, MeshSealer, PeerSessions};
use zeroize::Zeroizing;

/// `wireseal peat ...`.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Seal a document into a mesh-wide frame (0xAE, fresh random nonce);
    /// prints the frame.
    Seal {
        /// The mesh id (the HKDF salt), e.g. CBE6FC55; letters are upper-cased.
        #[arg(long, value_name = "ID")]
        mesh_id: String,
        #[command(flatten)]
        secret: MeshSecret,
        /// The plaintext document: hex, or `-` for stdin.
        plaintext: String,
        #[command(flatten)]
        formats: Formats,
    },
    /// Open a mesh-wide frame; prints the plaintext.
    Open {
        /// The mesh id; letters are upper-cased.
        #[arg(long, value_name = "ID")]
        mesh_id: String,
        #[command(flatten)]
        secret: MeshSecret,
        /// The frame: hex, or `-` for stdin.
        frame: String,
        #[command(flatten)]
        formats: Formats,
    },
    /// Create a mesh: its id and secret from its name and a 32-byte seed
    /// (fresh from the OS CSPRNG unless given). With `--out`, writes the
    /// mesh key to a file and prints only the mesh id.
    Genesis {
        /// The mesh name (1 to 65535 bytes).
        #[arg(long)]
        name: String,
        #[command(flatten)]
        seed: GenesisSeed,
        /// Write the mesh key (mesh id and secret, mode 0600) to FILE, which
        /// `--secret-file` reads, and print only the mesh id.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Replace FILE if it is a regular file (never a device, FIFO or link).
        #[arg(long, requires = "out")]
        force: bool,
    },
    /// Explain the protection the policy chooses for a message.
    Policy(policy::PolicyArgs),
    /// Print our key-exchange frame (0xB0) for per-peer E2EE.
    Keyx {
        /// Our node id (decimal or 0x hex).
        #[arg(long, value_parser = parse_u32)]
        node: u32,
        /// Our X25519 private key.
        #[command(flatten)]
        key: KeySource,
    },
    /// Seal one per-peer E2EE frame (0xAF) for a peer whose key exchange we
    /// received (a fresh session, random nonce).
    PeerSeal {
        #[command(flatten)]
        peer: PeerArgs,
        /// The frame's counter, decimal or 0x-hex (advisory: the tag does
        /// not cover it, and receivers detect replays by nonce).
        #[arg(long, default_value_t = 0, value_parser = parse_u64)]
        counter: u64,
        /// The plaintext: hex, or `-` for stdin.
        plaintext: String,
        #[command(flatten)]
        formats: Formats,
    },
    /// Open a per-peer E2EE frame (0xAF) from a peer; prints the plaintext.
    PeerOpen {
        #[command(flatten)]
        peer: PeerArgs,
        /// The frame: hex, or `-` for stdin.
        frame: String,
        #[command(flatten)]
        formats: Formats,
    },
}

secret_source! {
    /// The 32-byte mesh secret (hex): on the command line, in a file or in an
    /// environment variable.
    pub struct MeshSecret {
        flags: ["secret", "secret-file", "secret-env"],
        value_name: "HEX",
        help: [
            "The 32-byte mesh secret as hex (visible in the process list; prefer --secret-file or --secret-env)",
            "Read the mesh secret (hex, or the `secret:` line of a `peat genesis --out` file) from this file",
            "Read the mesh secret (hex) from this environment variable",
        ],
    }
}

secret_source! {
    /// The 32-byte genesis seed (hex): on the command line, in a file or in an
    /// environment variable.
    pub struct GenesisSeed {
        flags: ["seed", "seed-file", "seed-env"],
        value_name: "HEX",
        help: [
            "The 32-byte genesis seed as hex (visible in the process list; prefer --seed-file or --seed-env). Default: a fresh seed from the OS CSPRNG, not kept",
            "Read the genesis seed (hex) from this file",
            "Read the genesis seed (hex) from this environment variable",
        ],
    }
}

/// Our identity and the peer's, for the stateless per-peer commands.
#[derive(Debug, clap::Args)]
pub struct PeerArgs {
    /// Our node id (decimal or 0x hex).
    #[arg(long, value_parser = parse_u32)]
    node: u32,
    /// Our X25519 private key.
    #[command(flatten)]
    key: KeySource,
    /// The peer's node id (decimal or 0x hex).
    #[arg(long = "peer", value_parser = parse_u32)]
    peer_node: u32,
    /// The peer's X25519 public key as hex.
    #[arg(long, value_name = "HEX")]
    peer_key: String,
}

impl PeerArgs {
    /// Our sessions with one established session to the peer.
    fn session(&self) -> Result<PeerSessions> {
        let id = x25519_key(&self.key)?;
        let mut s = PeerSessions::new(self.node, id);
        let kx = KeyExchange {
            sender: self.peer_node,
            ephemeral: false,
            public_key: hex_array::<32>(&self.peer_key, "--peer-key")?,
        };
        s.handle_key_exchange(0, &kx.encode())
            .context("cannot set up the session")?;
        Ok(s)
    }
}

/// Our X25519 private key; errors name the option it was given with.
fn x25519_key(key: &KeySource) -> Result<StaticSecret> {
    let sk = key.load::<32>()?;
    StaticSecret::from_bytes(&sk)
        .map_err(|_| anyhow::anyhow!("{}: not a valid X25519 private key", key.given_flag()))
}

/// A mesh id by the library's rule (any case in, upper case kept).
fn mesh_id(s: &str) -> Result<MeshId> {
    s.parse().context("--mesh-id")
}

/// The text of a mesh-key file: what `--secret-file` reads (the `secret:`
/// line) and the mesh id it belongs to.
fn mesh_key_file(g: &Genesis) -> Zeroizing<String> {
    Zeroizing::new(format!(
        "# wireseal peat mesh key: every node of mesh {id} needs it; keep it secret.\n\
         mesh_id: {id}\n\
         secret: {secret}\n",
        id = g.mesh_id(),
        secret = Zeroizing::new(hex::encode(g.secret().expose())).as_str(),
    ))
}

/// Runs a `peat` subcommand.
///
/// # Errors
///
/// Bad input, a frame that does not authenticate, or a refused session.
pub fn run(cmd: Cmd) -> Result<()> {
    match cmd {
        Cmd::Seal {
            mesh_id: id,
            secret,
            plaintext,
            formats,
        } => {
            let id = mesh_id(&id)?;
            let secret = secret.load::<32>()?;
            let pt = formats.read(&plaintext, "PLAINTEXT")?;
            let frame = MeshSealer::new(&id, &secret).seal_to_vec(&pt);
            output::bytes("frame", &frame, formats.out_format)?;
        }
        Cmd::Open {
            mesh_id: id,
            secret,
            frame,
            formats,
        } => {
            let id = mesh_id(&id)?;
            let secret = secret.load::<32>()?;
            let f = formats.read(&frame, "FRAME")?;
            let pt = MeshKey::derive(&id, &secret)
                .open_to_vec(&f)
                .context("cannot open frame")?;
            output::bytes("plaintext", &pt, formats.out_format)?;
        }
        Cmd::Genesis {
            name,
            seed,
            out,
            force,
        } => genesis(&name, &seed, out, force)?,
        Cmd::Policy(a) => policy::run(a)?,
        Cmd::Keyx { node, key } => {
            let frame = PeerSessions::new(node, x25519_key(&key)?).key_exchange_frame();
            output::fields(&[("frame", hex::encode(frame).into())]);
        }
        Cmd::PeerSeal {
            peer,
            counter,
            plaintext,
            formats,
        } => {
            let pt = formats.read(&plaintext, "PLAINTEXT")?;
            let mut s = peer.session()?;
            s.set_next_counter(peer.peer_node, counter)
                .context("cannot seal")?;
            let f = s
                .seal_to_vec(0, peer.peer_node, &pt)
                .context("cannot seal")?;
            output::bytes("frame", &f, formats.out_format)?;
        }
        Cmd::PeerOpen {
            peer,
            frame,
            formats,
        } => {
            let f = formats.read(&frame, "FRAME")?;
            let m = peer
                .session()?
                .open_to_vec(0, &f)
                .context("cannot open frame")?;
            output::bytes("plaintext", &m.plaintext, formats.out_format)?;
        }
    }
    Ok(())
}

/// `peat genesis`: derives (or creates) the mesh; writes the mesh-key file
/// or prints the secret.
fn genesis(name: &str, seed: &GenesisSeed, out: Option<PathBuf>, force: bool) -> Result<()> {
    let g = if seed.is_absent() {
        Genesis::generate(name)
    } else {
        Genesis::derive(name, &*seed.load::<32>()?)
    }
    .context("--name")?;
    let id = Value::String(g.mesh_id().to_string());
    match out {
        Some(path) => {
            crate::util::secret::write_secret_file(&path, &mesh_key_file(&g), force, || {
                output::fields_shown(
                    &[
                        ("mesh_id", id),
                        ("out", Value::String(path.display().to_string())),
                    ],
                    &["mesh_id"],
                );
            })?;
        }
        None => {
            if !std::io::stdout().is_terminal() {
                eprintln!(
                    "wireseal: note: the mesh secret goes to stdout; `--out FILE` writes it \
                     with mode 0600"
                );
            }
            let s = Zeroizing::new(hex::encode(g.secret().expose()));
            output::fields(&[("mesh_id", id), ("secret", s.as_str().into())]);
        }
    }
    Ok(())
}
