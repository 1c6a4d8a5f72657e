//! `wireseal sphinx error create|wrap|unwrap` and `sphinx fulfill
//! wrap|unwrap`: failure packets and hold times with BOLT #4 attribution
//! data. Every rule (hold-time units, shifts, HMACs, the hop to blame) is
//! `wireseal::sphinx`'s; this file parses, calls and prints.

use super::{Origin, Received};
use crate::util::input::{data, InFormat};
use crate::util::{output, parse_u64, KeySource};
use anyhow::{Context, Result};
use serde_json::Value;
use wireseal::keys::PublicKey;
use wireseal::sphinx::attribution::UNKNOWN_HOLD_TIME_MS;
use wireseal::sphinx::{failure, fulfill, AttributionData};

#[derive(Debug, clap::Subcommand)]
pub(super) enum ErrorCmd {
    /// At the failing hop: create the failure packet; prints `packet` and
    /// `attribution-data`.
    Create {
        /// The failing hop's node private key.
        #[command(flatten)]
        key: KeySource,
        #[command(flatten)]
        received: Received,
        /// The failure message (failure code and data), hex.
        #[arg(long, value_name = "HEX")]
        message: String,
        #[command(flatten)]
        hold: Hold,
    },
    /// At an intermediate hop: add this hop's layer to the packet and to its
    /// attribution data; prints `packet` and `attribution-data`.
    Wrap {
        /// This hop's node private key.
        #[command(flatten)]
        key: KeySource,
        #[command(flatten)]
        received: Received,
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
}

#[derive(Debug, clap::Subcommand)]
pub(super) enum FulfillCmd {
    /// At the recipient or an intermediate hop: add this hop's hold time and
    /// HMACs; prints `attribution-data`.
    Wrap {
        /// This hop's node private key.
        #[command(flatten)]
        key: KeySource,
        #[command(flatten)]
        received: Received,
        /// How long this hop held the HTLC, in milliseconds (sent in units
        /// of 100 ms, rounded down).
        #[arg(long, value_name = "MS", default_value_t = UNKNOWN_HOLD_TIME_MS, value_parser = parse_u64)]
        hold_time_ms: u64,
        /// The attribution data from downstream (920 bytes, hex or `-`);
        /// none at the recipient.
        #[arg(long, value_name = "HEX")]
        attribution_data: Option<String>,
    },
    /// At the origin: the hold times; prints `hold-times-ms`, `attribution`
    /// and `blamed-hop` when it breaks.
    Unwrap {
        #[command(flatten)]
        origin: Origin,
        /// The attribution data of `update_fulfill_htlc` (hex or `-`).
        #[arg(long, value_name = "HEX")]
        attribution_data: Option<String>,
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

fn attribution_in(arg: Option<&str>) -> Result<Option<Vec<u8>>> {
    arg.map(|a| data(a, "--attribution-data", InFormat::Hex))
        .transpose()
}

fn block(arg: Option<&str>) -> Result<AttributionData> {
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

fn hold_times(ms: &[u64]) -> Value {
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
            message,
            hold,
        } => {
            let ss = received.shared_secret(&key)?;
            let msg = crate::util::hex_arg(&message, "--message")?;
            if hold.no_attribution {
                let p = failure::create_to_vec(&ss, &msg)
                    .context("cannot create the failure packet")?;
                print_packet(&p, None);
            } else {
                let (p, a) = failure::create_attributed_to_vec(&ss, &msg, hold.hold_time_ms)
                    .context("cannot create the failure packet")?;
                print_packet(&p, Some(&a));
            }
        }
        ErrorCmd::Wrap {
            key,
            received,
            hold,
            attribution_data,
            packet,
        } => {
            let mut p = data(&packet, "PACKET", InFormat::Hex)?;
            let ss = received.shared_secret(&key)?;
            if hold.no_attribution {
                failure::wrap_in_place(&ss, &mut p).context("PACKET")?;
                print_packet(&p, None);
            } else {
                let mut a = block(attribution_data.as_deref())?;
                failure::wrap_attributed_in_place(&ss, hold.hold_time_ms, &mut p, &mut a)
                    .context("PACKET")?;
                print_packet(&p, Some(&a));
            }
        }
        ErrorCmd::Unwrap {
            origin,
            attribution_data,
            packet,
        } => {
            let (pubs, secrets) = origin.secrets()?;
            let a = attribution_in(attribution_data.as_deref())?;
            let u = failure::unwrap_attributed(
                &secrets,
                &data(&packet, "PACKET", InFormat::Hex)?,
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
        }
    }
    Ok(())
}

pub(super) fn run_fulfill(f: FulfillCmd) -> Result<()> {
    match f {
        FulfillCmd::Wrap {
            key,
            received,
            hold_time_ms,
            attribution_data,
        } => {
            let mut a = block(attribution_data.as_deref())?;
            let ss = received.shared_secret(&key)?;
            fulfill::wrap(&ss, hold_time_ms, &mut a);
            output::fields(&[("attribution_data", hex::encode(a.as_bytes()).into())]);
        }
        FulfillCmd::Unwrap {
            origin,
            attribution_data,
        } => {
            let (_, secrets) = origin.secrets()?;
            let a = attribution_in(attribution_data.as_deref())?;
            let h =
                fulfill::unwrap(&secrets, a.as_deref()).context("cannot read the hold times")?;
            let mut fields = vec![
                ("hold_times_ms", hold_times(&h.hold_times_ms)),
                ("attribution", h.attribution.to_string().into()),
            ];
            if let Some(b) = h.blamed_hop {
                fields.push(("blamed_hop", b.into()));
            }
            output::fields(&fields);
        }
    }
    Ok(())
}
