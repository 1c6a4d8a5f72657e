//! `wireseal meshtastic decode`: one captured `ServiceEnvelope` (what a
//! gateway publishes on MQTT) or bare `MeshPacket`, decoded with the given
//! channels and node key, printed as the gateway's JSON record.

use super::DecoderArgs;
use crate::util::input::{data, InFormat};
use anyhow::{bail, Context, Result};
use wireseal::meshtastic::envelope::{self, ServiceEnvelope};
use wireseal::meshtastic::record::PacketRecord;

/// What the capture holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Capture {
    /// A `ServiceEnvelope` if it parses as one, else a `MeshPacket`.
    Auto,
    /// A `ServiceEnvelope` (an MQTT message's payload).
    Envelope,
    /// A bare `MeshPacket`.
    Packet,
}

/// Arguments of `wireseal meshtastic decode`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The capture: hex, or `-` for stdin (with --in-format raw: the bytes).
    capture: String,
    /// How the capture is written: hex (default) or raw bytes.
    #[arg(long, value_enum, default_value = "hex")]
    in_format: InFormat,
    /// What the capture holds.
    #[arg(long = "as", value_enum, default_value = "auto")]
    kind: Capture,
    /// For a bare MeshPacket: the channel name to try first (PKI for a direct message).
    #[arg(long, value_name = "NAME", default_value = "")]
    channel_id: String,
    /// Channels, our node and key, signature policy.
    #[command(flatten)]
    decoder: DecoderArgs,
}

/// Decodes and prints the record; fails (after printing it) when the packet
/// could not be decoded.
pub fn run(a: Args) -> Result<()> {
    let bytes = data(&a.capture, "capture", a.in_format)?;
    let env = match a.kind {
        Capture::Envelope => envelope::decode(&bytes).context("capture")?,
        Capture::Packet => packet(&bytes, &a.channel_id)?,
        Capture::Auto => match envelope::decode(&bytes) {
            Ok(env) => env,
            Err(_) => packet(&bytes, &a.channel_id)
                .context("capture: neither a ServiceEnvelope nor a MeshPacket (--as says which)")?,
        },
    };
    let mut text = wireseal_gateway::config::ConfigText::default();
    a.decoder.apply(&mut text);
    let (mut decoder, notes) = wireseal_gateway::setup::decoder(&text.parse()?)?;
    for n in notes {
        eprintln!("wireseal: note: {n}");
    }
    let d = decoder.decode_envelope(0, env).context("capture")?;
    println!(
        "{}",
        wireseal_io::record::to_json(&PacketRecord::new(&decoder, &d))
    );
    if let Some(e) = d.error {
        bail!("the packet was not decoded: {e}");
    }
    if let Some(v) = d.verdict.filter(|v| v.is_drop()) {
        eprintln!(
            "wireseal: note: a node with the {} signature policy drops this packet ({})",
            decoder.signature_policy(),
            v.concern().map_or("", |c| c.as_str())
        );
    }
    Ok(())
}

/// A bare `MeshPacket` in an envelope naming `channel_id`.
fn packet(bytes: &[u8], channel_id: &str) -> Result<ServiceEnvelope> {
    Ok(ServiceEnvelope {
        packet: Some(envelope::decode_packet(bytes).context("capture")?),
        channel_id: channel_id.to_owned(),
        gateway_id: String::new(),
    })
}
