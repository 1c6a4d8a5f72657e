//! `wireseal peat`: peat-btle mesh-wide frames, genesis provisioning, and the
//! encryption policy.

use crate::util::{hex_arg, hex_array, parse_u32, secret_source, SecretSource};
use anyhow::Result;
use clap::{Subcommand, ValueEnum};
use wireseal::keys::StaticSecret;
use wireseal::peat::policy::{self, Conditions, DataType, Level, Link, Policy, Protection};
use wireseal::peat::{Genesis, KeyExchange, MeshKey, MeshSealer, PeerSessions};
use zeroize::Zeroizing;

/// `wireseal peat ...`.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Seal a document into a mesh-wide frame (0xAE); prints the frame as hex.
    Seal {
        /// The mesh id (the HKDF salt), e.g. CBE6FC55.
        #[arg(long)]
        mesh_id: String,
        #[command(flatten)]
        secret: MeshSecret,
        /// A fixed 12-byte nonce as hex (for reproducing vectors only; never
        /// reuse a nonce). Default: fresh from the OS CSPRNG.
        #[arg(long, value_name = "HEX")]
        nonce: Option<String>,
        /// The plaintext document as hex.
        plaintext: String,
    },
    /// Open a mesh-wide frame; prints the plaintext as hex.
    Open {
        /// The mesh id.
        #[arg(long)]
        mesh_id: String,
        #[command(flatten)]
        secret: MeshSecret,
        /// The frame as hex.
        frame: String,
    },
    /// Derive a mesh's id and secret from its name and 32-byte seed.
    Genesis {
        /// The mesh name.
        #[arg(long)]
        name: String,
        #[command(flatten)]
        seed: GenesisSeed,
    },
    /// Explain the protection the policy chooses for a message.
    Policy(PolicyArgs),
    /// Print our key-exchange frame (0xB0) for per-peer E2EE.
    Keyx {
        /// Our node id (decimal or 0x hex).
        #[arg(long, value_parser = parse_u32)]
        node: u32,
        /// Our X25519 private key.
        #[command(flatten)]
        private: SecretSource,
    },
    /// Seal one per-peer E2EE frame (0xAF) for a peer whose key exchange we
    /// received (a fresh session, random nonce).
    PeerSeal {
        #[command(flatten)]
        peer: PeerArgs,
        /// The frame's counter (advisory: the tag does not cover it, and
        /// receivers detect replays by nonce).
        #[arg(long, default_value_t = 0)]
        counter: u64,
        /// The plaintext as hex.
        plaintext: String,
    },
    /// Open a per-peer E2EE frame (0xAF) from a peer; prints the plaintext as hex.
    PeerOpen {
        #[command(flatten)]
        peer: PeerArgs,
        /// The frame as hex.
        frame: String,
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
            "Read the mesh secret (hex) from this file",
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
            "The 32-byte genesis seed as hex (visible in the process list; prefer --seed-file or --seed-env)",
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
    private: SecretSource,
    /// The peer's node id.
    #[arg(long = "peer", value_parser = parse_u32)]
    peer_node: u32,
    /// The peer's X25519 public key as hex.
    #[arg(long, value_name = "HEX")]
    peer_key: String,
}

impl PeerArgs {
    /// Our sessions with one established session to the peer.
    fn session(&self) -> Result<PeerSessions> {
        let sk = self.private.load::<32>("private key")?;
        let id = StaticSecret::from_bytes(&sk).map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut s = PeerSessions::new(self.node, id);
        let kx = KeyExchange {
            sender: self.peer_node,
            ephemeral: false,
            public_key: hex_array::<32>(&self.peer_key, "--peer-key")?,
        };
        s.handle_key_exchange(0, &kx.encode())
            .map_err(|e| anyhow::anyhow!("cannot set up the session: {e}"))?;
        Ok(s)
    }
}

/// Inputs of `wireseal peat policy`.
#[derive(Debug, clap::Args)]
pub struct PolicyArgs {
    /// The policy level.
    #[arg(long, value_enum, default_value = "selective")]
    level: LevelArg,
    /// The data type (counter, heartbeat, location, chat, emergency,
    /// sensitive-chat, or app:N).
    #[arg(long, default_value = "chat", value_parser = parse_data_type)]
    data: DataType,
    /// The link to the peer.
    #[arg(long, value_enum, default_value = "known-peer")]
    link: LinkArg,
    /// Battery charge, percent.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u8).range(0..=100))]
    battery: u8,
    /// Update rate of this data type, Hz.
    #[arg(long, default_value_t = 1.0, value_parser = parse_rate)]
    rate: f64,
    /// Enable the adaptive rule: plain below this battery percentage.
    #[arg(long, value_name = "PERCENT", value_parser = clap::value_parser!(u8).range(0..=100))]
    adaptive_battery: Option<u8>,
    /// Enable the adaptive rule: plain above this update rate (Hz).
    #[arg(long, value_name = "HZ", value_parser = parse_rate)]
    adaptive_rate: Option<f64>,
    /// Replace the always-encrypt list (repeatable; default: emergency,
    /// sensitive-chat). Use `--always-encrypt none` for an empty list.
    #[arg(long, value_name = "TYPE")]
    always_encrypt: Vec<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LevelArg {
    None,
    MeshWide,
    Selective,
    PeerE2ee,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LinkArg {
    TrustedLocal,
    KnownPeer,
    UntrustedRelay,
}

fn parse_data_type(s: &str) -> std::result::Result<DataType, String> {
    Ok(match s {
        "counter" => DataType::Counter,
        "heartbeat" => DataType::Heartbeat,
        "location" => DataType::Location,
        "chat" => DataType::Chat,
        "emergency" => DataType::Emergency,
        "sensitive-chat" => DataType::SensitiveChat,
        _ => match s.strip_prefix("app:").map(str::parse::<u16>) {
            Some(Ok(n)) => DataType::App(n),
            _ => {
                return Err(format!(
                    "{s:?} is not a data type (counter, heartbeat, location, chat, emergency, sensitive-chat, app:N)"
                ))
            }
        },
    })
}

/// An update rate in Hz: a finite number, at least 0 (clap value parser).
fn parse_rate(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if r.is_finite() && r >= 0.0 => Ok(r),
        _ => Err(format!(
            "{s:?} is not a rate: a finite number of Hz, 0 or more"
        )),
    }
}

/// Runs a `peat` subcommand.
pub fn run(cmd: Cmd) -> Result<()> {
    match cmd {
        Cmd::Seal {
            mesh_id,
            secret,
            nonce,
            plaintext,
        } => {
            let secret = secret.load::<32>("--secret")?;
            let pt = hex_arg(&plaintext, "PLAINTEXT_HEX")?;
            let frame = match nonce {
                Some(n) => {
                    let n = hex_array::<12>(&n, "--nonce")?;
                    MeshKey::derive(&mesh_id, &secret).seal_with_nonce_to_vec(&n, &pt)
                }
                None => MeshSealer::new(&mesh_id, &secret).seal_to_vec(&pt),
            };
            println!("{}", hex::encode(frame));
        }
        Cmd::Open {
            mesh_id,
            secret,
            frame,
        } => {
            let secret = secret.load::<32>("--secret")?;
            let f = hex_arg(&frame, "FRAME_HEX")?;
            let pt = MeshKey::derive(&mesh_id, &secret)
                .open_to_vec(&f)
                .map_err(|e| anyhow::anyhow!("cannot open frame: {e}"))?;
            println!("{}", hex::encode(pt));
        }
        Cmd::Genesis { name, seed } => {
            let seed = seed.load::<32>("--seed")?;
            let g = Genesis::derive(&name, &seed);
            println!("mesh_id: {}", g.mesh_id());
            let s = Zeroizing::new(hex::encode(g.secret().expose()));
            println!("secret:  {}", s.as_str());
        }
        Cmd::Policy(a) => explain(a)?,
        Cmd::Keyx { node, private } => {
            let sk = private.load::<32>("private key")?;
            let id = StaticSecret::from_bytes(&sk).map_err(|e| anyhow::anyhow!("{e}"))?;
            println!(
                "{}",
                hex::encode(PeerSessions::new(node, id).key_exchange_frame())
            );
        }
        Cmd::PeerSeal {
            peer,
            counter,
            plaintext,
        } => {
            let pt = hex_arg(&plaintext, "PLAINTEXT_HEX")?;
            let mut s = peer.session()?;
            s.set_next_counter(peer.peer_node, counter)
                .map_err(|e| anyhow::anyhow!("cannot seal: {e}"))?;
            let f = s
                .seal_to_vec(0, peer.peer_node, &pt)
                .map_err(|e| anyhow::anyhow!("cannot seal: {e}"))?;
            println!("{}", hex::encode(f));
        }
        Cmd::PeerOpen { peer, frame } => {
            let f = hex_arg(&frame, "FRAME_HEX")?;
            let m = peer
                .session()?
                .open_to_vec(0, &f)
                .map_err(|e| anyhow::anyhow!("cannot open frame: {e}"))?;
            println!("{}", hex::encode(m.plaintext));
        }
    }
    Ok(())
}

fn explain(a: PolicyArgs) -> Result<()> {
    let level = match a.level {
        LevelArg::None => Level::None,
        LevelArg::MeshWide => Level::MeshWide,
        LevelArg::Selective => Level::Selective,
        LevelArg::PeerE2ee => Level::PeerE2ee,
    };
    let link = match a.link {
        LinkArg::TrustedLocal => Link::TrustedLocal,
        LinkArg::KnownPeer => Link::KnownPeer,
        LinkArg::UntrustedRelay => Link::UntrustedRelay,
    };
    let mut p = Policy::new(level);
    if a.adaptive_battery.is_some() || a.adaptive_rate.is_some() {
        p = p.with_adaptive(
            a.adaptive_battery.unwrap_or(0),
            a.adaptive_rate.unwrap_or(f64::INFINITY),
        );
    }
    if !a.always_encrypt.is_empty() {
        p.always_encrypt.clear();
        for t in &a.always_encrypt {
            if t != "none" {
                p.always_encrypt
                    .push(parse_data_type(t).map_err(anyhow::Error::msg)?);
            }
        }
    }
    let c = Conditions {
        battery_percent: a.battery,
        update_rate_hz: a.rate,
    };
    let d = policy::decide(&p, a.data, link, c);
    let name = |x: Protection| match x {
        Protection::Plain => "plain",
        Protection::MeshWide => "mesh-wide (0xAE)",
        Protection::PeerE2ee => "per-peer E2EE (0xAF)",
    };
    println!("protection: {}", name(d.protection));
    println!("decided by: {:?}", d.decided_by);
    println!("  1. level {:?}, {:?} -> {}", level, a.data, name(d.base));
    println!("  2. link {:?} -> {}", link, name(d.after_link));
    println!(
        "  3. adaptive ({}) -> {}",
        match &p.adaptive {
            Some(r) => format!(
                "battery {}% < {}% or rate {} Hz > {} Hz",
                a.battery, r.battery_below_percent, a.rate, r.rate_above_hz
            ),
            None => "off".into(),
        },
        name(d.after_adaptive)
    );
    println!(
        "  4. always-encrypt {:?} -> {}",
        p.always_encrypt,
        name(d.protection)
    );
    if d.protection > d.base {
        println!(
            "note: the level sets only the base ({}); the link rule and the always-encrypt \
             floor override it at every level, none included. A node without the keys for \
             {} must not send this message plain.",
            name(d.base),
            name(d.protection)
        );
    }
    Ok(())
}
