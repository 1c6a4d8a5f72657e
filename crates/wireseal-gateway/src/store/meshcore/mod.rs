//! What the store keeps of MeshCore packets: each packet once, keyed by its
//! packet hash whichever observer brought it (`meshcore_packets`), every
//! observer's reception of it (`meshcore_receptions`), and what verified
//! adverts and opened messages say of their senders (`meshcore_nodes`).
//! The record of one message ([`MeshcoreRecord`]) is made from the
//! library's decoded packet ([`record`]), checked like every record
//! (lengths capped, text valid, times in range) and written in the same
//! transaction as the batch's Meshtastic records.

mod plan;
pub(super) mod postgres;
pub(super) mod sql;
pub(super) mod sqlite;

pub(super) use plan::Plan;

use super::record::{Caps, MAX_ID, MAX_NAME, MAX_TEXT, MAX_TOPIC};
use std::borrow::Cow;
use wireseal::meshcore::{Body, Decoded, GroupContent, PeerContent};

/// Longest record JSON kept, in bytes (the library's records of the
/// largest packets are under 3 KiB).
pub const MAX_RECORD: usize = 16 * 1024;

/// Everything stored for one MeshCore message: the packet (stored once per
/// hash, whichever observer brought it), this observer's reception of it,
/// and what the packet proves about its sender.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshcoreRecord {
    /// The packet hash ([`Packet::hash`](wireseal::meshcore::Packet::hash)).
    pub hash: [u8; 8],
    /// The packet; `None` for a copy that brings nothing its first copy,
    /// handed to the store before it, did not.
    pub packet: Option<MeshcorePacketRow>,
    /// This reception of it.
    pub reception: MeshcoreReception,
    /// A verified or forged advert's content, or the sender of a message
    /// one of our identities opened; `None` for other packets (and for a
    /// copy without its packet).
    pub node: Option<MeshcoreNodeUpdate>,
}

/// One row of `meshcore_packets`. When observers bring copies of one
/// packet, the first stored copy is kept unless a later one was opened and
/// it was not (a direct message from a sender whose advert came between
/// them).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshcorePacketRow {
    /// The payload type's name (`advert`, `grp_txt`, ...).
    pub payload_type: &'static str,
    /// The route's name (`flood`, `direct`, ...), of the first copy stored.
    pub route: &'static str,
    /// The payload's length.
    pub payload_len: usize,
    /// A group packet's channel hash.
    pub channel_hash: Option<u8>,
    /// The name of the configured channel whose key opened it.
    pub channel_name: Option<String>,
    /// A peer packet's sender hash.
    pub src_hash: Option<u8>,
    /// A peer packet's or anonymous request's recipient hash.
    pub dst_hash: Option<u8>,
    /// The sender's key: an advert's, an opened message's sender, an
    /// anonymous request's.
    pub sender: Option<[u8; 32]>,
    /// Our identity an opened message was for.
    pub our_key: Option<[u8; 32]>,
    /// Whether a channel key or one of our identities opened it.
    pub decrypted: bool,
    /// An advert's signature: `valid` or `invalid`.
    pub signature: Option<&'static str>,
    /// The text of an opened group text or text message.
    pub text: Option<String>,
    /// The library's JSON record of the packet
    /// ([`wireseal_io::record::meshcore_to_json`]).
    pub record: String,
}

/// One row of `meshcore_receptions`: one copy of a packet as one observer
/// reported it. Copies with the same (hash, observer, path, direction) are
/// one reception; the first one stored is kept.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshcoreReception {
    /// The observer's public key in hex, or the library's label.
    pub observer_id: String,
    /// The packet's path as this copy carried it: each hop in hex, joined
    /// by commas (empty for none).
    pub path: String,
    /// `rx`, `tx`, or empty when the feed did not say.
    pub direction: &'static str,
    /// The MQTT topic it came on.
    pub topic: String,
    /// When the gateway took it from MQTT, Unix milliseconds.
    pub rx_time_ms: u64,
    /// Signal to noise ratio in dB (NULL when not finite).
    pub snr: Option<f32>,
    /// Received signal strength in dBm.
    pub rssi: Option<i32>,
}

/// What a packet says about a node. A verified advert sets its name, type,
/// location and advert time (the newest advert's win) and marks it
/// `valid`; an advert whose signature fails only marks a node never
/// verified `invalid`; a message one of our identities opened proves its
/// sender was heard.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshcoreNodeUpdate {
    /// The node's key.
    pub public_key: [u8; 32],
    /// `valid` or `invalid` for an advert; `None` for an opened message.
    pub signature: Option<&'static str>,
    /// The advert's name.
    pub name: Option<String>,
    /// The advert's node type (`chat`, `repeater`, `room`, `sensor`, ...).
    pub node_type: Option<&'static str>,
    /// The advert's latitude and longitude in microdegrees.
    pub location: Option<(i32, i32)>,
    /// The advert's timestamp (the node's clock, Unix seconds).
    pub advert_timestamp: Option<u32>,
}

/// How one observer reported a packet, as the record keeps it.
#[derive(Debug, Clone, Copy)]
pub struct Observation<'a> {
    /// The observer's public key in hex, or the library's label.
    pub observer_id: &'a str,
    /// Signal to noise ratio in dB.
    pub snr: Option<f32>,
    /// Received signal strength in dBm.
    pub rssi: Option<i32>,
    /// `rx`, `tx` or empty.
    pub direction: &'static str,
    /// The MQTT topic.
    pub topic: &'a str,
    /// When the gateway took it, Unix milliseconds.
    pub rx_time_ms: u64,
}

/// A decoded packet's path: each hop in hex, joined by commas.
pub fn path_text(d: &Decoded) -> String {
    let mut out = String::with_capacity(d.path.len() * 3);
    for (i, hop) in d.hops().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&hex::encode(hop));
    }
    out
}

fn node_update(d: &Decoded) -> Option<MeshcoreNodeUpdate> {
    match &d.body {
        Body::Advert(a) => {
            let data = a.data.as_ref().filter(|_| a.signature_valid);
            Some(MeshcoreNodeUpdate {
                public_key: a.public_key,
                signature: Some(if a.signature_valid {
                    "valid"
                } else {
                    "invalid"
                }),
                name: data.and_then(|f| f.name.clone()),
                node_type: data.map(|f| f.node_type.as_str()),
                location: data.and_then(|f| f.location),
                advert_timestamp: a.signature_valid.then_some(a.timestamp),
            })
        }
        Body::Peer(p) => p.opened.as_ref().map(|o| MeshcoreNodeUpdate {
            public_key: o.from,
            ..Default::default()
        }),
        Body::AnonReq(a) => a.opened.as_ref().map(|_| MeshcoreNodeUpdate {
            public_key: a.sender,
            ..Default::default()
        }),
        _ => None,
    }
}

/// The record of `d` (opened by the channel named `channel`, if a group
/// packet), as `o` reported it: with its packet and what it says of its
/// sender when `fresh` (the first copy handed to the store lately, or the
/// first one opened), else its reception alone.
pub fn record(
    d: &Decoded,
    channel: Option<&str>,
    o: Observation<'_>,
    fresh: bool,
) -> MeshcoreRecord {
    let reception = MeshcoreReception {
        observer_id: o.observer_id.to_owned(),
        path: path_text(d),
        direction: o.direction,
        topic: o.topic.to_owned(),
        rx_time_ms: o.rx_time_ms,
        snr: o.snr,
        rssi: o.rssi,
    };
    MeshcoreRecord {
        hash: d.hash,
        packet: fresh.then(|| packet_row(d, channel)),
        reception,
        node: node_update(d).filter(|_| fresh),
    }
}

/// The packet row of `d`.
fn packet_row(d: &Decoded, channel: Option<&str>) -> MeshcorePacketRow {
    let mut p = MeshcorePacketRow {
        payload_type: d.payload_type.as_str(),
        route: d.route.as_str(),
        payload_len: d.payload_len,
        record: wireseal_io::record::meshcore_to_json(d),
        ..Default::default()
    };
    match &d.body {
        Body::Advert(a) => {
            p.sender = Some(a.public_key);
            p.signature = Some(if a.signature_valid {
                "valid"
            } else {
                "invalid"
            });
        }
        Body::Group(g) => {
            p.channel_hash = Some(g.channel_hash);
            p.decrypted = g.opened.is_some();
            p.channel_name = channel.filter(|_| p.decrypted).map(str::to_owned);
            if let Some(GroupContent::Text(t)) = g.opened.as_ref().map(|o| &o.content) {
                p.text = Some(t.text.clone());
            }
        }
        Body::Peer(x) => {
            (p.src_hash, p.dst_hash) = (Some(x.src_hash), Some(x.dest_hash));
            if let Some(o) = &x.opened {
                (p.decrypted, p.sender, p.our_key) = (true, Some(o.from), Some(o.to));
                if let PeerContent::Text(t) = &o.content {
                    p.text = Some(t.text.clone());
                }
            }
        }
        Body::AnonReq(a) => {
            (p.dst_hash, p.sender) = (Some(a.dest_hash), Some(a.sender));
            if let Some(o) = &a.opened {
                (p.decrypted, p.our_key) = (true, Some(o.to));
            }
        }
        _ => {}
    }
    p
}

/// A MeshCore record after its checks: what the statements bind.
#[derive(Debug)]
pub(in crate::store) struct Clean<'a> {
    /// Its position in the batch handed to the store.
    pub index: usize,
    /// Whether it brings its packet's row.
    pub has_packet: bool,
    pub hash: i64,
    pub payload_type: &'a str,
    pub route: &'a str,
    pub payload_len: i64,
    pub channel_hash: Option<i64>,
    pub channel_name: Option<Cow<'a, str>>,
    pub src_hash: Option<i64>,
    pub dst_hash: Option<i64>,
    pub sender: Option<&'a [u8; 32]>,
    pub our_key: Option<&'a [u8; 32]>,
    pub decrypted: i32,
    pub signature: Option<&'a str>,
    pub text: Option<Cow<'a, str>>,
    pub record: &'a str,
    pub observer_id: Cow<'a, str>,
    pub path: Cow<'a, str>,
    pub direction: &'a str,
    pub topic: Cow<'a, str>,
    pub rx_time_ms: i64,
    pub snr: Option<f32>,
    pub rssi: Option<i32>,
    pub node: Option<&'a MeshcoreNodeUpdate>,
    pub name: Option<Cow<'a, str>>,
}

/// Checks one record: `Err` says why it cannot be stored.
pub(in crate::store) fn check<'a>(
    index: usize,
    r: &'a MeshcoreRecord,
    caps: &mut Caps,
) -> Result<Clean<'a>, String> {
    static NONE: MeshcorePacketRow = MeshcorePacketRow {
        payload_type: "",
        route: "",
        payload_len: 0,
        channel_hash: None,
        channel_name: None,
        src_hash: None,
        dst_hash: None,
        sender: None,
        our_key: None,
        decrypted: false,
        signature: None,
        text: None,
        record: String::new(),
    };
    let (p, x) = (r.packet.as_ref().unwrap_or(&NONE), &r.reception);
    let rx_time_ms = i64::try_from(x.rx_time_ms)
        .map_err(|_| format!("reception time {} ms is out of range", x.rx_time_ms))?;
    if p.record.len() > MAX_RECORD {
        return Err(format!("a record of {} bytes", p.record.len()));
    }
    let node = r.node.as_ref();
    Ok(Clean {
        index,
        has_packet: r.packet.is_some(),
        hash: i64::from_be_bytes(r.hash),
        payload_type: p.payload_type,
        route: p.route,
        payload_len: p.payload_len as i64,
        channel_hash: p.channel_hash.map(i64::from),
        channel_name: p.channel_name.as_deref().map(|n| caps.text(n, MAX_ID)),
        src_hash: p.src_hash.map(i64::from),
        dst_hash: p.dst_hash.map(i64::from),
        sender: p.sender.as_ref(),
        our_key: p.our_key.as_ref(),
        decrypted: i32::from(p.decrypted),
        signature: p.signature,
        text: p.text.as_deref().map(|t| caps.text(t, MAX_TEXT)),
        record: &p.record,
        observer_id: caps.text(&x.observer_id, MAX_ID),
        path: caps.text(&x.path, MAX_TOPIC),
        direction: x.direction,
        topic: caps.text(&x.topic, MAX_TOPIC),
        rx_time_ms,
        snr: x.snr.filter(|v| v.is_finite()),
        rssi: x.rssi,
        node,
        name: node.and_then(|n| n.name.as_deref().map(|t| caps.text(t, MAX_NAME))),
    })
}
