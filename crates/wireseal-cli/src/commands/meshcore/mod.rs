//! `wireseal meshcore ...`: one packet decoded to the library's record,
//! group texts and adverts built as the firmware sends them, and MeshCore
//! identity keys (the firmware's 64-byte Ed25519 keys).

pub mod decode;
mod render;

use crate::util::{output, parse_u32, KeySource};
use anyhow::{Context, Result};
use serde_json::Value;
use std::path::PathBuf;
use wireseal::meshcore::{
    encode_advert, AdvertData, AdvertOut, AdvertPayload, ChannelKey, LocalIdentity, NodeType,
    Packet,
};
use zeroize::Zeroizing;

/// MeshCore subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Cmd {
    /// Decode one packet (hex) with the keys given: prints the library's record of it.
    Decode(decode::Args),
    /// Build the GRP_TXT packet a node floods for a text on a channel: prints its hex.
    EncryptGroup(GroupArgs),
    /// Build the signed ADVERT packet a chat node floods for itself: prints its hex.
    Advert(AdvertArgs),
    /// Write a new identity key (the firmware's 64-byte key, 128 hex digits) to a file; prints the public key.
    Keygen(KeygenArgs),
    /// Print the public key of an identity key (64 hex digits: a seed; 128: the firmware's key).
    Pubkey(PubkeyArgs),
}

/// The channel a group text goes to: exactly one of the three.
#[derive(Debug, clap::Args)]
#[group(required = true, multiple = false)]
pub struct ChannelChoice {
    /// The channel's key as the apps share it (base64 of 16 or 32 bytes).
    #[arg(long, value_name = "BASE64")]
    channel_key: Option<String>,
    /// A hashtag channel by name (`#test` or `test`; the key is SHA-256("#NAME")[..16], case kept).
    #[arg(long, value_name = "NAME")]
    hashtag: Option<String>,
    /// The public channel (key izOH6cXN6mrJ5e26oRXNcg==).
    #[arg(long)]
    public_channel: bool,
}

impl ChannelChoice {
    fn key(&self) -> Result<ChannelKey> {
        if let Some(k) = &self.channel_key {
            return ChannelKey::from_base64(k).context("--channel-key");
        }
        if let Some(name) = &self.hashtag {
            return ChannelKey::hashtag(name).context("--hashtag");
        }
        Ok(ChannelKey::public())
    }
}

/// Arguments of `encrypt-group`.
#[derive(Debug, clap::Args)]
pub struct GroupArgs {
    #[command(flatten)]
    channel: ChannelChoice,
    /// The sender's clock, seconds since 1970 (decimal or 0x-hex).
    #[arg(long, value_parser = parse_u32)]
    timestamp: u32,
    /// The text as nodes send it, "<sender name>: <message>" (at most 160 bytes).
    #[arg(long)]
    text: String,
}

/// Arguments of `advert`.
#[derive(Debug, clap::Args)]
pub struct AdvertArgs {
    /// Our identity key (hex: 64 digits = a seed, 128 = the firmware's 64-byte key).
    #[command(flatten)]
    key: KeySource,
    /// The node's name (cut at a whole UTF-8 character to 31 bytes, 23 with a location).
    #[arg(long)]
    name: String,
    /// The node's clock, seconds since 1970 (decimal or 0x-hex).
    #[arg(long, value_parser = parse_u32)]
    timestamp: u32,
    /// Latitude in degrees (needs --lon); sent as whole microdegrees, truncated toward zero.
    #[arg(
        long,
        value_name = "DEG",
        requires = "lon",
        allow_negative_numbers = true
    )]
    lat: Option<f64>,
    /// Longitude in degrees (needs --lat).
    #[arg(
        long,
        value_name = "DEG",
        requires = "lat",
        allow_negative_numbers = true
    )]
    lon: Option<f64>,
}

/// Arguments of `keygen`.
#[derive(Debug, clap::Args)]
pub struct KeygenArgs {
    /// Write the key to FILE (one line of 128 hex digits, mode 0600; --key-file reads it).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Replace FILE if it is a regular file (never a device, FIFO or link).
    #[arg(long)]
    force: bool,
}

/// Arguments of `pubkey`.
#[derive(Debug, clap::Args)]
pub struct PubkeyArgs {
    /// The identity key (hex: 64 digits = a seed, 128 = the firmware's 64-byte key).
    #[command(flatten)]
    key: KeySource,
}

/// Runs a MeshCore subcommand.
pub fn run(cmd: Cmd) -> Result<()> {
    match cmd {
        Cmd::Decode(a) => decode::run(a),
        Cmd::EncryptGroup(a) => encrypt_group(&a),
        Cmd::Advert(a) => advert(&a),
        Cmd::Keygen(a) => keygen(&a),
        Cmd::Pubkey(a) => {
            let id = identity(&a.key)?;
            print_public(&id, &[]);
            Ok(())
        }
    }
}

/// Our identity from whichever key option was given; errors name the
/// option, never the key.
pub(crate) fn identity(key: &KeySource) -> Result<LocalIdentity> {
    let text = key.text()?;
    LocalIdentity::from_hex(&text).context(key.given_flag())
}

fn encrypt_group(a: &GroupArgs) -> Result<()> {
    let key = a.channel.key()?;
    let mut packet = [0u8; wireseal::meshcore::MAX_TRANS_UNIT];
    let n = key
        .encode_group_text(a.timestamp, &a.text, &mut packet)
        .context("--text")?;
    output::fields(&[("packet", Value::String(hex::encode(&packet[..n])))]);
    Ok(())
}

fn advert(a: &AdvertArgs) -> Result<()> {
    let id = identity(&a.key)?;
    let advert = AdvertOut {
        node_type: NodeType::Chat,
        location: a.lat.zip(a.lon),
        name: &a.name,
    };
    let mut packet = [0u8; wireseal::meshcore::MAX_TRANS_UNIT];
    let n = encode_advert(&id, a.timestamp, &advert, &mut packet).context("advert")?;
    let sent = sent_name(&packet[..n]).unwrap_or_default();
    if a.name.is_empty() {
        eprintln!("wireseal: note: MeshCore nodes ignore an advert without a name");
    } else if sent != a.name {
        eprintln!(
            "wireseal: note: the name is {} bytes; the advert carries its first {} (cut at a \
             whole character to fit 32 bytes of app data, as the firmware does)",
            a.name.len(),
            sent.len()
        );
    }
    output::fields(&[("packet", Value::String(hex::encode(&packet[..n])))]);
    Ok(())
}

/// The name an advert carries, read back as a receiver reads it.
fn sent_name(packet: &[u8]) -> Option<&str> {
    let p = Packet::parse(packet).ok()?;
    let ad = AdvertPayload::of(&p).ok()?;
    AdvertData::parse(ad.app_data)?.name_str()
}

fn keygen(a: &KeygenArgs) -> Result<()> {
    let id = LocalIdentity::generate();
    let key = Zeroizing::new(hex::encode(id.private_key().expose()));
    let line = Zeroizing::new(format!("{}\n", key.as_str()));
    crate::util::secret::write_secret_file(&a.out, &line, a.force, || {
        print_public(&id, &[("out", Value::String(a.out.display().to_string()))]);
    })?;
    Ok(())
}

/// Prints `kind` (`meshcore`), `public_key` and `more` (human text: the
/// public key only).
fn print_public(id: &LocalIdentity, more: &[(&str, Value)]) {
    let mut fields = vec![
        ("kind", Value::String("meshcore".into())),
        (
            "public_key",
            Value::String(hex::encode(id.public().as_bytes())),
        ),
    ];
    fields.extend(more.iter().cloned());
    output::fields_shown(&fields, &["public_key"]);
}
