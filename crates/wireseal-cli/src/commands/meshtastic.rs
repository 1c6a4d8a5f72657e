//! `wireseal meshtastic ...`: PKC direct messages, channel packets, one
//! captured packet, and the MQTT gateway.

use crate::util::{hex_array, output, parse_u32, secret_source, Formats, KeySource};
use anyhow::{Context, Result};
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::{envelope, ChannelKey, PkcEngine, PkcPacket};

/// Meshtastic subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Cmd {
    /// Encrypt a direct message: prints the payload `ciphertext | tag | extraNonce`.
    PkcEncrypt(PkcArgs),
    /// Decrypt a direct message payload: prints the plaintext.
    PkcDecrypt(PkcArgs),
    /// Encrypt a channel packet (AES-CTR): prints the data.
    ChannelEncrypt(ChannelArgs),
    /// Decrypt a channel packet (AES-CTR): prints the data, a Meshtastic `Data` message.
    ChannelDecrypt(ChannelDecryptArgs),
    /// Print a channel's one-byte hash as two hex digits.
    ChannelHash(HashArgs),
    /// Decode one captured ServiceEnvelope or MeshPacket to the gateway's JSON record.
    Decode(Box<super::gateway::decode::Args>),
    /// Decode a live MQTT feed (channels, PKC to our node, XEdDSA) to JSON lines.
    Gateway(Box<super::gateway::Args>),
}

/// Arguments of the PKC commands.
#[derive(Debug, clap::Args)]
pub struct PkcArgs {
    /// Our X25519 private key.
    #[command(flatten)]
    key: KeySource,
    /// The other node's X25519 public key (hex).
    #[arg(long, value_name = "HEX")]
    peer_key: String,
    /// Sender node number (decimal or 0x-hex).
    #[arg(long, value_parser = parse_u32)]
    from: u32,
    /// Packet id (decimal or 0x-hex).
    #[arg(long, value_parser = parse_u32)]
    id: u32,
    /// Plaintext (encrypt) or payload (decrypt): hex, or `-` for stdin.
    data: String,
    #[command(flatten)]
    formats: Formats,
}

secret_source! {
    /// A channel PSK as the apps show it (base64; "AQ==" is the default
    /// key), or hex:HEX, none, default, simpleN: on the command line, in a
    /// file or in an environment variable.
    pub struct PskSource {
        flags: ["psk", "psk-file", "psk-env"],
        value_name: "PSK",
        help: [
            "Channel PSK: base64, hex:HEX, none, default or simpleN (visible in the process list; prefer --psk-file or --psk-env)",
            "Read the channel PSK from this file",
            "Read the channel PSK from this environment variable",
        ],
    }
}

/// Arguments of the channel commands.
#[derive(Debug, clap::Args)]
pub struct ChannelArgs {
    #[command(flatten)]
    psk: PskSource,
    /// Sender node number (decimal or 0x-hex).
    #[arg(long, value_parser = parse_u32)]
    from: u32,
    /// Packet id (decimal or 0x-hex).
    #[arg(long, value_parser = parse_u32)]
    id: u32,
    /// Data: hex, or `-` for stdin.
    data: String,
    #[command(flatten)]
    formats: Formats,
}

/// Arguments of `channel-decrypt`.
#[derive(Debug, clap::Args)]
pub struct ChannelDecryptArgs {
    #[command(flatten)]
    channel: ChannelArgs,
    /// Print the plaintext even when it is not a Meshtastic `Data` message
    /// (by default that is an error: a wrong PSK, --from or --id).
    #[arg(long)]
    raw: bool,
}

/// Arguments of `channel-hash`.
#[derive(Debug, clap::Args)]
pub struct HashArgs {
    /// Channel name (for the default channel, the modem preset name, e.g. LongFast).
    #[arg(long)]
    name: String,
    #[command(flatten)]
    psk: PskSource,
}

/// Runs a Meshtastic subcommand.
pub fn run(cmd: Cmd) -> Result<()> {
    match cmd {
        Cmd::PkcEncrypt(a) => {
            let (mut e, peer) = engine(&a)?;
            let pt = a.formats.read(&a.data, "plaintext")?;
            let packet = PkcPacket {
                peer_public: &peer,
                from: a.from,
                id: a.id,
            };
            let out = e.seal_to_vec(0, packet, &pt).context("encryption failed")?;
            output::bytes("payload", &out, a.formats.out_format)?;
        }
        Cmd::PkcDecrypt(a) => {
            let (mut e, peer) = engine(&a)?;
            let payload = a.formats.read(&a.data, "payload")?;
            let packet = PkcPacket {
                peer_public: &peer,
                from: a.from,
                id: a.id,
            };
            let pt = e
                .open_to_vec(0, packet, &payload)
                .context("decryption failed")?;
            output::bytes("plaintext", &pt, a.formats.out_format)?;
        }
        Cmd::ChannelEncrypt(a) => {
            let key = channel_key(&a.psk)?;
            let data = a.formats.read(&a.data, "data")?;
            let out = key
                .seal_to_vec(a.from, a.id, &data)
                .context("channel packet")?;
            output::bytes("data", &out, a.formats.out_format)?;
        }
        Cmd::ChannelDecrypt(d) => {
            let a = &d.channel;
            let key = channel_key(&a.psk)?;
            let data = a.formats.read(&a.data, "data")?;
            let out = key
                .open_to_vec(a.from, a.id, &data)
                .context("channel packet")?;
            if !d.raw {
                envelope::decode_data(&out).context(
                    "the plaintext is not a Meshtastic Data message: a wrong PSK, --from or \
                     --id? (--raw prints it anyway)",
                )?;
            }
            output::bytes("data", &out, a.formats.out_format)?;
        }
        Cmd::Decode(a) => return super::gateway::decode::run(*a),
        Cmd::Gateway(a) => return super::gateway::run(*a),
        Cmd::ChannelHash(a) => {
            let hash = channel_key(&a.psk)?.hash(&a.name);
            output::fields(&[("hash", format!("{hash:02x}").into())]);
        }
    }
    Ok(())
}

fn engine(a: &PkcArgs) -> Result<(PkcEngine, [u8; 32])> {
    let sk = a.key.load::<32>()?;
    let own = StaticSecret::from_bytes(&sk)
        .map_err(|_| anyhow::anyhow!("{}: not a valid X25519 private key", a.key.given_flag()))?;
    let engine = PkcEngine::new(own).context(a.key.given_flag())?;
    let peer = hex_array::<32>(&a.peer_key, "--peer-key")?;
    Ok((engine, peer))
}

/// The channel key of the PSK text (the library reads it; errors never show
/// the text).
fn channel_key(src: &PskSource) -> Result<ChannelKey> {
    let key: ChannelKey = src.text()?.parse().context(src.given_flag())?;
    if !key.is_encrypted() {
        eprintln!("wireseal: note: this PSK means no encryption; data passes through unchanged");
    }
    if let Some(n) = key.padded_from() {
        eprintln!(
            "wireseal: note: the PSK is {n} bytes; it is zero-padded to {} bytes, as the \
             firmware does",
            key.expanded().len()
        );
    }
    Ok(key)
}
