//! `wireseal peat`: peat-btle mesh-wide frames, genesis provisioning, and the
//! encryption policy.

use crate::util::{hex_array, output, parse_u32, parse_u64, secret_source, Formats, KeySource};
use anyhow::Result;
use clap::{Subcommand, ValueEnum};
use serde_json::{json, Value};
use wireseal::keys::StaticSecret;
use wireseal::peat::policy::{self, Conditions, DataType, Level, Link, Policy, Protection, Rule};
use wireseal::peat::{Genesis, KeyExchange, MeshKey, MeshSealer, PeerSessions};
use zeroize::Zeroizing;

/// `wireseal peat ...`.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Seal a document into a mesh-wide frame (0xAE); prints the frame.
    Seal {
        /// The mesh id (the HKDF salt), e.g. CBE6FC55; letters are upper-cased.
        #[arg(long, value_parser = parse_mesh_id)]
        mesh_id: String,
        #[command(flatten)]
        secret: MeshSecret,
        /// A fixed 12-byte nonce as hex (for reproducing vectors only; never
        /// reuse a nonce). Default: fresh from the OS CSPRNG.
        #[arg(long, value_name = "HEX")]
        nonce: Option<String>,
        /// The plaintext document: hex, or `-` for stdin.
        plaintext: String,
        #[command(flatten)]
        formats: Formats,
    },
    /// Open a mesh-wide frame; prints the plaintext.
    Open {
        /// The mesh id; letters are upper-cased.
        #[arg(long, value_parser = parse_mesh_id)]
        mesh_id: String,
        #[command(flatten)]
        secret: MeshSecret,
        /// The frame: hex, or `-` for stdin.
        frame: String,
        #[command(flatten)]
        formats: Formats,
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
        let sk = self.key.load::<32>()?;
        let id = StaticSecret::from_bytes(&sk)
            .map_err(|_| anyhow::anyhow!("--key: not a valid X25519 private key"))?;
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

/// A mesh id: 1 to 64 ASCII letters, digits, `-` or `_`, letters upper-cased
/// (peat-btle's ids are upper case; genesis makes 8 hex digits) (clap value
/// parser).
fn parse_mesh_id(s: &str) -> std::result::Result<String, String> {
    let ok = (1..=64).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !ok {
        return Err(format!(
            "{s:?} is not a mesh id: 1 to 64 letters, digits, '-' or '_' (genesis prints \
             8 hex digits such as CBE6FC55)"
        ));
    }
    Ok(s.to_ascii_uppercase())
}

/// Runs a `peat` subcommand.
///
/// # Errors
///
/// Bad input, a frame that does not authenticate, or a refused session.
pub fn run(cmd: Cmd) -> Result<()> {
    match cmd {
        Cmd::Seal {
            mesh_id,
            secret,
            nonce,
            plaintext,
            formats,
        } => {
            let secret = secret.load::<32>()?;
            let pt = formats.read(&plaintext, "PLAINTEXT")?;
            let frame = match nonce {
                Some(n) => {
                    let n = hex_array::<12>(&n, "--nonce")?;
                    MeshKey::derive(&mesh_id, &secret).seal_with_nonce_to_vec(&n, &pt)
                }
                None => MeshSealer::new(&mesh_id, &secret).seal_to_vec(&pt),
            };
            output::bytes("frame", &frame, formats.out_format)?;
        }
        Cmd::Open {
            mesh_id,
            secret,
            frame,
            formats,
        } => {
            let secret = secret.load::<32>()?;
            let f = formats.read(&frame, "FRAME")?;
            let pt = MeshKey::derive(&mesh_id, &secret)
                .open_to_vec(&f)
                .map_err(|e| anyhow::anyhow!("cannot open frame: {e}"))?;
            output::bytes("plaintext", &pt, formats.out_format)?;
        }
        Cmd::Genesis { name, seed } => {
            let seed = seed.load::<32>()?;
            let g = Genesis::derive(&name, &seed);
            let s = Zeroizing::new(hex::encode(g.secret().expose()));
            output::fields(&[
                ("mesh_id", g.mesh_id().into()),
                ("secret", s.as_str().into()),
            ]);
        }
        Cmd::Policy(a) => explain(a)?,
        Cmd::Keyx { node, key } => {
            let sk = key.load::<32>()?;
            let id = StaticSecret::from_bytes(&sk)
                .map_err(|_| anyhow::anyhow!("--key: not a valid X25519 private key"))?;
            let frame = PeerSessions::new(node, id).key_exchange_frame();
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
                .map_err(|e| anyhow::anyhow!("cannot seal: {e}"))?;
            let f = s
                .seal_to_vec(0, peer.peer_node, &pt)
                .map_err(|e| anyhow::anyhow!("cannot seal: {e}"))?;
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
                .map_err(|e| anyhow::anyhow!("cannot open frame: {e}"))?;
            output::bytes("plaintext", &m.plaintext, formats.out_format)?;
        }
    }
    Ok(())
}

/// A protection as the policy output names it.
fn protection_name(x: Protection) -> &'static str {
    match x {
        Protection::Plain => "plain",
        Protection::MeshWide => "mesh-wide",
        Protection::PeerE2ee => "peer-e2ee",
    }
}

/// A data type as `--data` accepts it.
fn data_name(d: DataType) -> String {
    match d {
        DataType::Counter => "counter".into(),
        DataType::Heartbeat => "heartbeat".into(),
        DataType::Location => "location".into(),
        DataType::Chat => "chat".into(),
        DataType::Emergency => "emergency".into(),
        DataType::SensitiveChat => "sensitive-chat".into(),
        DataType::App(n) => format!("app:{n}"),
    }
}

/// The value name clap shows for a `ValueEnum`.
fn value_name(v: &impl ValueEnum) -> String {
    v.to_possible_value()
        .map(|p| p.get_name().to_owned())
        .unwrap_or_default()
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
    let decided_by = match d.decided_by {
        Rule::Base => "level",
        Rule::Link => "link",
        Rule::Adaptive => "adaptive",
        Rule::AlwaysEncrypt => "always-encrypt",
    };
    let always: Vec<String> = p.always_encrypt.iter().map(|t| data_name(*t)).collect();
    if output::json() {
        let adaptive = p.adaptive.as_ref().map(|r| {
            json!({"battery_below_percent": r.battery_below_percent, "rate_above_hz": r.rate_above_hz})
        });
        output::fields(&[
            ("protection", protection_name(d.protection).into()),
            ("decided_by", decided_by.into()),
            ("level", value_name(&a.level).into()),
            ("data", data_name(a.data).into()),
            ("link", value_name(&a.link).into()),
            ("base", protection_name(d.base).into()),
            ("after_link", protection_name(d.after_link).into()),
            ("after_adaptive", protection_name(d.after_adaptive).into()),
            ("adaptive", adaptive.unwrap_or(Value::Null)),
            ("always_encrypt", always.into()),
        ]);
        return Ok(());
    }
    let name = protection_name;
    println!("protection: {}", name(d.protection));
    println!("decided by: {decided_by}");
    println!(
        "  1. level {}, data {} -> {}",
        value_name(&a.level),
        data_name(a.data),
        name(d.base)
    );
    println!(
        "  2. link {} -> {}",
        value_name(&a.link),
        name(d.after_link)
    );
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
        "  4. always-encrypt {} -> {}",
        if always.is_empty() {
            "none".to_owned()
        } else {
            always.join(",")
        },
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
