//! A sans-IO decoder for a Meshtastic MQTT feed: envelope bytes and `now` in,
//! [`Decoded`] packets out.
//!
//! For every envelope the [`Decoder`]:
//! 1. decodes the `ServiceEnvelope` ([`super::envelope::decode`], size-capped);
//! 2. decrypts the `MeshPacket`: channel packets with the configured channels
//!    whose hash matches (several channels may share a hash: each is tried,
//!    the one named by the envelope's `channel_id` first, and the first whose
//!    plaintext parses as `Data` with a non-zero portnum wins); PKC direct
//!    messages (published under the `PKI` topic, or channel hash 0 and
//!    addressed to our node) through a [`PkcEngine`] and its shared-secret
//!    cache, while PKC packets to other nodes are reported without any key
//!    agreement;
//! 3. checks `Data.xeddsa_signature` ([`super::xeddsa`]) with the sender's
//!    pinned key, or, for a signed NodeInfo from a node without one, with
//!    the key it announces when that key hashes to the sender's number
//!    ([`super::identity`]); the last 4,096 results are kept, keyed by a
//!    digest of the key and everything the check reads, so the copies of
//!    one signed packet that several gateways uplink are verified once;
//! 4. applies the signature policy ([`SignaturePolicy`], the firmware's
//!    `packet_signature_policy`): [`Decoded::verdict`] says whether a node
//!    with that policy accepts, flags or drops the packet;
//! 5. learns node keys from NodeInfo packets (`User.public_key`) and from
//!    `MeshPacket.public_key` of PKC packets that opened: the first key seen
//!    for a node is pinned, a different one later is reported
//!    ([`KeyEvent::Conflict`]) and never adopted; a node whose signature
//!    verified is remembered as a signer;
//! 6. optionally refuses (sender, id) pairs already accepted
//!    ([`ReplayWindow`]), which also drops the copies of one packet that
//!    several gateways publish.
//!
//! [`Decoder::decode_batch`] spreads steps 1–3 (channel packets, PKC packets
//! whose sender key is already cached, signatures against the keys pinned
//! when the batch began) over the caller's [`Batch`](crate::batch::Batch);
//! the results, the node table, the PKC cache and the replay window end up
//! exactly as decoding one at a time leaves them.
//!
//! ```
//! use wireseal::meshtastic::decoder::{Decoder, Decryption};
//! use wireseal::meshtastic::envelope::{self, Data, MeshPacket, PayloadVariant, ServiceEnvelope};
//! use wireseal::meshtastic::ChannelKey;
//!
//! let mut decoder = Decoder::new();
//! decoder.add_channel("LongFast", &[1])?;
//! // A channel packet as a node would send it (AES-CTR under the default key).
//! let key: ChannelKey = "AQ==".parse()?;
//! let data = Data { portnum: 1, payload: b"hi".to_vec(), ..Default::default() };
//! let body = key.seal_to_vec(0x929, 7, &envelope::encode_data(&data))?;
//! let env = ServiceEnvelope {
//!     packet: Some(MeshPacket {
//!         from: 0x929, to: 0xffff_ffff, id: 7, channel: u32::from(key.hash("LongFast")),
//!         payload_variant: Some(PayloadVariant::Encrypted(body)),
//!         ..Default::default()
//!     }),
//!     channel_id: "LongFast".into(),
//!     gateway_id: "!00000929".into(),
//! };
//! let d = decoder.decode(0, &envelope::encode_to_vec(&env))?;
//! assert_eq!(d.decryption, Decryption::Channel(0));
//! assert_eq!(d.text(), Some("hi"));
//! # Ok::<(), wireseal::meshtastic::Error>(())
//! ```

#[allow(unused_imports)]
use crate::prelude::*;
mod batch;
mod nodes;
mod outcome;
mod settle;
mod verified;

pub use nodes::{NodeKey, NodeTable, DEFAULT_NODE_CAPACITY};
pub use outcome::{Control, Decoded, Decryption, KeyEvent, Reception, Signature, Undecoded};

pub use super::identity::Identity;
pub use super::policy::{Concern, SignaturePolicy, Verdict};

use super::channel::ChannelKey;
use super::envelope::{self, Data, PayloadVariant, ServiceEnvelope, NODEINFO_APP, PKI_CHANNEL_ID};
use super::identity::node_number;
use super::pkc::{PkcEngine, OVERHEAD};
use super::replay::ReplayWindow;
use super::xeddsa::{VerifyingKey, SIGNATURE_LEN};
use super::{Error, MAX_PAYLOAD_LEN};
use crate::primitives::x25519::StaticSecret;
use outcome::is_broadcast;
use verified::verify;

/// Peers whose PKC keys a decoder's engine caches by default.
pub const DEFAULT_PKC_PEERS: usize = 1024;

/// One configured channel.
#[derive(Debug, Clone)]
struct Channel {
    name: String,
    key: ChannelKey,
}

/// The configuration the stateless first step reads (shared across threads).
#[derive(Debug, Default)]
struct Channels {
    list: Vec<Channel>,
    /// Channel hash → indices into `list`, in configuration order.
    by_hash: Vec<Vec<usize>>,
    /// Our nodes' numbers, one per node key, in the order of the engines.
    our_nodes: Vec<u32>,
}

/// Decodes envelopes of one MQTT feed; see the [module docs](self).
#[derive(Debug)]
pub struct Decoder {
    channels: Channels,
    /// One engine per node of ours, in the order of `channels.our_nodes`.
    engines: Vec<PkcEngine>,
    nodes: NodeTable,
    replay: Option<ReplayWindow>,
    policy: SignaturePolicy,
    /// Signatures already verified (each copy of a signed packet that
    /// another gateway uplinked is verified once).
    verified: verified::Verified,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

/// What the first (stateless) step leaves for the second.
#[derive(Debug)]
struct Parsed {
    head: Decoded,
    /// A PKC ciphertext to one of our nodes (the index of its engine) and
    /// the key the packet announces.
    pkc: Option<(usize, Vec<u8>, Option<[u8; 32]>)>,
    /// That ciphertext opened ahead by a batch, not yet settled.
    ahead: Option<Box<batch::Ahead>>,
    /// The key a NodeInfo in the clear or on a channel announces.
    announced: Option<[u8; 32]>,
    /// The signature checked in the first step, and the key it was checked
    /// with.
    signature: Option<Checked>,
}

/// A signature verified in the stateless step.
#[derive(Debug, Clone, Copy)]
struct Checked {
    key: [u8; 32],
    valid: bool,
    /// What the verification read ([`verified::digest`]).
    digest: [u8; 32],
    /// Whether it was verified now (not found among the results kept).
    fresh: bool,
}

impl Decoder {
    /// A decoder with no channels, no node key, no replay window and the
    /// firmware's default signature policy ([`SignaturePolicy::Compatible`]).
    pub fn new() -> Self {
        Self {
            channels: Channels {
                by_hash: vec![Vec::new(); 256],
                ..Channels::default()
            },
            engines: Vec::new(),
            nodes: NodeTable::default(),
            replay: None,
            policy: SignaturePolicy::default(),
            verified: verified::Verified::default(),
        }
    }

    /// Adds a channel (its PSK as configured on the radio, expanded by
    /// [`ChannelKey::from_psk`]); returns its index.
    ///
    /// # Errors
    /// [`Error::InvalidPsk`] for a PSK over 32 bytes.
    pub fn add_channel(&mut self, name: &str, psk: &[u8]) -> Result<usize, Error> {
        Ok(self.add_channel_key(name, ChannelKey::from_psk(psk)?))
    }

    /// Adds a channel with its expanded key (for example from PSK text,
    /// `"AQ==".parse()`); returns its index.
    pub fn add_channel_key(&mut self, name: &str, key: ChannelKey) -> usize {
        let i = self.channels.list.len();
        self.channels.by_hash[usize::from(key.hash(name))].push(i);
        self.channels.list.push(Channel {
            name: name.to_owned(),
            key,
        });
        i
    }

    /// The name of channel `index`.
    pub fn channel_name(&self, index: usize) -> Option<&str> {
        self.channels.list.get(index).map(|c| c.name.as_str())
    }

    /// Our node: its number and key, for PKC direct messages addressed to it.
    /// The engine caches up to [`DEFAULT_PKC_PEERS`] senders; our own key is
    /// pinned in the node table. Several nodes may be ours
    /// ([`Decoder::add_node`]); this adds one.
    ///
    /// # Errors
    /// [`Error::UnclampedKey`] as [`PkcEngine::new`].
    pub fn with_node(mut self, node: u32, own: StaticSecret) -> Result<Self, Error> {
        self.add_node(node, own)?;
        Ok(self)
    }

    /// Adds a node of ours: PKC direct messages to `node` are opened with
    /// `own` through a cache of its own (up to [`DEFAULT_PKC_PEERS`]
    /// senders). A node already ours gets the new key. `node` is the
    /// operator's number for the key, or [`node_number`] of its public key
    /// (the number firmware 2.8 derives).
    ///
    /// # Errors
    /// [`Error::UnclampedKey`] as [`PkcEngine::new`].
    pub fn add_node(&mut self, node: u32, own: StaticSecret) -> Result<(), Error> {
        self.add_node_engine(node, PkcEngine::with_capacity(own, DEFAULT_PKC_PEERS)?);
        Ok(())
    }

    /// [`Decoder::with_node`] with an engine configured by the caller (cache
    /// size, TTL). The engine's own replay window should be off: the
    /// decoder's ([`Decoder::with_replay_window`]) covers every packet.
    pub fn with_node_engine(mut self, node: u32, engine: PkcEngine) -> Self {
        self.add_node_engine(node, engine);
        self
    }

    /// [`Decoder::add_node`] with an engine configured by the caller.
    pub fn add_node_engine(&mut self, node: u32, engine: PkcEngine) {
        let public = *engine.public_key();
        self.nodes.forget(node);
        self.nodes.offer(node, &public);
        match self.channels.our_nodes.iter().position(|&n| n == node) {
            Some(i) => self.engines[i] = engine,
            None => {
                self.channels.our_nodes.push(node);
                self.engines.push(engine);
            }
        }
    }

    /// Our nodes' numbers, in the order they were added.
    pub fn our_nodes(&self) -> &[u32] {
        &self.channels.our_nodes
    }

    /// Refuses (sender, id) pairs already accepted.
    pub fn with_replay_window(mut self, window: ReplayWindow) -> Self {
        self.replay = Some(window);
        self
    }

    /// Replaces the node table (to preload keys, or to bound it differently).
    pub fn with_node_table(mut self, nodes: NodeTable) -> Self {
        self.nodes = nodes;
        self
    }

    /// Judges packets as a node with `policy` would.
    pub fn with_signature_policy(mut self, policy: SignaturePolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The signature policy.
    pub fn signature_policy(&self) -> SignaturePolicy {
        self.policy
    }

    /// The node table.
    pub fn nodes(&self) -> &NodeTable {
        &self.nodes
    }

    /// The node table, to pin or forget keys.
    pub fn nodes_mut(&mut self) -> &mut NodeTable {
        &mut self.nodes
    }

    /// The PKC engine of our first node, for its cache counters.
    pub fn pkc_engine(&self) -> Option<&PkcEngine> {
        self.engines.first()
    }

    /// The PKC engine of our node `node`.
    pub fn pkc_engine_for(&self, node: u32) -> Option<&PkcEngine> {
        let i = self.channels.our_nodes.iter().position(|&n| n == node)?;
        self.engines.get(i)
    }

    /// Decodes one envelope. `now` is in milliseconds on the caller's clock
    /// (it ages the PKC cache when the engine has a TTL).
    ///
    /// # Errors
    /// Only when the envelope itself is unusable ([`envelope::decode`]'s
    /// errors); a packet that cannot be decrypted is an `Ok` whose
    /// [`Decoded::error`] says why.
    pub fn decode(&mut self, now: u64, envelope: &[u8]) -> Result<Decoded, Error> {
        Ok(self.decode_checked(now, envelope::decode(envelope)?))
    }

    /// [`Decoder::decode`] of an envelope already parsed (or built around a
    /// bare `MeshPacket`, [`envelope::decode_packet`]).
    ///
    /// # Errors
    /// [`envelope::check`]'s errors.
    pub fn decode_envelope(&mut self, now: u64, env: ServiceEnvelope) -> Result<Decoded, Error> {
        envelope::check(&env)?;
        Ok(self.decode_checked(now, env))
    }

    fn decode_checked(&mut self, now: u64, env: ServiceEnvelope) -> Decoded {
        let mut parsed = parse(&self.channels, &self.nodes, &self.verified, env);
        self.settle(now, &mut parsed);
        parsed.head
    }
}

/// The stateless step: envelope, channel trial decryption, routing of PKC,
/// and the signature against the key known now.
fn parse(
    channels: &Channels,
    nodes: &NodeTable,
    verified: &verified::Verified,
    env: ServiceEnvelope,
) -> Parsed {
    let packet = env.packet.expect("envelope::check passed");
    let mut head = Decoded {
        from: packet.from,
        to: packet.to,
        id: packet.id,
        channel_id: env.channel_id,
        gateway_id: env.gateway_id,
        channel_hash: packet.channel,
        reception: Reception {
            rx_time: packet.rx_time,
            rx_snr_bits: packet.rx_snr_bits,
            rx_rssi: packet.rx_rssi,
            hop_limit: packet.hop_limit,
            hop_start: packet.hop_start,
            relay_node: packet.relay_node,
            next_hop: packet.next_hop,
            via_mqtt: packet.via_mqtt,
            transport: packet.transport_mechanism,
            claimed_signed: packet.xeddsa_signed,
        },
        data: None,
        decryption: Decryption::None,
        signature: Signature::Absent,
        identity: None,
        verdict: None,
        key_event: None,
        our_node: None,
        error: None,
    };
    let mut pkc = None;
    match packet.payload_variant.expect("envelope::check passed") {
        PayloadVariant::Decoded(data) => {
            head.data = Some(data);
            head.decryption = Decryption::Plain;
        }
        PayloadVariant::Encrypted(ct) => {
            let ours = channels.our_nodes.iter().position(|&n| n == head.to);
            let offered = packet.public_key.as_slice().try_into().ok();
            if head.channel_id == PKI_CHANNEL_ID || packet.pki_encrypted {
                match ours {
                    None if channels.our_nodes.is_empty() => {
                        head.error = Some(Undecoded::NoNodeKey)
                    }
                    None => head.error = Some(Undecoded::NotForUs),
                    Some(i) => {
                        head.our_node = Some(head.to);
                        pkc = Some((i, ct, offered));
                    }
                }
            } else if let Some(i) = ours.filter(|_| {
                head.channel_hash == 0
                    && !is_broadcast(head.to)
                    && ct.len() > OVERHEAD
                    && channels.by_hash[0].is_empty()
            }) {
                // A direct message uplinked on a channel topic: the firmware
                // tries PKC for hash 0 addressed to it.
                head.our_node = Some(head.to);
                pkc = Some((i, ct, offered));
            } else {
                match try_channels(channels, &head, &ct) {
                    Ok((i, data)) => {
                        head.data = Some(data);
                        head.decryption = Decryption::Channel(i);
                    }
                    Err(e) => head.error = Some(e),
                }
            }
        }
    }
    let nodeinfo = head.data.as_ref().and_then(nodeinfo_key);
    let mut parsed = Parsed {
        announced: nodeinfo.flatten(),
        head,
        pkc,
        ahead: None,
        signature: None,
    };
    if let Some(key) = nodeinfo {
        parsed.head.identity = Some(identity(&parsed.head, key));
    }
    parsed.signature = check_ahead(nodes, verified, &parsed);
    parsed
}

/// The identity a NodeInfo reports for its sender.
fn identity(d: &Decoded, key: Option<[u8; 32]>) -> Identity {
    let signed = d
        .data
        .as_ref()
        .is_some_and(|data| data.xeddsa_signature.len() == SIGNATURE_LEN);
    Identity::of(d.from, key.as_ref(), signed)
}

/// Verifies a 64-byte signature with the sender's pinned key, or for a
/// first NodeInfo with the announced key when it hashes to the sender (the
/// result kept for an earlier copy, if there is one).
fn check_ahead(nodes: &NodeTable, verified: &verified::Verified, p: &Parsed) -> Option<Checked> {
    let d = &p.head;
    let data = d.data.as_ref()?;
    if data.xeddsa_signature.len() != SIGNATURE_LEN {
        return None;
    }
    let (key, vk) = match nodes.get(d.from) {
        Some(k) => (k.public_key, k.verifying_key),
        None => {
            let a = p.announced.filter(|a| node_number(a) == d.from)?;
            (a, VerifyingKey::from_x25519(&a).ok())
        }
    };
    let digest = verified::digest(&key, d.from, d.id, data);
    let (valid, fresh) = match verified.get(&digest) {
        Some(v) => (v, false),
        None => (verify(vk, d.from, d.id, data), true),
    };
    Some(Checked {
        key,
        valid,
        digest,
        fresh,
    })
}

/// Tries the channels with the packet's hash, the one the envelope names first.
fn try_channels(
    channels: &Channels,
    head: &Decoded,
    ct: &[u8],
) -> Result<(usize, Data), Undecoded> {
    let candidates = usize::try_from(head.channel_hash)
        .ok()
        .and_then(|h| channels.by_hash.get(h))
        .filter(|c| !c.is_empty())
        .ok_or(Undecoded::NoChannel)?;
    let named = candidates
        .iter()
        .filter(|&&i| channels.list[i].name == head.channel_id);
    let others = candidates
        .iter()
        .filter(|&&i| channels.list[i].name != head.channel_id);
    let mut buf = [0u8; MAX_PAYLOAD_LEN];
    let buf = &mut buf[..ct.len()];
    for &i in named.chain(others) {
        buf.copy_from_slice(ct);
        // `ct` is at most one LoRa payload (envelope::check), so this opens.
        if let Ok(plain) = channels.list[i].key.open_in_place(head.from, head.id, buf) {
            if let Ok(data) = envelope::decode_data(plain) {
                return Ok((i, data));
            }
        }
    }
    Err(Undecoded::WrongChannelKey)
}

/// For a NodeInfo packet whose payload is a `User`: the key it announces
/// (`User.public_key` when 32 bytes). `None` for any other packet.
fn nodeinfo_key(data: &Data) -> Option<Option<[u8; 32]>> {
    if data.portnum != NODEINFO_APP {
        return None;
    }
    let user = envelope::decode_user(&data.payload).ok()?;
    Some(user.public_key.as_slice().try_into().ok())
}
