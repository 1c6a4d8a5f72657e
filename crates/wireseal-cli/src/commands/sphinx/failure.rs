//! `wireseal sphinx error create|wrap|unwrap|malformed`: failure packets
//! with BOLT #4 attribution data, and the reply to an onion that does not
//! peel. Every rule (hold-time units, shifts, HMACs, the 32 KiB limit, who
//! adds attribution data, the hop to blame) is `wireseal::sphinx`'s; this
//! file parses, calls and prints.

use super::{node_key, unblind, Origin, Received};
use crate::util::input::{data, InFormat};
use crate::util::{hex_arg, output, parse_u64, KeySource};
use anyhow::{Context, Result};
use serde_json::Value;
use wireseal::keys::PublicKey;
use wireseal::sphinx::attribution::UNKNOWN_HOLD_TIME_MS;
use wireseal::sphinx::malformed::Malformed;
use wireseal::sphinx::{failure, AttributionData};

#[derive(Debug, clap::Subcommand)]
pub(super) enum ErrorCmd {
    /// At the failing hop: create the failure packet; prints `packet` and
    /// `attribution-data` (none from a hop inside a blinded path).
    Create {
        /// The failing hop's node private key.
        #[command(flatten)]
        key: KeySource,
        #[command(flatten)]
        received: Received,
        /// The `path_key` that came with the HTLC (`update_add_htlc`): this
        /// hop is inside a blinded path, peels with its blinded key and adds
        /// no attribution data.
        #[arg(long, value_name = "HEX")]
        path_key: Option<String>,
        /// The failure message (failure code and data), hex.
        #[arg(long, value_name = "HEX")]
        message: String,
        #[command(flatten)]
        hold: Hold,
    },
    /// At an intermediate hop: add this hop's layer to the packet (its
    /// first 32,768 bytes when longer) and to its attribution data; prints
    /// `packet` and `attribution-data` (none from a hop inside a blinded
    /// path).
    Wrap {
        /// This hop's node private key.
        #[command(flatten)]
        key: KeySource,
        #[command(flatten)]
        received: Received,
        /// The `path_key` that came with the HTLC: this hop is inside a
        /// blinded path and neither adds nor passes on attribution data.
        #[arg(long, value_name = "HEX")]
        path_key: Option<String>,
        #[command(flatten)]
        hold: Hold,
        /// The attribution data that came with the packet (920 bytes, hex or
        /// `-`); without it this hop starts a new block.
        #[arg(long, value_name = "HEX", conflicts_with = "no_attribution")]
        attribution_data: Option<String>,
        /// The failure packet: hex, or `-` for stdin.
        packet: String,
    },
    /// At the origin: attribute the failure; prints `hop` (1-based position
    /// on the route, absent when no hop's HMAC verifies), `node-key`,
    /// `message`, `hold-times-ms`, `attribution` (`valid`, `absent`,
    /// `broken`) and `blamed-hop` when the message cannot be trusted or the
    /// attribution breaks.
    Unwrap {
        #[command(flatten)]
        origin: Origin,
        /// The attribution data that came with the packet (hex or `-`).
        #[arg(long, value_name = "HEX")]
        attribution_data: Option<String>,
        /// The failure packet: hex, or `-` for stdin.
        packet: String,
    },
    /// At a hop (forwarding or final) whose onion does not peel: the
    /// `update_fail_malformed_htlc` reply; prints `failure_code`, `failure`
    /// (`invalid_onion_version`, `invalid_onion_hmac`, `invalid_onion_key`),
    /// `sha256_of_onion` and `message` (the failure message the hop before
    /// passes to `error create`), all null when the onion's HMAC verifies.
    Malformed {
        /// This hop's node private key.
        #[command(flatten)]
        key: KeySource,
        /// Associated data the onion commits to.
        #[arg(long, value_name = "HEX", default_value = "")]
        associated_data: String,
        /// The `path_key` that came with the HTLC (peel with the blinded key).
        #[arg(long, value_name = "HEX")]
        path_key: Option<String>,
        /// The onion as received (1366 or 32834 bytes): hex, or `-` for stdin.
        onion: String,
    },
}

/// This hop's hold time, or no attribution data at all.
#[derive(Debug, clap::Args)]
pub(super) struct Hold {
    /// How long this hop held the HTLC, in milliseconds (sent in units of
    /// 100 ms, rounded down).
    #[arg(long, value_name = "MS", default_value_t = UNKNOWN_HOLD_TIME_MS, value_parser = parse_u64)]
    hold_time_ms: u64,
    /// Act as a node without attribution support: no attribution data out
    /// (and none taken in).
    #[arg(long, conflicts_with = "hold_time_ms")]
    no_attribution: bool,
}

pub(super) fn attribution_in(arg: Option<&str>) -> Result<Option<Vec<u8>>> {
    arg.map(|a| data(a, "--attribution-data", InFormat::Hex))
        .transpose()
}

pub(super) fn block(arg: Option<&str>) -> Result<AttributionData> {
    match attribution_in(arg)? {
        Some(b) => AttributionData::from_slice(&b).context("--attribution-data"),
        None => Ok(AttributionData::new()),
    }
}

fn print_packet(packet: &[u8], attribution: Option<&AttributionData>) {
    let mut fields = vec![("packet", hex::encode(packet).into())];
    if let Some(a) = attribution {
        fields.push(("attribution_data", hex::encode(a.as_bytes()).into()));
    }
    output::fields(&fields);
}

pub(super) fn hold_times(ms: &[u64]) -> Value {
    Value::Array(ms.iter().map(|m| (*m).into()).collect())
}

fn key_of(pubs: &[PublicKey], index: Option<usize>) -> Value {
    index
        .and_then(|i| pubs.get(i))
        .map_or(Value::Null, |k| hex::encode(k.serialize()).into())
}

pub(super) fn run_error(e: ErrorCmd) -> Result<()> {
    match e {
        ErrorCmd::Create {
            key,
            received,
            path_key,
            message,
            hold,
        } => {
            let (ss, incoming) = received.hop(&key, path_key.as_deref())?;
            let msg = crate::util::hex_arg(&message, "--message")?;
            if hold.no_attribution {
                let p = failure::create_to_vec(&ss, &msg)
                    .context("cannot create the failure packet")?;
                print_packet(&p, None);
            } else {
                let (p, a) = failure::create_at(&ss, incoming, &msg, hold.hold_time_ms)
                    .context("cannot create the failure packet")?;
                print_packet(&p, a.as_ref());
            }
        }
        ErrorCmd::Wrap {
            key,
            received,
            path_key,
            hold,
            attribution_data,
            packet,
        } => {
            let mut p = data(&packet, "PACKET", InFormat::Hex)?;
            let (ss, incoming) = received.hop(&key, path_key.as_deref())?;
            if hold.no_attribution {
                let sent = failure::wrap_in_place(&ss, &mut p).context("PACKET")?;
                print_packet(sent, None);
            } else {
                let mut a = attribution_data
                    .is_some()
                    .then(|| block(attribution_data.as_deref()))
                    .transpose()?;
                let sent =
                    failure::relay_in_place(&ss, incoming, hold.hold_time_ms, &mut p, &mut a)
                        .context("PACKET")?;
                print_packet(sent, a.as_ref());
            }
        }
        ErrorCmd::Malformed {
            key,
            associated_data,
            path_key,
            onion,
        } => malformed(&key, &associated_data, path_key.as_deref(), &onion)?,
        ErrorCmd::Unwrap {
            origin,
            attribution_data,
            packet,
        } => unwrap(&origin, attribution_data.as_deref(), &packet)?,
    }
    Ok(())
}

/// `sphinx error malformed`: the reply a node sends for an onion it cannot
/// parse, or none.
fn malformed(
    key: &KeySource,
    associated_data: &str,
    path_key: Option<&str>,
    onion: &str,
) -> Result<()> {
    let node = node_key(key)?;
    let ad = hex_arg(associated_data, "--associated-data")?;
    let onion = data(onion, "ONION", InFormat::Hex)?;
    let unblinded = unblind(&node, path_key)?;
    let k = unblinded.as_ref().map_or(&node, |u| u.blinded_privkey());
    let reply = Malformed::reply_for(&onion, k, &ad).context("ONION")?;
    let m = reply.map(|m| (m, m.failure_message()));
    output::fields(&[
        (
            "failure_code",
            m.as_ref()
                .map_or(Value::Null, |(m, _)| m.failure_code.into()),
        ),
        (
            "failure",
            m.as_ref()
                .and_then(|(m, _)| m.reason())
                .map_or(Value::Null, |r| r.name().into()),
        ),
        (
            "sha256_of_onion",
            m.as_ref()
                .map_or(Value::Null, |(m, _)| hex::encode(m.sha256_of_onion).into()),
        ),
        (
            "message",
            m.as_ref()
                .and_then(|(_, msg)| msg.as_ref().ok())
                .map_or(Value::Null, |msg| hex::encode(msg).into()),
        ),
    ]);
    Ok(())
}

/// `sphinx error unwrap`: the origin's view of a failure packet.
fn unwrap(origin: &Origin, attribution_data: Option<&str>, packet: &str) -> Result<()> {
    let (pubs, secrets) = origin.secrets()?;
    let a = attribution_in(attribution_data)?;
    let u = failure::unwrap_attributed(
        &secrets,
        &data(packet, "PACKET", InFormat::Hex)?,
        a.as_deref(),
    )
    .context("cannot attribute the failure")?;
    let mut fields = vec![
        ("hop", u.hop.map_or(Value::Null, Value::from)),
        ("node_key", key_of(&pubs, u.hop_index())),
        (
            "message",
            u.message
                .as_ref()
                .map_or(Value::Null, |m| hex::encode(m).into()),
        ),
        ("hold_times_ms", hold_times(&u.hold_times_ms)),
        ("attribution", u.attribution.to_string().into()),
    ];
    if let Some(b) = u.blamed_hop {
        fields.push(("blamed_hop", b.into()));
    }
    output::fields(&fields);
    Ok(())
}
