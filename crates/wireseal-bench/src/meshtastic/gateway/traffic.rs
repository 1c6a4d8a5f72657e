//! The bench's feed as the gateway's runs take it, and the check of a run:
//! each envelope as three gateways heard it (three copies with three
//! gateway ids, a few hundred packets apart), as QoS 1 PUBLISH packets; and
//! whether the gateway's summary accounts for every message.

use super::process::Run;
use super::{Feed, RunError};
use wireseal::meshtastic::envelope;
use wireseal_testkit::mqtt::publish_packet;

/// The gateways that hear the feed, and how many packets later each does.
const GATEWAYS: [(&str, usize); 3] = [("!b3c4d5e6", 0), ("!b3c4d5e7", 150), ("!b3c4d5e8", 400)];

/// The feed as QoS 1 PUBLISH packets from three gateways.
pub(crate) struct Traffic {
    pub bytes: Vec<u8>,
    pub messages: usize,
    pub packets: usize,
}

/// Each envelope of `f` as three gateways heard it.
pub(crate) fn traffic(f: &Feed) -> Traffic {
    let mut order: Vec<(usize, usize, usize)> = Vec::new();
    for i in 0..f.envelopes.len() {
        for (g, (_, lag)) in GATEWAYS.iter().enumerate() {
            order.push((i + lag, g, i));
        }
    }
    order.sort_unstable();
    let mut bytes = Vec::new();
    for (k, (_, g, i)) in order.iter().enumerate() {
        let (_, topic, env) = &f.envelopes[*i];
        let mut e = envelope::decode(env).expect("the bench's own envelope");
        let gw = GATEWAYS[*g].0;
        e.gateway_id = gw.into();
        let payload = envelope::encode_to_vec(&e);
        let topic = match topic.rsplit_once('/') {
            Some((t, _)) => format!("{t}/{gw}"),
            None => topic.clone(),
        };
        publish_packet(&mut bytes, &topic, &payload, Some((k % 65_535 + 1) as u16));
    }
    Traffic {
        bytes,
        messages: order.len(),
        packets: f.envelopes.len(),
    }
}

/// Whether the gateway's summary counts every message decoded, published
/// as firmware JSON, and (with a store) every packet and reception stored.
pub(crate) fn complete(r: &Run, t: &Traffic, stored: bool) -> Result<(), RunError> {
    let s = &r.summary;
    let n = |v: &serde_json::Value| v.as_u64().unwrap_or(0) as usize;
    let fw = n(&s["output"]["firmware_json"]) + n(&s["output"]["publish_dropped"]);
    let ok = n(&s["packets"]) == t.messages
        && fw == t.messages
        && match stored {
            false => r.lines == t.messages,
            true => {
                n(&s["store"]["packets"]) == t.packets
                    && n(&s["store"]["receptions"]) == t.messages
                    && n(&s["store"]["rejected"]) == 0
            }
        };
    match ok {
        true => Ok(()),
        false => Err(RunError::Fail(format!(
            "{} packets from {} messages: {} JSON lines, summary {s}",
            t.packets, t.messages, r.lines
        ))),
    }
}
