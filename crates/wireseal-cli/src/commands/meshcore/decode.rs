//! `wireseal meshcore decode`: one packet, parsed with every check the
//! firmware makes and opened with the keys given, printed as the library's
//! record (`wireseal::meshcore::Decoded`, its `serde` shape, through
//! `wireseal_io::record`: the bytes Python's `Decoder.decode` reads).

use crate::util::input::{data, InFormat};
use crate::util::{hex_array, output, KeySource};
use anyhow::{Context, Result};
use wireseal::meshcore::{ChannelKey, Decoder, PublicIdentity};

/// What `--help` says below the flags: the keys, the exit status.
const AFTER_HELP: &str = "\
Only the keys given are used: no channel is implied, not even the public one
(--public-channel adds it). Channels are numbered from 0, as the record's
`channel` reports them: each --channel-key in order, then each --hashtag, then
--public-channel. A direct message (txt_msg, req, response, path) opens only
with our key (--key-file) and its sender's public key (--peer); an anon_req
carries its sender's key and needs only ours.

A well-formed packet exits 0 even when nothing decrypts (`decrypted: no`). A
packet MeshCore drops (version, reserved hash size, path over 64 bytes or past
the end, payload over 184 bytes or under its type's minimum, empty) exits 1
with the library's reason and message (--json: {\"error\", \"kind\",
\"reason\"}) and prints nothing on stdout.";

/// Arguments of `wireseal meshcore decode`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// A channel key as the apps share it (base64 of 16 or 32 bytes). Repeatable.
    #[arg(long, value_name = "BASE64")]
    channel_key: Vec<String>,
    /// A hashtag channel by name (`#test` or `test`, case kept). Repeatable.
    #[arg(long, value_name = "NAME")]
    hashtag: Vec<String>,
    /// Add the public channel (key izOH6cXN6mrJ5e26oRXNcg==), after the channels above.
    #[arg(long)]
    public_channel: bool,
    /// Our identity key (hex: 64 digits = a seed, 128 = the firmware's 64-byte key), to open direct messages to us.
    #[command(flatten)]
    key: KeySource,
    /// A peer's Ed25519 public key (64 hex digits) whose direct messages to us are opened. Repeatable.
    #[arg(long, value_name = "PUBKEY_HEX")]
    peer: Vec<String>,
    /// The packet: hex (any whitespace, either case), or `-` for stdin.
    #[arg(value_name = "HEX|-")]
    packet: String,
}

/// Decodes the packet and prints its record.
///
/// # Errors
///
/// A key that cannot be read, input that is not hex, or a packet the
/// firmware drops (the library's error, with its reason).
pub fn run(a: Args) -> Result<()> {
    let mut decoder = decoder(&a)?;
    let raw = data(&a.packet, "packet", InFormat::Hex)?;
    let decoded = decoder.decode(0, &raw).map_err(|e| {
        anyhow::Error::new(e).context(format!("MeshCore drops this packet ({})", e.reason()))
    })?;
    let json = wireseal_io::record::meshcore_to_json(&decoded);
    if output::json() {
        crate::outln!("{json}");
    } else {
        super::render::human(&json);
    }
    Ok(())
}

/// A decoder holding the keys given, channels in the documented order.
fn decoder(a: &Args) -> Result<Decoder> {
    let mut d = Decoder::new();
    for k in &a.channel_key {
        d.add_channel(ChannelKey::from_base64(k).context("--channel-key")?);
    }
    for name in &a.hashtag {
        d.add_channel(ChannelKey::hashtag(name).context("--hashtag")?);
    }
    if a.public_channel {
        d.add_channel(ChannelKey::public());
    }
    if !a.key.is_absent() {
        d.add_identity(super::identity(&a.key)?);
    }
    for p in &a.peer {
        let bytes = hex_array::<32>(p, "--peer")?;
        d.add_peer(PublicIdentity::from_bytes(&bytes).context("--peer")?);
    }
    Ok(d)
}
