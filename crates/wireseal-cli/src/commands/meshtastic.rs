//! `wireseal meshtastic ...`: PKC direct messages and channel packets.

use crate::util::{hex_array, output, parse_u32, secret_source, Formats, KeySource};
use anyhow::{Context, Result};
use base64::Engine as _;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::{ChannelKey, PkcEngine, PkcPacket};

/// Meshtastic subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Cmd {
    /// Encrypt a direct message: prints the payload `ciphertext | tag | extraNonce`.
    PkcEncrypt(PkcArgs),
    /// Decrypt a direct message payload: prints the plaintext.
    PkcDecrypt(PkcArgs),
    /// Encrypt a channel packet (AES-CTR): prints the data.
    ChannelEncrypt(ChannelArgs),
    /// Decrypt a channel packet (AES-CTR): prints the data.
    ChannelDecrypt(ChannelArgs),
    /// Print a channel's one-byte hash as two hex digits.
    ChannelHash(HashArgs),
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
    #[arg(long, value_name = "HEX", alias = "peer-public")]
    peer_key: String,
    /// Sender node number (decimal or 0x-hex).
    #[arg(long, value_parser = parse_u32)]
    from: u32,
    /// Packet id (decimal or 0x-hex).
    #[arg(long, value_parser = parse_u32)]
    id: u32,
    /// extraNonce (4 bytes hex) for encryption; random from the OS when absent.
    #[arg(long, value_name = "HEX")]
    extra_nonce: Option<String>,
    /// Plaintext (encrypt) or payload (decrypt): hex, or `-` for stdin.
    data: String,
    #[command(flatten)]
    formats: Formats,
}

secret_source! {
    /// A channel PSK, base64 (as in the app's channel settings; "AQ==" is the
    /// default key): on the command line, in a file or in an environment variable.
    pub struct PskSource {
        flags: ["psk", "psk-file", "psk-env"],
        value_name: "BASE64",
        help: [
            "Channel PSK, base64 (visible in the process list; prefer --psk-file or --psk-env)",
            "Read the channel PSK (base64) from this file",
            "Read the channel PSK (base64) from this environment variable",
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
            let extra = a
                .extra_nonce
                .as_deref()
                .map(|s| hex_array::<4>(s, "--extra-nonce"))
                .transpose()?;
            let pt = a.formats.read(&a.data, "plaintext")?;
            let packet = PkcPacket {
                peer_public: &peer,
                from: a.from,
                id: a.id,
            };
            let mut out = vec![0u8; wireseal::meshtastic::sealed_len(pt.len())];
            let n = match extra {
                Some(x) => e.seal_with_extra_nonce_into(0, packet, x, &pt, &mut out),
                None => e.seal_into(0, packet, &pt, &mut out),
            }
            .context("encryption failed")?;
            output::bytes("payload", &out[..n], a.formats.out_format)?;
        }
        Cmd::PkcDecrypt(a) => {
            if a.extra_nonce.is_some() {
                anyhow::bail!("--extra-nonce is read from the payload when decrypting; drop it");
            }
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
        Cmd::ChannelEncrypt(a) | Cmd::ChannelDecrypt(a) => {
            let key = channel_key(&a.psk)?;
            let mut data = a.formats.read(&a.data, "data")?;
            if data.len() > wireseal::meshtastic::MAX_PAYLOAD_LEN {
                anyhow::bail!(
                    "data is {} bytes; a channel packet carries at most {}",
                    data.len(),
                    wireseal::meshtastic::MAX_PAYLOAD_LEN
                );
            }
            if !key.is_encrypted() {
                eprintln!(
                    "wireseal: note: this PSK means no encryption; data passes through unchanged"
                );
            }
            key.apply(a.from, a.id, &mut data);
            output::bytes("data", &data, a.formats.out_format)?;
        }
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
    if !own.is_clamped() {
        anyhow::bail!(
            "{} is not a clamped X25519 key (Meshtastic devices only make clamped \
             keys): the firmware would derive a different shared secret from it than \
             X25519 does",
            a.key.given_flag()
        );
    }
    let peer = hex_array::<32>(&a.peer_key, "--peer-key")?;
    Ok((PkcEngine::new(own), peer))
}

fn channel_key(src: &PskSource) -> Result<ChannelKey> {
    let b64 = src.text()?;
    let psk = zeroize::Zeroizing::new(
        base64::engine::general_purpose::STANDARD
            .decode(b64.as_bytes())
            .map_err(|_| {
                anyhow::anyhow!(
                    "{}: not valid base64 (the value is not shown)",
                    src.given_flag()
                )
            })?,
    );
    let key = ChannelKey::from_psk(&psk).map_err(|_| {
        anyhow::anyhow!(
            "{}: a PSK is 0, 1, 16 or 32 bytes, got {}",
            src.given_flag(),
            psk.len()
        )
    })?;
    let n = psk.len();
    if matches!(n, 2..=15 | 17..=31) {
        eprintln!(
            "wireseal: note: the PSK is {n} bytes; it is zero-padded to {} bytes, as the \
             firmware does",
            if n < 16 { 16 } else { 32 }
        );
    }
    Ok(key)
}
