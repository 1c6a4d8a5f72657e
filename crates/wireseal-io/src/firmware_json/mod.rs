//! The JSON object the 2.7 firmware published on MQTT for every packet it
//! uplinked (`MeshPacketSerializer::JsonSerialize`, removed in 2.8), built
//! from a decoded packet: the same keys, types and `type` strings, the
//! payload per port as the firmware wrote it (`payload.rs`), and the text
//! as its SimpleJSON library printed it ([`format`](mod@format)). Home
//! Assistant, Node-RED and Adafruit IO integrations were written against
//! this object. The gateway publishes it and the npm package's
//! `EnvelopeDecoder.decodeFirmwareJson` returns it: the same bytes from
//! this one place.
//!
//! A driver keeps one [`Names`] per feed ([`Names::learn_from`] for every
//! decoded packet), names the uplinking gateway with [`sender`] and builds
//! the text with [`object`].
//!
//! Where it differs from the firmware, on purpose: text that is not valid
//! UTF-8 becomes U+FFFD (the firmware copies the bytes, which makes the
//! object invalid JSON); a text message that is JSON is read by a standard
//! JSON parser (SimpleJSON also takes `True` and tabs inside strings); the
//! channel index is the gateway's (the index of the `--channel` that opened
//! the packet, 0 for a direct message), not the uplinking radio's; a
//! traceroute names the nodes whose NodeInfo this gateway has seen. Facts the
//! firmware never published are added under names it never used:
//! `wireseal_decryption`, `wireseal_signature`, `wireseal_identity` and, for
//! a direct message to one of our nodes, `wireseal_our_node`.

pub mod format;
mod payload;

use format::Value;
use std::collections::{BTreeMap, HashMap};
use wireseal::meshtastic::app::App;
use wireseal::meshtastic::decoder::{Decoded, Decryption};
use wireseal::meshtastic::envelope::NODEINFO_APP;
use wireseal::meshtastic::untrusted::UNUSABLE_LABEL;
use wireseal::meshtastic::NodeId;

/// Long names of the nodes a NodeInfo announced (the firmware's NodeDB, for
/// traceroutes), bounded.
#[derive(Debug, Default)]
pub struct Names {
    names: HashMap<u32, String>,
}

/// Nodes whose names are kept at most.
const MAX_NAMES: usize = 65_536;

impl Names {
    /// Remembers `node`'s long name (at most 39 bytes, as the firmware keeps
    /// it); a new node past the bound is not remembered.
    pub fn learn(&mut self, node: u32, long_name: &str) {
        if self.names.len() >= MAX_NAMES && !self.names.contains_key(&node) {
            return;
        }
        let mut end = long_name.len().min(39);
        while !long_name.is_char_boundary(end) {
            end -= 1;
        }
        self.names.insert(node, long_name[..end].to_owned());
    }

    /// Learns the long name a decoded NodeInfo announces for its sender;
    /// any other packet is left alone.
    pub fn learn_from(&mut self, d: &Decoded) {
        if let Some(data) = d.data.as_ref().filter(|x| x.portnum == NODEINFO_APP) {
            if let Some(App::User(u)) = App::decode(data.portnum, &data.payload) {
                self.learn(d.from, &u.long_name);
            }
        }
    }

    /// The name the firmware writes for `node`: its long name, or `Unknown`.
    pub fn of(&self, node: u32) -> &str {
        self.names.get(&node).map_or("Unknown", String::as_str)
    }
}

/// The object's `sender` (and the last level of its topic): the envelope's
/// gateway id when it is a node id (`!%08x`), else the library's
/// [`UNUSABLE_LABEL`].
pub fn sender(d: &Decoded) -> String {
    NodeId::parse_canonical(&d.gateway_id)
        .map_or_else(|| UNUSABLE_LABEL.to_owned(), |g| g.to_string())
}

/// The firmware's `getHopsAway`: `hop_start - hop_limit`, or `None` when the
/// packet does not say (no `hop_start` and no `bitfield`, or a limit above
/// the start).
fn hops_away(d: &Decoded) -> Option<u32> {
    let r = &d.reception;
    let has_bitfield = d.data.as_ref().is_some_and(|x| x.bitfield.is_some());
    if (r.hop_start == 0 && !has_bitfield) || r.hop_start < r.hop_limit {
        return None;
    }
    Some(r.hop_start - r.hop_limit)
}

/// The object for `d`, which gateway `sender` (`!%08x`) uplinked; `None`
/// when the firmware would publish none (not decoded, or it came from MQTT).
pub fn object(d: &Decoded, sender: &str, names: &Names) -> Option<String> {
    if d.decryption == Decryption::None || d.reception.via_mqtt {
        return None;
    }
    let data = d.data.as_ref()?;
    let (kind, body) = payload::build(d, data, names);
    let r = &d.reception;
    let mut m = BTreeMap::new();
    m.insert("id".into(), Value::int(d.id));
    m.insert("timestamp".into(), Value::int(r.rx_time));
    m.insert("to".into(), Value::int(d.to));
    m.insert("from".into(), Value::int(d.from));
    let channel = match d.decryption {
        Decryption::Channel(i) => i as u32,
        Decryption::Pkc => 0,
        _ => d.channel_hash,
    };
    m.insert("channel".into(), Value::int(channel));
    m.insert("type".into(), Value::str(kind));
    m.insert("sender".into(), Value::str(sender));
    if r.rx_rssi != 0 {
        m.insert("rssi".into(), Value::int(r.rx_rssi));
    }
    let snr = r.rx_snr();
    if snr != 0.0 {
        m.insert("snr".into(), Value::float(snr));
    }
    if let Some(h) = hops_away(d) {
        m.insert("hops_away".into(), Value::int(h));
        m.insert("hop_start".into(), Value::int(r.hop_start));
    }
    if let Some(p) = body {
        m.insert("payload".into(), p);
    }
    m.insert(
        "wireseal_decryption".into(),
        Value::str(d.decryption.as_str()),
    );
    m.insert(
        "wireseal_signature".into(),
        Value::str(d.signature.as_str()),
    );
    if let Some(i) = d.identity {
        m.insert("wireseal_identity".into(), Value::str(i.as_str()));
    }
    if let Some(n) = d.our_node {
        m.insert(
            "wireseal_our_node".into(),
            Value::str(NodeId(n).to_string()),
        );
    }
    let mut out = String::with_capacity(256);
    Value::Obj(m).write(&mut out);
    Some(out)
}
