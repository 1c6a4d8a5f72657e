//! What the gateway hands the store for one MQTT message, and the checks
//! every record passes before it reaches a batch: lengths capped, text made
//! valid UTF-8 without NUL, numbers brought into the columns' ranges.
//!
//! Untrusted text (node names, text messages) arrives as the bytes the packet
//! carried. It is stored as TEXT after a lossy UTF-8 conversion: every invalid
//! sequence becomes U+FFFD, and so does U+0000 (PostgreSQL's TEXT cannot hold
//! it). The exact bytes of a text message stay in `packets.payload`. Every
//! value reaches the database as a statement parameter, never inside SQL.

use std::borrow::Cow;

/// Longest node name kept, in bytes of UTF-8 (the firmware's are 40 and 5).
pub const MAX_NAME: usize = 128;
/// Longest text message kept, in bytes of UTF-8.
pub const MAX_TEXT: usize = 1024;
/// Longest `Data.payload` kept, in bytes.
pub const MAX_PAYLOAD: usize = 1024;
/// Longest MQTT topic kept, in bytes of UTF-8.
pub const MAX_TOPIC: usize = 512;
/// Longest identifier kept (gateway id, channel id or name, state names).
pub const MAX_ID: usize = 64;

/// Everything stored for one decoded MQTT message: the packet (stored once
/// per (`from`, `key`) whichever gateway brought it), this reception of it
/// (stored once per gateway, relay and transport), and what the packet says
/// about its sender (merged into the `nodes` row of `packet.from`).
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The packet.
    pub packet: StoredPacket,
    /// This reception of the packet.
    pub reception: Reception,
    /// A NodeInfo's content, or a key learned from a PKC packet, about
    /// `packet.from`; `None` for other packets (the sender's last-seen time
    /// is updated from every record either way).
    pub node: Option<NodeUpdate>,
}

/// One row of `packets`. When several gateways bring one packet, the first
/// stored copy whose content was decoded (`portnum` is `Some`) is kept.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StoredPacket {
    /// `MeshPacket.from`: the sender's node number.
    pub from: u32,
    /// What makes copies of the packet one packet (the `packet_id` column):
    /// `MeshPacket.id`, or for a packet without an id a negative key of its
    /// content ([`PacketKey::as_i64`](wireseal::meshtastic::packet_key::PacketKey::as_i64)).
    pub key: i64,
    /// `MeshPacket.to`: the destination (`0xffffffff` for broadcasts).
    pub to: u32,
    /// `ServiceEnvelope.channel_id`: the channel named by the envelope
    /// (`PKI` for direct messages).
    pub channel_id: String,
    /// How the payload was read: `channel`, `pkc`, `plain` or `none`
    /// ([`Decryption::as_str`](wireseal::meshtastic::decoder::Decryption::as_str)).
    pub decryption: String,
    /// The configured channel whose key opened it, for `decryption` `channel`.
    pub channel_name: Option<String>,
    /// `Data.portnum`, when the packet was decoded.
    pub portnum: Option<u32>,
    /// `Data.payload`, when decoded (capped at [`MAX_PAYLOAD`] bytes).
    pub payload: Option<Vec<u8>>,
    /// The message of a text packet, as the bytes it carried.
    pub text: Option<Vec<u8>>,
    /// The signature state: `valid`, `invalid`, `absent` or `unknown_key`.
    pub signature: String,
    /// For a NodeInfo: whether the node number is the CRC-32 of the key it
    /// announces (`matches`, `mismatch`, `legacy`).
    pub identity: Option<String>,
    /// Why the packet was not decoded (the decoder's reason), if it was not.
    pub error: Option<String>,
    /// Which of our nodes a direct message was for.
    pub our_node: Option<u32>,
}

/// One row of `receptions`: one copy of a packet as one gateway heard it.
/// Copies with the same (`from`, `key`, `gateway_id`, `relay_node`,
/// `transport`) are one reception; the first one stored is kept.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reception {
    /// `ServiceEnvelope.gateway_id`: the node that published it.
    pub gateway_id: String,
    /// The MQTT topic it came on.
    pub topic: String,
    /// When this gateway took it from MQTT: Unix time in milliseconds (the
    /// gateway's clock).
    pub rx_time_ms: u64,
    /// `MeshPacket.rx_time`: Unix seconds on the receiving radio's clock.
    pub rx_time: Option<u32>,
    /// `MeshPacket.rx_rssi` in dBm.
    pub rssi: Option<i32>,
    /// `MeshPacket.rx_snr` in dB (stored as NULL when not finite).
    pub snr: Option<f32>,
    /// `MeshPacket.hop_start`.
    pub hop_start: Option<u32>,
    /// `MeshPacket.hop_limit`.
    pub hop_limit: Option<u32>,
    /// `MeshPacket.relay_node`: last byte of the relaying node, 0 unknown.
    pub relay_node: u32,
    /// `MeshPacket.transport_mechanism` (0 when the packet does not say).
    pub transport: i32,
}

/// What a packet says about its sender.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NodeUpdate {
    /// The X25519 public key it announces (`User.public_key`) or that opened
    /// its PKC packet. The first key stored for a node is pinned; other keys
    /// are kept in `node_keys` and counted in `nodes.key_conflicts`.
    pub public_key: Option<[u8; 32]>,
    /// `User.long_name`, as the bytes it carried.
    pub long_name: Option<Vec<u8>>,
    /// `User.short_name`, as the bytes it carried.
    pub short_name: Option<Vec<u8>>,
    /// Whether the node number is the CRC-32 of the key (`matches`,
    /// `mismatch`, `legacy`).
    pub identity: Option<String>,
}

/// A record after its checks: what the statements bind.
#[derive(Debug)]
pub(super) struct Clean<'a> {
    /// Its position in the batch handed to the store.
    pub index: usize,
    pub from: i64,
    pub id: i64,
    pub to: i64,
    pub channel_id: Cow<'a, str>,
    pub decryption: Cow<'a, str>,
    pub channel_name: Option<Cow<'a, str>>,
    pub portnum: Option<i64>,
    pub payload: Option<&'a [u8]>,
    pub text: Option<Cow<'a, str>>,
    pub signature: Cow<'a, str>,
    pub identity: Option<Cow<'a, str>>,
    pub error: Option<Cow<'a, str>>,
    pub our_node: Option<i64>,
    pub gateway_id: Cow<'a, str>,
    pub topic: Cow<'a, str>,
    pub rx_time_ms: i64,
    pub rx_time: Option<i64>,
    pub rssi: Option<i32>,
    pub snr: Option<f32>,
    pub hop_start: Option<i64>,
    pub hop_limit: Option<i64>,
    pub relay_node: i64,
    pub transport: i32,
    pub key: Option<&'a [u8; 32]>,
    pub long_name: Option<Cow<'a, str>>,
    pub short_name: Option<Cow<'a, str>>,
    pub node_identity: Option<Cow<'a, str>>,
    /// Whether the record carried a [`NodeUpdate`].
    pub has_update: bool,
}

/// Counts the fields that were shortened or rewritten.
#[derive(Debug, Default)]
pub(super) struct Caps(pub u64);

impl Caps {
    /// `s` without NUL and at most `max` bytes, cut at a character boundary.
    pub(super) fn text<'a>(&mut self, s: &'a str, max: usize) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(s);
        if s.contains('\0') {
            self.0 += 1;
            out = Cow::Owned(s.replace('\0', "\u{fffd}"));
        }
        if out.len() > max {
            self.0 += 1;
            let mut end = max;
            while !out.is_char_boundary(end) {
                end -= 1;
            }
            out = Cow::Owned(out[..end].to_owned());
        }
        out
    }

    /// Untrusted bytes as text: invalid UTF-8 becomes U+FFFD, then as
    /// [`Caps::text`].
    fn bytes<'a>(&mut self, b: &'a [u8], max: usize) -> Cow<'a, str> {
        match String::from_utf8_lossy(b) {
            Cow::Borrowed(s) => self.text(s, max),
            Cow::Owned(s) => {
                self.0 += 1;
                Cow::Owned(self.text(&s, max).into_owned())
            }
        }
    }

    fn opt_text<'a>(&mut self, s: &'a Option<String>, max: usize) -> Option<Cow<'a, str>> {
        s.as_deref().map(|s| self.text(s, max))
    }

    fn opt_bytes<'a>(&mut self, b: &'a Option<Vec<u8>>, max: usize) -> Option<Cow<'a, str>> {
        b.as_deref().map(|b| self.bytes(b, max))
    }
}

/// Checks one record: `Err` says why it cannot be stored.
pub(super) fn check<'a>(index: usize, r: &'a Record, caps: &mut Caps) -> Result<Clean<'a>, String> {
    let p = &r.packet;
    let x = &r.reception;
    let rx_time_ms = i64::try_from(x.rx_time_ms)
        .map_err(|_| format!("reception time {} ms is out of range", x.rx_time_ms))?;
    let payload = p.payload.as_deref().map(|b| {
        if b.len() > MAX_PAYLOAD {
            caps.0 += 1;
            &b[..MAX_PAYLOAD]
        } else {
            b
        }
    });
    let u = r.node.as_ref();
    Ok(Clean {
        index,
        from: p.from.into(),
        id: p.key,
        to: p.to.into(),
        channel_id: caps.text(&p.channel_id, MAX_ID),
        decryption: caps.text(&p.decryption, MAX_ID),
        channel_name: caps.opt_text(&p.channel_name, MAX_ID),
        portnum: p.portnum.map(i64::from),
        payload,
        text: caps.opt_bytes(&p.text, MAX_TEXT),
        signature: caps.text(&p.signature, MAX_ID),
        identity: caps.opt_text(&p.identity, MAX_ID),
        error: caps.opt_text(&p.error, MAX_ID),
        our_node: p.our_node.map(i64::from),
        gateway_id: caps.text(&x.gateway_id, MAX_ID),
        topic: caps.text(&x.topic, MAX_TOPIC),
        rx_time_ms,
        rx_time: x.rx_time.map(i64::from),
        rssi: x.rssi,
        snr: x.snr.filter(|v| v.is_finite()),
        hop_start: x.hop_start.map(i64::from),
        hop_limit: x.hop_limit.map(i64::from),
        relay_node: x.relay_node.into(),
        transport: x.transport,
        key: u.and_then(|u| u.public_key.as_ref()),
        long_name: u.and_then(|u| caps.opt_bytes(&u.long_name, MAX_NAME)),
        short_name: u.and_then(|u| caps.opt_bytes(&u.short_name, MAX_NAME)),
        node_identity: u.and_then(|u| caps.opt_text(&u.identity, MAX_ID)),
        has_update: u.is_some(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_capped_at_a_char_boundary_and_loses_nul() {
        let mut c = Caps::default();
        assert_eq!(c.text("abc", 3), "abc");
        assert_eq!(c.0, 0);
        // "é" is two bytes: a cap of 2 inside "aé" keeps only "a".
        assert_eq!(c.text("aé", 2), "a");
        assert_eq!(c.0, 1);
        assert_eq!(c.text("a\0b", 10), "a\u{fffd}b");
        assert_eq!(c.0, 2);
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        let mut c = Caps::default();
        assert_eq!(c.bytes(b"ok\xff\xfe", 64), "ok\u{fffd}\u{fffd}");
        assert_eq!(c.0, 1);
        assert_eq!(c.bytes("ünï".as_bytes(), 64), "ünï");
        assert_eq!(c.0, 1);
    }

    #[test]
    fn out_of_range_time_is_refused() {
        let mut r = Record {
            packet: StoredPacket::default(),
            reception: Reception::default(),
            node: None,
        };
        r.reception.rx_time_ms = u64::MAX;
        let e = check(0, &r, &mut Caps::default()).unwrap_err();
        assert!(e.contains("out of range"), "{e}");
        r.reception.rx_time_ms = 1;
        r.reception.snr = Some(f32::NAN);
        r.packet.payload = Some(vec![7; MAX_PAYLOAD + 5]);
        let mut caps = Caps::default();
        let c = check(0, &r, &mut caps).unwrap();
        assert_eq!(c.snr, None);
        assert_eq!(c.payload.unwrap().len(), MAX_PAYLOAD);
        assert_eq!(caps.0, 1);
    }
}
