//! The record of one decoded packet (feature `serde`): its `Serialize` impl
//! is what `wireseal meshtastic gateway` prints per packet and `wireseal
//! meshtastic decode` prints for one capture, as JSON (written by
//! `wireseal_io::record`; any serde format works). The fields are documented in
//! `docs/gateway.md`; absent values are left out, except `portnum`,
//! `payload_hex`, `kind` and `decryption`, which every record has.
//!
//! ```
//! use wireseal::meshtastic::decoder::Decoder;
//! use wireseal::meshtastic::envelope::{self, Data, MeshPacket, PayloadVariant, ServiceEnvelope};
//! use wireseal::meshtastic::record::PacketRecord;
//!
//! let mut decoder = Decoder::new();
//! let env = ServiceEnvelope {
//!     packet: Some(MeshPacket {
//!         from: 0x929, to: 0xffff_ffff, id: 7,
//!         payload_variant: Some(PayloadVariant::Decoded(Data {
//!             portnum: 1, payload: b"hi".to_vec(), ..Default::default()
//!         })),
//!         ..Default::default()
//!     }),
//!     channel_id: "LongFast".into(),
//!     gateway_id: "!00000929".into(),
//! };
//! let d = decoder.decode(0, &envelope::encode_to_vec(&env))?;
//! let json = serde_json::to_string(&PacketRecord::new(&decoder, &d)).unwrap();
//! assert!(json.starts_with(r#"{"from":2345,"to":4294967295,"id":7,"#));
//! assert!(json.contains(r#""text":"hi""#));
//! # Ok::<(), wireseal::meshtastic::Error>(())
//! ```

use super::app::{portnum_name, App, PacketKind};
use super::decoder::{Decoded, Decoder, Decryption};
use super::envelope::NODEINFO_APP;
use super::NodeId;
use crate::hex_text::Hex;
use serde::ser::{Serialize, SerializeMap, Serializer};

/// One packet's record: borrows the decoder (for channel names and the node
/// table) and the decoded packet; serialize it with `serde`.
#[derive(Debug, Clone, Copy)]
pub struct PacketRecord<'a> {
    decoder: &'a Decoder,
    decoded: &'a Decoded,
}

impl<'a> PacketRecord<'a> {
    /// The record of `decoded`, as `decoder` produced it.
    pub fn new(decoder: &'a Decoder, decoded: &'a Decoded) -> Self {
        Self { decoder, decoded }
    }
}

impl Serialize for PacketRecord<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = self.decoded;
        let r = &d.reception;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("from", &d.from)?;
        m.serialize_entry("to", &d.to)?;
        m.serialize_entry("id", &d.id)?;
        m.serialize_entry("channel_id", d.channel_id.as_str())?;
        m.serialize_entry("gateway_id", d.gateway_id.as_str())?;
        m.serialize_entry("portnum", &d.portnum())?;
        if let Some(name) = d.portnum().and_then(portnum_name) {
            m.serialize_entry("portnum_name", name)?;
        }
        m.serialize_entry("payload_hex", &d.payload().map(Hex))?;
        m.serialize_entry("kind", &PacketKind::of(d.portnum()))?;
        m.serialize_entry("decryption", &d.decryption)?;
        if let Decryption::Channel(i) = d.decryption {
            m.serialize_entry("channel_name", self.decoder.channel_name(i).unwrap_or("?"))?;
        }
        if let Some(n) = d.our_node {
            m.serialize_entry("our_node", &NodeId(n))?;
        }
        m.serialize_entry("signature", &d.signature)?;
        if let Some(v) = d.verdict {
            m.serialize_entry("policy", v.as_str())?;
            if let Some(c) = v.concern() {
                m.serialize_entry("policy_reason", c.as_str())?;
            }
        }
        if let Some(i) = d.identity {
            m.serialize_entry("identity", i.as_str())?;
        }
        if let Some(c) = d.control() {
            m.serialize_entry("control", c.as_str())?;
        }
        if let Some(t) = d.text() {
            m.serialize_entry("text", t)?;
        }
        if let Some(app) = d
            .data
            .as_ref()
            .filter(|data| data.portnum != super::envelope::TEXT_MESSAGE_APP)
            .and_then(|data| App::decode(data.portnum, &data.payload))
        {
            m.serialize_entry("app", &AppJson(&app))?;
        }
        if let Some(e) = d.key_event {
            m.serialize_entry("key_event", e.as_str())?;
        }
        if d.key_event.is_some() || d.portnum() == Some(NODEINFO_APP) {
            if let Some(k) = self.decoder.nodes().get(d.from) {
                m.serialize_entry("node_identity", &k.identity(d.from))?;
                m.serialize_entry("node_signer", &k.signer)?;
                if let Some(n) = k.renumbered_from {
                    m.serialize_entry("renumbered_from", &NodeId(n))?;
                }
                if let Some(n) = k.renumbered_to {
                    m.serialize_entry("renumbered_to", &NodeId(n))?;
                }
            }
        }
        m.serialize_entry("rx_time", &r.rx_time)?;
        if r.rx_rssi != 0 || r.rx_snr_bits != 0 {
            m.serialize_entry("rx_rssi", &r.rx_rssi)?;
            // JSON has no NaN or infinity: serde_json writes them as null.
            m.serialize_entry("rx_snr", &r.rx_snr())?;
        }
        m.serialize_entry("hop_limit", &r.hop_limit)?;
        m.serialize_entry("hop_start", &r.hop_start)?;
        m.serialize_entry("relay_node", &r.relay_node)?;
        if r.via_mqtt {
            m.serialize_entry("via_mqtt", &true)?;
        }
        if r.claimed_signed {
            m.serialize_entry("claimed_signed", &true)?;
        }
        if let Some(e) = d.error {
            m.serialize_entry("error", &e)?;
        }
        m.end()
    }
}

/// The JSON object of a decoded payload: `{"type": ..., fields}`.
struct AppJson<'a>(&'a App);

impl Serialize for AppJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match self.0 {
            App::Text(t) => {
                m.serialize_entry("type", "text")?;
                m.serialize_entry("text", t)?;
            }
            App::Position(p) => {
                m.serialize_entry("type", "position")?;
                let degrees = |v: Option<i32>| v.map(|v| f64::from(v) * 1e-7);
                m.serialize_entry("latitude", &degrees(p.latitude_i))?;
                m.serialize_entry("longitude", &degrees(p.longitude_i))?;
                m.serialize_entry("altitude", &p.altitude)?;
                m.serialize_entry("time", &p.time)?;
            }
            App::User(u) => {
                m.serialize_entry("type", "user")?;
                m.serialize_entry("id", &u.id)?;
                m.serialize_entry("long_name", &u.long_name)?;
                m.serialize_entry("short_name", &u.short_name)?;
                m.serialize_entry("hw_model", &u.hw_model)?;
                m.serialize_entry("role", &u.role)?;
                m.serialize_entry("is_licensed", &u.is_licensed)?;
                m.serialize_entry("public_key", &Hex(&u.public_key))?;
            }
            App::KeyVerification(k) => {
                m.serialize_entry("type", "key_verification")?;
                m.serialize_entry("nonce", &k.nonce)?;
                m.serialize_entry("hash1", &Hex(&k.hash1))?;
                m.serialize_entry("hash2", &Hex(&k.hash2))?;
            }
        }
        m.end()
    }
}
