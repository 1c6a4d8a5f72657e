//! `wireseal sphinx fulfill wrap|unwrap`: what comes back with
//! `update_fulfill_htlc`, the hold times (BOLT #4 attribution data) and the
//! final node's `fulfillment_payload`. Every rule (padding, sealing, who adds
//! attribution data, what the HMACs cover) is `wireseal::sphinx`'s; this
//! file parses, calls and prints.

use super::failure::{attribution_in, block, hold_times};
use super::{Origin, Received};
use crate::util::input::{data, InFormat};
use crate::util::{hex_arg, output, parse_u64, KeySource};
use anyhow::{Context, Result};
use serde_json::Value;
use wireseal::sphinx::attribution::UNKNOWN_HOLD_TIME_MS;
use wireseal::sphinx::fulfill::{self, Returned};

#[derive(Debug, clap::Subcommand)]
pub(super) enum FulfillCmd {
    /// At the final node or a hop passing the fulfill back: add this hop's
    /// hold time and HMACs (over the payload as received) and its layer of
    /// the payload; prints `attribution-data` (none from a hop inside a
    /// blinded path) and `fulfillment-payload` (when there is one).
    Wrap {
        /// This hop's node private key.
        #[command(flatten)]
        key: KeySource,
        #[command(flatten)]
        received: Received,
        /// The `path_key` that came with the HTLC: this hop is inside a
        /// blinded path and neither adds nor passes on attribution data (it
        /// still obfuscates the payload).
        #[arg(long, value_name = "HEX")]
        path_key: Option<String>,
        /// How long this hop held the HTLC, in milliseconds (sent in units
        /// of 100 ms, rounded down).
        #[arg(long, value_name = "MS", default_value_t = UNKNOWN_HOLD_TIME_MS, value_parser = parse_u64)]
        hold_time_ms: u64,
        /// The attribution data from downstream (920 bytes, hex or `-`);
        /// none at the final node.
        #[arg(long, value_name = "HEX", conflicts_with = "records")]
        attribution_data: Option<String>,
        /// The `fulfillment_payload` from downstream (hex or `-`).
        #[arg(long, value_name = "HEX", conflicts_with = "records")]
        payload: Option<String>,
        /// At the final node: the `fulfillment_payload_tlvs` records to
        /// return (a TLV stream without `padding`, hex); sealed for the
        /// origin, padded to a multiple of 256 bytes.
        #[arg(long, value_name = "HEX")]
        records: Option<String>,
    },
    /// At the origin: the hold times and the payload; prints `hold-times-ms`,
    /// `attribution`, `blamed-hop` when it breaks, and with `--payload`,
    /// `payload-status` (`valid`, `ignored`), `payload` (the records without
    /// padding, null unless valid) and `payload-error` (why it is ignored).
    Unwrap {
        #[command(flatten)]
        origin: Origin,
        /// The attribution data of `update_fulfill_htlc` (hex or `-`).
        #[arg(long, value_name = "HEX")]
        attribution_data: Option<String>,
        /// The `fulfillment_payload` of `update_fulfill_htlc` (hex or `-`).
        #[arg(long, value_name = "HEX")]
        payload: Option<String>,
    },
}

pub(super) fn run(f: FulfillCmd) -> Result<()> {
    match f {
        FulfillCmd::Wrap {
            key,
            received,
            path_key,
            hold_time_ms,
            attribution_data,
            payload,
            records,
        } => {
            let (ss, incoming) = received.hop(&key, path_key.as_deref())?;
            let r = match records {
                Some(r) => {
                    let records = hex_arg(&r, "--records")?;
                    fulfill::create_at(&ss, incoming, hold_time_ms, Some(&records))
                        .context("--records")?
                }
                None => {
                    let mut r = Returned {
                        payload: payload
                            .map(|p| data(&p, "--payload", InFormat::Hex))
                            .transpose()?,
                        attribution: attribution_data
                            .is_some()
                            .then(|| block(attribution_data.as_deref()))
                            .transpose()?,
                    };
                    fulfill::relay(&ss, incoming, hold_time_ms, &mut r).context("--payload")?;
                    r
                }
            };
            let mut fields = Vec::new();
            if let Some(a) = &r.attribution {
                fields.push(("attribution_data", hex::encode(a.as_bytes()).into()));
            }
            if let Some(p) = &r.payload {
                fields.push(("fulfillment_payload", hex::encode(p).into()));
            }
            output::fields(&fields);
        }
        FulfillCmd::Unwrap {
            origin,
            attribution_data,
            payload,
        } => {
            let (_, secrets) = origin.secrets()?;
            let a = attribution_in(attribution_data.as_deref())?;
            let p = payload
                .map(|p| data(&p, "--payload", InFormat::Hex))
                .transpose()?;
            let f = fulfill::unwrap_returned(&secrets, p.as_deref(), a.as_deref())
                .context("cannot read the fulfill")?;
            let h = &f.hold_times;
            let mut fields = vec![
                ("hold_times_ms", hold_times(&h.hold_times_ms)),
                ("attribution", h.attribution.to_string().into()),
            ];
            if let Some(b) = h.blamed_hop {
                fields.push(("blamed_hop", b.into()));
            }
            if p.is_some() {
                fields.push(("payload_status", f.payload.name().into()));
                fields.push((
                    "payload",
                    f.payload
                        .records()
                        .map_or(Value::Null, |r| hex::encode(r).into()),
                ));
                if let fulfill::Payload::Ignored(e) = &f.payload {
                    fields.push(("payload_error", e.to_string().into()));
                }
            }
            output::fields(&fields);
        }
    }
    Ok(())
}
