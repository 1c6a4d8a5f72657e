//! The decoder: parses a packet, verifies an advert, and opens what our
//! channels and identities can open, trying **every** candidate key.
//!
//! The firmware stops at the first channel or peer whose 2-byte MAC
//! matches. Here every channel with the packet's hash and every
//! (identity, peer) pair with its hashes is tried; a plaintext counts only
//! when its MAC verifies and its structure holds (`plaintext`), and when
//! two candidates both pass, neither is reported (the packet stays
//! undecrypted rather than attributed to the wrong key). Shared secrets
//! come from one [`SharedSecretCache`] per identity, keyed by the peer's
//! whole key.

use super::advert::{verify_advert, verify_advert_with, AdvertData};
use super::channel::ChannelKey;
use super::cipher::CipherKey;
use super::decoded::*;
use super::error::Error;
use super::identity::{LocalIdentity, PublicIdentity};
use super::packet::{Packet, PayloadType};
use super::payload::{ack_checksum, AdvertPayload, AnonReqPayload, GroupPayload, PeerPayload};
use super::plaintext::{parse_direct_text, parse_group_data, parse_group_text, Text};
use super::{MAX_PACKET_PAYLOAD, PUB_KEY_SIZE};
use crate::cache::SharedSecretCache;
use crate::prelude::{String, ToString, Vec};
use crate::secret::Secret;

/// Shared secrets cached per identity unless the caller says otherwise.
pub const DEFAULT_CACHE_CAPACITY: usize = 1024;
/// Known peers kept unless the caller says otherwise.
pub const DEFAULT_PEER_LIMIT: usize = 65_536;

struct Ours {
    id: LocalIdentity,
    cache: SharedSecretCache<CipherKey>,
}

/// Decodes MeshCore packets with the channels, identities and peers it
/// holds. Memory is bounded: the caches by their capacity, the peers by
/// [`Decoder::with_limits`].
pub struct Decoder {
    channels: Vec<ChannelKey>,
    ours: Vec<Ours>,
    /// Sorted by key, so the peers of one hash are one run.
    peers: Vec<PublicIdentity>,
    cache_capacity: usize,
    peer_limit: usize,
}

impl core::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Decoder")
            .field("channels", &self.channels.len())
            .field("identities", &self.ours.len())
            .field("peers", &self.peers.len())
            .finish_non_exhaustive()
    }
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    /// A decoder with no keys (it parses, hashes and verifies adverts).
    pub fn new() -> Self {
        Self::with_limits(DEFAULT_CACHE_CAPACITY, DEFAULT_PEER_LIMIT)
    }

    /// A decoder whose caches hold `cache_capacity` secrets per identity
    /// and which keeps at most `peer_limit` peers.
    pub fn with_limits(cache_capacity: usize, peer_limit: usize) -> Self {
        Self {
            channels: Vec::new(),
            ours: Vec::new(),
            peers: Vec::new(),
            cache_capacity,
            peer_limit,
        }
    }

    /// Adds a channel; returns its position (what [`GroupOpened::channel`]
    /// reports).
    pub fn add_channel(&mut self, key: ChannelKey) -> usize {
        self.channels.push(key);
        self.channels.len() - 1
    }

    /// The channels, in the order they were added.
    pub fn channels(&self) -> &[ChannelKey] {
        &self.channels
    }

    /// Adds one of our identities (packets to it are opened).
    pub fn add_identity(&mut self, id: LocalIdentity) {
        let cache = SharedSecretCache::new(id.public().as_bytes(), self.cache_capacity);
        self.ours.push(Ours { id, cache });
    }

    /// Our identities' public keys.
    pub fn identities(&self) -> impl Iterator<Item = &PublicIdentity> {
        self.ours.iter().map(|o| o.id.public())
    }

    /// Adds a peer whose messages to us are opened. Returns false when it
    /// was known already or the peer limit is reached (nothing added).
    pub fn add_peer(&mut self, peer: PublicIdentity) -> bool {
        match self
            .peers
            .binary_search_by(|p| p.as_bytes().cmp(peer.as_bytes()))
        {
            Ok(_) => false,
            Err(_) if self.peers.len() >= self.peer_limit => false,
            Err(i) => {
                self.peers.insert(i, peer);
                true
            }
        }
    }

    /// The known peers, ordered by key.
    pub fn peers(&self) -> &[PublicIdentity] {
        &self.peers
    }

    /// Decodes one received packet. `now` (milliseconds, any epoch) ages
    /// the shared-secret caches.
    ///
    /// # Errors
    /// As [`Packet::parse`]: a packet the firmware drops. A well-formed
    /// packet that nothing opens is `Ok` with nothing opened.
    pub fn decode(&mut self, now: u64, raw: &[u8]) -> Result<Decoded, Error> {
        let packet = Packet::parse(raw)?;
        let body = match packet.payload_type {
            PayloadType::TxtMsg | PayloadType::Req | PayloadType::Response | PayloadType::Path => {
                Body::Peer(self.peer(now, &packet)?)
            }
            PayloadType::AnonReq => Body::AnonReq(self.anon_req(now, &packet)?),
            _ => self.stateless_body(&packet)?,
        };
        Ok(decoded(&packet, body))
    }

    /// Decodes many packets, results in input order and identical to
    /// [`Decoder::decode`] one at a time: parsing, advert verification and
    /// group packets run across `batch`'s threads; packets between peers
    /// (which use and fill the shared-secret caches) follow on the calling
    /// thread.
    ///
    /// # Errors
    /// Each packet's result is its own, as [`Decoder::decode`]'s.
    #[cfg(feature = "std")]
    pub fn decode_batch(
        &mut self,
        batch: &crate::batch::Batch,
        now: u64,
        packets: &[&[u8]],
    ) -> Vec<Result<Decoded, Error>> {
        // A packet and its result when the threads could settle it.
        type Slot<'a> = (&'a [u8], Option<Result<Decoded, Error>>);
        let mut slots: Vec<Slot<'_>> = packets.iter().map(|p| (*p, None)).collect();
        let this = &*self;
        batch.for_each_mut(&mut slots, |(raw, out)| {
            *out = match Packet::parse(raw) {
                Err(e) => Some(Err(e)),
                Ok(p) if needs_state(p.payload_type) => None,
                Ok(p) => Some(this.stateless_body(&p).map(|b| decoded(&p, b))),
            };
        });
        slots
            .into_iter()
            .map(|(raw, out)| out.unwrap_or_else(|| self.decode(now, raw)))
            .collect()
    }

    /// The body of a packet that needs no cache: an advert, a group packet,
    /// an ACK, or a type carried as it is.
    fn stateless_body(&self, packet: &Packet<'_>) -> Result<Body, Error> {
        Ok(match packet.payload_type {
            PayloadType::Advert => Body::Advert(self.advert(packet)?),
            PayloadType::GrpTxt | PayloadType::GrpData => Body::Group(self.group(packet)?),
            PayloadType::Ack => Body::Ack(ack_checksum(packet)?),
            _ => Body::Other(packet.payload.to_vec()),
        })
    }

    /// A known peer's identity, its point decompressed once.
    fn known(&self, key: &[u8; PUB_KEY_SIZE]) -> Option<&PublicIdentity> {
        self.peers
            .binary_search_by(|p| p.as_bytes().cmp(key))
            .ok()
            .map(|i| &self.peers[i])
    }

    /// An advert, verified with the known peer's key when the node is
    /// known (its point already decompressed).
    fn advert(&self, packet: &Packet<'_>) -> Result<Advert, Error> {
        let a = AdvertPayload::of(packet)?;
        let data = AdvertData::parse(a.app_data).map(|d| AdvertFields {
            node_type: d.node_type,
            location: d.location,
            feat1: d.feat1,
            feat2: d.feat2,
            name: d.name_str().map(ToString::to_string),
        });
        let signature_valid = match self.known(a.public_key) {
            Some(id) => verify_advert_with(id, &a),
            None => verify_advert(&a),
        };
        Ok(Advert {
            public_key: *a.public_key,
            timestamp: a.timestamp,
            signature_valid,
            data,
        })
    }

    fn group(&self, packet: &Packet<'_>) -> Result<Group, Error> {
        let g = GroupPayload::of(packet)?;
        let mut found: Option<GroupOpened> = None;
        let mut matches = 0;
        let mut pt = Secret::<MAX_PACKET_PAYLOAD>::new([0u8; MAX_PACKET_PAYLOAD]);
        for (i, ch) in self.channels.iter().enumerate() {
            if ch.hash() != g.channel_hash {
                continue;
            }
            let Ok(n) = ch.cipher().open_into(g.sealed, pt.expose_mut()) else {
                continue;
            };
            let content = match packet.payload_type {
                PayloadType::GrpTxt => {
                    parse_group_text(&pt.expose()[..n]).map(|t| GroupContent::Text(message(&t)))
                }
                _ => parse_group_data(&pt.expose()[..n]).map(|d| GroupContent::Data {
                    data_type: d.data_type,
                    data: d.data.to_vec(),
                }),
            };
            if let Some(content) = content {
                matches += 1;
                found = Some(GroupOpened {
                    channel: i,
                    content,
                });
            }
        }
        Ok(Group {
            channel_hash: g.channel_hash,
            opened: found.filter(|_| matches == 1),
        })
    }

    fn peer(&mut self, now: u64, packet: &Packet<'_>) -> Result<Peer, Error> {
        let p = PeerPayload::of(packet)?;
        let start = self.peers.partition_point(|k| k.hash() < p.src_hash);
        let end = self.peers.partition_point(|k| k.hash() <= p.src_hash);
        let mut found: Option<PeerOpened> = None;
        let mut matches = 0;
        let mut pt = Secret::<MAX_PACKET_PAYLOAD>::new([0u8; MAX_PACKET_PAYLOAD]);
        for ours in self
            .ours
            .iter_mut()
            .filter(|o| o.id.public().hash() == p.dest_hash)
        {
            for peer in &self.peers[start..end] {
                let Ok(cipher) = ours
                    .cache
                    .get_or_try_insert_with(now, peer.as_bytes(), |_| {
                        super::direct::peer_cipher(&ours.id, peer)
                    })
                else {
                    continue;
                };
                let Ok(n) = cipher.open_into(p.sealed, pt.expose_mut()) else {
                    continue;
                };
                if let Some(content) = peer_content(packet.payload_type, &pt.expose()[..n]) {
                    matches += 1;
                    found = Some(PeerOpened {
                        from: *peer.as_bytes(),
                        to: *ours.id.public().as_bytes(),
                        content,
                    });
                }
            }
        }
        Ok(Peer {
            dest_hash: p.dest_hash,
            src_hash: p.src_hash,
            opened: found.filter(|_| matches == 1),
        })
    }

    fn anon_req(&mut self, now: u64, packet: &Packet<'_>) -> Result<AnonReq, Error> {
        let a = AnonReqPayload::of(packet)?;
        let mut found = None;
        let mut matches = 0;
        if let Ok(sender) = PublicIdentity::from_bytes(a.sender) {
            let mut pt = Secret::<MAX_PACKET_PAYLOAD>::new([0u8; MAX_PACKET_PAYLOAD]);
            for ours in self
                .ours
                .iter_mut()
                .filter(|o| o.id.public().hash() == a.dest_hash)
            {
                let Ok(cipher) = ours.cache.get_or_try_insert_with(now, a.sender, |_| {
                    super::direct::peer_cipher(&ours.id, &sender)
                }) else {
                    continue;
                };
                let Ok(n) = cipher.open_into(a.sealed, pt.expose_mut()) else {
                    continue;
                };
                let (ts, data) = pt.expose()[..n].split_at(4);
                matches += 1;
                found = Some(AnonOpened {
                    to: *ours.id.public().as_bytes(),
                    timestamp: u32::from_le_bytes(ts.try_into().expect("4 bytes")),
                    data: data.to_vec(),
                });
            }
        }
        Ok(AnonReq {
            dest_hash: a.dest_hash,
            sender: *a.sender,
            opened: found.filter(|_| matches == 1),
        })
    }
}

/// Whether a packet's type opens through the shared-secret caches.
#[cfg(feature = "std")]
fn needs_state(t: PayloadType) -> bool {
    matches!(
        t,
        PayloadType::TxtMsg
            | PayloadType::Req
            | PayloadType::Response
            | PayloadType::Path
            | PayloadType::AnonReq
    )
}

fn decoded(packet: &Packet<'_>, body: Body) -> Decoded {
    Decoded {
        route: packet.route,
        payload_type: packet.payload_type,
        transport_codes: packet.transport_codes,
        path_hash_size: packet.path_len.hash_size(),
        path: packet.path.to_vec(),
        hash: packet.hash(),
        payload_len: packet.payload.len(),
        body,
    }
}

fn message(t: &Text<'_>) -> Message {
    Message {
        timestamp: t.timestamp,
        text_type: t.text_type,
        attempt: t.attempt,
        sender_prefix: t.sender_prefix,
        text: String::from(t.text),
    }
}

/// A peer plaintext's content when its structure holds: a text message's
/// text; a returned path whose length byte is valid and fits; a request or
/// response as it is (they carry no structure to check beyond the MAC).
fn peer_content(payload_type: PayloadType, pt: &[u8]) -> Option<PeerContent> {
    match payload_type {
        PayloadType::TxtMsg => parse_direct_text(pt).map(|t| PeerContent::Text(message(&t))),
        PayloadType::Path => {
            let (&len, rest) = pt.split_first()?;
            let path_len = super::packet::PathLen::from_byte(len).ok()?;
            (rest.len() > path_len.byte_len()).then(|| PeerContent::Data(pt.to_vec()))
        }
        _ => Some(PeerContent::Data(pt.to_vec())),
    }
}
