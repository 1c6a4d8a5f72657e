//! The record of one decoded packet (feature `serde`): the one JSON shape
//! the command line prints, the Python package returns and the gateway
//! stores.
//!
//! ```text
//! { "payload_type": "grp_txt", "route_type": "flood",
//!   "transport_codes": null, "path": ["a1", "b2"], "hash": "16 hex digits",
//!   "payload_len": 35,
//!   "grp_txt": { "channel_hash": "11", "decrypted": true, "channel": 0,
//!                "timestamp": 1700000000, "text": "Alice: hi" } }
//! ```
//!
//! Per type, one object named after it: `advert` (`public_key`,
//! `timestamp`, `signature` = `"valid"`/`"invalid"`, `node_type`, `name`,
//! `lat`, `lon` in degrees, `feat1`, `feat2`); `grp_txt` (`channel_hash`,
//! `decrypted`, `channel`, `timestamp`, `text_type`, `attempt`, `text`);
//! `grp_data` (`channel_hash`, `decrypted`, `channel`, `data_type`,
//! `data`); `txt_msg` (`src_hash`, `dst_hash`, `decrypted`, `from`, `to`,
//! `timestamp`, `text_type`, `attempt`, `text`); `req`, `response` and,
//! for a PATH packet, `returned_path` (not `path`, which holds the hops:
//! the hashes, `decrypted`, `from`, `to`, `data`); `anon_req` (`dst_hash`,
//! `sender`, `decrypted`, `to`, `timestamp`, `data`); `ack` (`checksum`);
//! other types `payload` (hex). A type's object has the same keys whether
//! or not it decrypted. Keys, hashes and bytes are lowercase hex; a field
//! that does not apply (`text` of a packet nothing opened) is `null`.

use super::decoded::*;
use super::packet::PayloadType;
use crate::hex_text::Hex;
use serde::ser::{Serialize, SerializeMap, Serializer};

struct Hops<'a>(&'a Decoded);

impl Serialize for Hops<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.hops().map(Hex))
    }
}

impl Serialize for Decoded {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("payload_type", self.payload_type.as_str())?;
        m.serialize_entry("route_type", self.route.as_str())?;
        m.serialize_entry("transport_codes", &self.transport_codes)?;
        m.serialize_entry("path", &Hops(self))?;
        m.serialize_entry("hash", &Hex(&self.hash))?;
        m.serialize_entry("payload_len", &self.payload_len)?;
        let t = self.payload_type;
        let name = match t {
            // `path` is the hops.
            PayloadType::Path => "returned_path",
            t => t.as_str(),
        };
        match &self.body {
            Body::Advert(a) => m.serialize_entry(name, &AdvertJson(a))?,
            Body::Group(g) => m.serialize_entry(name, &GroupJson(g, t))?,
            Body::Peer(p) => m.serialize_entry(name, &PeerJson(p, t))?,
            Body::AnonReq(a) => m.serialize_entry(name, &AnonJson(a))?,
            Body::Ack(c) => m.serialize_entry(name, &AckJson(*c))?,
            Body::Other(p) => m.serialize_entry("payload", &Hex(p))?,
        }
        m.end()
    }
}

struct AdvertJson<'a>(&'a Advert);

impl Serialize for AdvertJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        let d = a.data.as_ref();
        let degrees = |v: i32| f64::from(v) / 1e6;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("public_key", &Hex(&a.public_key))?;
        m.serialize_entry("timestamp", &a.timestamp)?;
        m.serialize_entry(
            "signature",
            if a.signature_valid {
                "valid"
            } else {
                "invalid"
            },
        )?;
        m.serialize_entry("node_type", &d.map(|d| d.node_type.as_str()))?;
        m.serialize_entry("name", &d.and_then(|d| d.name.as_deref()))?;
        let loc = d.and_then(|d| d.location);
        m.serialize_entry("lat", &loc.map(|l| degrees(l.0)))?;
        m.serialize_entry("lon", &loc.map(|l| degrees(l.1)))?;
        m.serialize_entry("feat1", &d.and_then(|d| d.feat1))?;
        m.serialize_entry("feat2", &d.and_then(|d| d.feat2))?;
        m.end()
    }
}

fn message_entries<M: SerializeMap>(m: &mut M, t: Option<&Message>) -> Result<(), M::Error> {
    m.serialize_entry("timestamp", &t.map(|t| t.timestamp))?;
    m.serialize_entry("text_type", &t.map(|t| t.text_type.as_str()))?;
    m.serialize_entry("attempt", &t.map(|t| t.attempt))?;
    m.serialize_entry("text", &t.map(|t| t.text.as_str()))
}

/// A group packet and its type (which says the keys when nothing opened).
struct GroupJson<'a>(&'a Group, PayloadType);

impl Serialize for GroupJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let g = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("channel_hash", &Hex(&[g.channel_hash]))?;
        m.serialize_entry("decrypted", &g.opened.is_some())?;
        m.serialize_entry("channel", &g.opened.as_ref().map(|o| o.channel))?;
        match g.opened.as_ref().map(|o| &o.content) {
            Some(GroupContent::Data { data_type, data }) => {
                m.serialize_entry("data_type", data_type)?;
                m.serialize_entry("data", &Hex(data))?;
            }
            Some(GroupContent::Text(t)) => message_entries(&mut m, Some(t))?,
            None if self.1 == PayloadType::GrpData => {
                m.serialize_entry("data_type", &None::<u16>)?;
                m.serialize_entry("data", &None::<Hex<'_>>)?;
            }
            None => message_entries(&mut m, None)?,
        }
        m.end()
    }
}

/// A peer packet and its type (which says the keys when nothing opened).
struct PeerJson<'a>(&'a Peer, PayloadType);

impl Serialize for PeerJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = self.0;
        let o = p.opened.as_ref();
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("src_hash", &Hex(&[p.src_hash]))?;
        m.serialize_entry("dst_hash", &Hex(&[p.dest_hash]))?;
        m.serialize_entry("decrypted", &o.is_some())?;
        m.serialize_entry("from", &o.map(|o| Hex(&o.from)))?;
        m.serialize_entry("to", &o.map(|o| Hex(&o.to)))?;
        match o.map(|o| &o.content) {
            Some(PeerContent::Data(d)) => m.serialize_entry("data", &Hex(d))?,
            Some(PeerContent::Text(t)) => message_entries(&mut m, Some(t))?,
            None if self.1 == PayloadType::TxtMsg => message_entries(&mut m, None)?,
            None => m.serialize_entry("data", &None::<Hex<'_>>)?,
        }
        m.end()
    }
}

struct AnonJson<'a>(&'a AnonReq);

impl Serialize for AnonJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        let o = a.opened.as_ref();
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("dst_hash", &Hex(&[a.dest_hash]))?;
        m.serialize_entry("sender", &Hex(&a.sender))?;
        m.serialize_entry("decrypted", &o.is_some())?;
        m.serialize_entry("to", &o.map(|o| Hex(&o.to)))?;
        m.serialize_entry("timestamp", &o.map(|o| o.timestamp))?;
        m.serialize_entry("data", &o.map(|o| Hex(&o.data)))?;
        m.end()
    }
}

struct AckJson(u32);

impl Serialize for AckJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry("checksum", &self.0)?;
        m.end()
    }
}
