//! [`Meshcore`]: the MeshCore feeds' state between messages. One step per
//! message: read it ([`feed`](super::feed)), parse and decode its packet
//! with the library's decoder, remember the packet by its hash (so the
//! copies other observers publish cost no second decryption or signature
//! check, and share the first copy's flood decision), add the key of a
//! verified advert to the decoder's peers, and pass the flood guard.

use super::feed::{self, Observed};
use crate::counters::{meshcore_type_index, Counters};
use crate::flood::{FloodGuard, FloodLimits};
use crate::setup::MeshcoreSetup;
use crate::sink::Heard;
use std::collections::{HashMap, VecDeque};
use wireseal::meshcore::{Body, Decoded, Decoder, Packet, PayloadType, PublicIdentity};
use wireseal::meshtastic::untrusted::UNUSABLE_LABEL;

/// Packets remembered by hash at most.
const SEEN: usize = 16_384;

/// A packet taken: decoded, and this reception of it.
#[derive(Debug)]
pub(crate) struct Taken {
    /// The packet.
    pub decoded: Decoded,
    /// This reception.
    pub heard: Heard,
}

/// Why a message gave no packet: a reason of
/// [`MESHCORE_DROPS`](crate::counters::MESHCORE_DROPS), and whether it is worth a
/// (rate-limited) log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dropped {
    pub reason: &'static str,
    pub log: bool,
}

/// A packet seen lately: its bytes (what makes a copy a copy), what the
/// decoder made of them, and the flood guard's decision.
struct Entry {
    payload_type: PayloadType,
    payload: Vec<u8>,
    body: Body,
    /// The decoder's peers when `body` was made.
    generation: u64,
    admitted: bool,
}

/// The packets seen lately, by hash; the oldest forgotten first.
#[derive(Default)]
struct Seen {
    entries: HashMap<[u8; 8], Entry>,
    order: VecDeque<[u8; 8]>,
}

impl Seen {
    fn insert(&mut self, hash: [u8; 8], e: Entry) {
        if self.entries.len() >= SEEN {
            if let Some(old) = self.order.pop_front() {
                self.entries.remove(&old);
            }
        }
        if self.entries.insert(hash, e).is_none() {
            self.order.push_back(hash);
        }
    }
}

/// The MeshCore feeds' state.
pub(crate) struct Meshcore {
    /// The topic filters whose messages are MeshCore's.
    pub filters: Vec<String>,
    /// The library's decoder: our channels, identities and known peers.
    pub decoder: Decoder,
    /// Each channel's name, in the decoder's order.
    pub channel_names: Vec<Option<String>>,
    seen: Seen,
    flood: FloodGuard,
    /// Bumped whenever a peer is added: packets to us from it may open now.
    generation: u64,
}

/// Whether a body is what any later decoding would make of the same bytes:
/// anything but a direct message or request nothing opened (a peer added
/// since may open it).
fn settled(b: &Body) -> bool {
    match b {
        Body::Peer(p) => p.opened.is_some(),
        Body::AnonReq(a) => a.opened.is_some(),
        _ => true,
    }
}

/// The flood guard's "node" for a packet: the first four bytes of its
/// sender's key when the packet proves it (a verified advert, a message
/// one of our identities opened), else the payload type and the one-byte
/// channel or node hash the packet names (senders the gateway cannot tell
/// apart share a bucket). A key's first byte is never 0 (MeshCore reserves
/// it), so the two kinds never meet.
fn bucket(d: &Decoded) -> u32 {
    let proven = match &d.body {
        Body::Advert(a) if a.signature_valid => Some(&a.public_key),
        Body::Peer(p) => p.opened.as_ref().map(|o| &o.from),
        Body::AnonReq(a) => a.opened.as_ref().map(|_| &a.sender),
        _ => None,
    };
    if let Some(k) = proven {
        return u32::from_be_bytes([k[0], k[1], k[2], k[3]]);
    }
    let hash = match &d.body {
        Body::Group(g) => g.channel_hash,
        Body::Peer(p) => p.src_hash,
        Body::AnonReq(a) => a.dest_hash,
        Body::Advert(a) => a.public_key[0],
        _ => 0,
    };
    (u32::from(d.payload_type.bits()) << 8) | u32::from(hash)
}

/// Whether something of ours opened the body.
fn opened(b: &Body) -> bool {
    match b {
        Body::Group(g) => g.opened.is_some(),
        Body::Peer(p) => p.opened.is_some(),
        Body::AnonReq(a) => a.opened.is_some(),
        _ => false,
    }
}

impl Meshcore {
    /// The state of a new run: `setup`'s decoder, and a flood guard of its
    /// own with `limits`.
    pub fn new(setup: MeshcoreSetup, limits: FloodLimits) -> Self {
        Self {
            filters: setup.filters,
            decoder: setup.decoder,
            channel_names: setup.channel_names,
            seen: Seen::default(),
            flood: FloodGuard::new(limits),
            generation: 0,
        }
    }

    /// Whether a message on `topic` is MeshCore's.
    pub fn claims(&self, topic: &str) -> bool {
        self.filters
            .iter()
            .any(|f| super::topics::matches(f, topic))
    }

    /// The name of the channel that opened `d`, if one did and has a name.
    pub fn channel_name(&self, d: &Decoded) -> Option<&str> {
        match &d.body {
            Body::Group(g) => g
                .opened
                .as_ref()
                .and_then(|o| self.channel_names.get(o.channel)?.as_deref()),
            _ => None,
        }
    }

    /// One message of a MeshCore feed, at `now` (milliseconds on the
    /// gateway's clock): its packet and this reception, or why there is
    /// none. Counted in `c`.
    pub fn take(
        &mut self,
        now: u64,
        topic: &str,
        payload: &[u8],
        c: &Counters,
    ) -> Result<Taken, Dropped> {
        let m = &c.meshcore;
        m.messages.bump();
        let drop = |reason: &'static str, log: bool| {
            m.drop_for(reason);
            Dropped { reason, log }
        };
        let o = feed::read(topic, payload).map_err(|r| drop(r.as_str(), true))?;
        let (decoded, copy) = self.decode(now, &o).map_err(|e| drop(e.reason(), true))?;
        let t = meshcore_type_index(decoded.payload_type);
        m.packets.bump_at(t);
        if opened(&decoded.body) {
            m.decrypted.bump_at(t);
        }
        if copy.is_some() {
            m.duplicates.bump();
        }
        if let Body::Advert(a) = &decoded.body {
            self.learn(a, c);
        }
        let admitted = match copy {
            Some(admitted) => admitted,
            None => {
                let key = i64::from_be_bytes(decoded.hash);
                let admitted = self.flood.admit(now, bucket(&decoded), key);
                if let Some(e) = self.seen.entries.get_mut(&decoded.hash) {
                    e.admitted = admitted;
                }
                admitted
            }
        };
        if !admitted {
            c.flood_refused.bump();
            return Err(drop("flood", false));
        }
        m.receptions.bump();
        let observer = match o.observer {
            Some(k) => hex::encode(k),
            None => {
                c.unusable_ids.bump();
                UNUSABLE_LABEL.to_owned()
            }
        };
        let heard = Heard {
            observer,
            snr: o.snr,
            rssi: o.rssi,
            direction: o.direction,
        };
        Ok(Taken { decoded, heard })
    }

    /// The packet of `o`, decoded (or, for a copy of a packet seen lately,
    /// what its first copy decoded to), and for a copy the first copy's
    /// flood decision.
    fn decode(
        &mut self,
        now: u64,
        o: &Observed<'_>,
    ) -> Result<(Decoded, Option<bool>), wireseal::meshcore::Error> {
        let p = Packet::parse(&o.raw)?;
        let hash = p.hash();
        let known = self
            .seen
            .entries
            .get(&hash)
            .filter(|e| e.payload_type == p.payload_type && e.payload == p.payload);
        let copy = known.map(|e| e.admitted);
        if let Some(e) = known.filter(|e| e.generation == self.generation || settled(&e.body)) {
            let d = Decoded {
                route: p.route,
                payload_type: p.payload_type,
                transport_codes: p.transport_codes,
                path_hash_size: p.path_len.hash_size(),
                path: p.path.to_vec(),
                hash,
                payload_len: p.payload.len(),
                body: e.body.clone(),
            };
            return Ok((d, copy));
        }
        let d = self.decoder.decode(now, &o.raw)?;
        match (copy, self.seen.entries.get_mut(&hash)) {
            (Some(_), Some(e)) => {
                // A copy decoded again after a peer was added.
                e.body = d.body.clone();
                e.generation = self.generation;
            }
            (None, Some(_)) => {} // Another packet with this hash: the first one stays.
            (_, None) => self.seen.insert(
                hash,
                Entry {
                    payload_type: p.payload_type,
                    payload: p.payload.to_vec(),
                    body: d.body.clone(),
                    generation: self.generation,
                    admitted: true,
                },
            ),
        }
        Ok((d, copy))
    }

    /// A verified advert's key becomes a peer (until the peer limit).
    fn learn(&mut self, a: &wireseal::meshcore::Advert, c: &Counters) {
        if !a.signature_valid {
            return;
        }
        let Ok(peer) = PublicIdentity::from_bytes(&a.public_key) else {
            return;
        };
        let known = self
            .decoder
            .peers()
            .binary_search_by(|p| p.as_bytes().cmp(peer.as_bytes()))
            .is_ok();
        if known {
            return;
        }
        if self.decoder.add_peer(peer) {
            self.generation += 1;
            c.meshcore.peers.set(self.decoder.peers().len() as u64);
        } else {
            c.meshcore.peers_refused.bump();
        }
    }

    /// Forgets the flood guard's refusals since the last call (they are
    /// counted in `meshcore.dropped`).
    pub fn tick(&mut self, now: u64) {
        let _ = self.flood.report(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wireseal::meshcore::{encode_advert, AdvertOut, ChannelKey, LocalIdentity, NodeType};

    fn state() -> Meshcore {
        let mut decoder = Decoder::new();
        decoder.add_channel(ChannelKey::public());
        Meshcore::new(
            MeshcoreSetup {
                filters: vec!["meshcore/#".into()],
                decoder,
                channel_names: vec![Some("public".into())],
            },
            FloodLimits {
                rate: 1.0,
                burst: 2,
                ..FloodLimits::default()
            },
        )
    }

    fn json(raw: &[u8], observer: u8) -> Vec<u8> {
        format!(
            r#"{{"type":"PACKET","direction":"rx","raw":"{}","SNR":"5.5","RSSI":"-90","origin_id":"{}"}}"#,
            hex::encode_upper(raw),
            hex::encode([observer; 32])
        )
        .into_bytes()
    }

    #[test]
    fn copies_share_the_first_decoding_and_its_flood_decision() {
        let mut s = state();
        let c = Counters::default();
        let mut buf = [0u8; 255];
        let ch = ChannelKey::public();
        let texts: Vec<Vec<u8>> = (0..4)
            .map(|i| {
                let n = ch
                    .encode_group_text(1_700_000_000 + i, &format!("A: {i}"), &mut buf)
                    .unwrap();
                buf[..n].to_vec()
            })
            .collect();
        // Burst 2: the first two packets pass, every copy of them too; the
        // third is refused, and so are its copies.
        for (i, t) in texts.iter().take(3).enumerate() {
            for obs in 1..=3u8 {
                let r = s.take(0, "meshcore/SEA/x/packets", &json(t, obs), &c);
                assert_eq!(r.is_ok(), i < 2, "packet {i}, observer {obs}");
                if let Ok(t) = r {
                    assert_eq!(t.heard.observer, hex::encode([obs; 32]));
                    assert_eq!(s.channel_name(&t.decoded), Some("public"));
                }
            }
        }
        let m = &c.meshcore;
        assert_eq!(m.messages.get(), 9);
        assert_eq!(m.duplicates.get(), 6);
        assert_eq!(m.receptions.get(), 6);
        assert_eq!(m.dropped.get("flood"), 3);
        assert_eq!(m.decrypted.get("grp_txt"), 9);
    }

    #[test]
    fn a_verified_advert_makes_a_peer_and_a_forged_one_does_not() {
        let mut s = state();
        let c = Counters::default();
        let alice = LocalIdentity::generate();
        let mut buf = [0u8; 255];
        let advert = AdvertOut {
            node_type: NodeType::Chat,
            location: None,
            name: "Alice",
        };
        let n = encode_advert(&alice, 1_700_000_000, &advert, &mut buf).unwrap();
        let mut forged = buf[..n].to_vec();
        forged[n - 1] ^= 1;
        assert!(s.take(0, "raw", &forged, &c).is_ok());
        assert!(s.decoder.peers().is_empty());
        assert!(s.take(0, "raw", &buf[..n], &c).is_ok());
        assert_eq!(s.decoder.peers(), [*alice.public()]);
        assert_eq!(c.meshcore.peers.get(), 1);
        // A reserved hash size is refused by the library's name.
        let e = s.take(0, "raw", &[0x15, 0xc1, 0, 0, 0, 0], &c).unwrap_err();
        assert_eq!(e.reason, "reserved_hash_size");
        assert_eq!(c.meshcore.dropped.get("reserved_hash_size"), 1);
    }
}
