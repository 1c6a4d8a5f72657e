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
//! [`Decoder::decode_batch`] spreads the work over the caller's
//! [`Batch`](crate::batch::Batch): every step is done on the threads against
//! the decoder as the batch found it (PKC keys the caches lack are derived
//! there too), and one pass in input order applies the writes (node table,
//! PKC cache, replay window, verifications kept) and redoes what an earlier
//! packet of the batch changed under it; the results and the decoder end up
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
mod ahead;
#[cfg(feature = "std")]
mod batch;
mod judge;
mod nodes;
mod outcome;
mod parse;
mod settle;
mod verified;

pub use nodes::{NodeKey, NodeTable, DEFAULT_NODE_CAPACITY};
pub use outcome::{Control, Decoded, Decryption, KeyEvent, Reception, Signature, Undecoded};

pub use super::identity::Identity;
pub use super::policy::{Concern, SignaturePolicy, Verdict};
/// The type of [`Decoded::channel_id`] and [`Decoded::gateway_id`]: a string
/// that holds up to 24 bytes inline, so a usual envelope's ids cost no
/// allocation (it dereferences to `&str`; `.into()` makes one from a
/// `&str` or a `String`).
pub use compact_str::CompactString;

use super::channel::{ChannelCipher, ChannelKey};
use super::envelope::{self, Head, Payload, ServiceEnvelope};
use super::pkc::PkcEngine;
use super::pkc_ahead::FreshKeys;
use super::replay::ReplayWindow;
use super::Error;
use crate::primitives::x25519::StaticSecret;
use ahead::Ahead;
use judge::Writes;
use parse::parse;

/// Peers whose PKC keys a decoder's engine caches by default.
pub const DEFAULT_PKC_PEERS: usize = 1024;

/// One configured channel.
#[derive(Debug, Clone)]
struct Channel {
    name: String,
    /// The key with its AES schedule made once (every packet of the
    /// channel's hash is tried under it).
    key: ChannelCipher,
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

/// What the stateless step leaves for the ordered one, beside the packet
/// itself.
#[derive(Debug, Default)]
struct Pending {
    /// A PKC direct message to one of our nodes.
    pkc: Option<Pkc>,
    /// The key a NodeInfo in the clear or on a channel announces.
    announced: Option<[u8; 32]>,
    /// The signature checked in the stateless step, and the key it was
    /// checked with.
    signature: Option<Checked>,
    /// In a batch: the packet was settled on a thread as the ordered step
    /// would settle it with the decoder as the batch found it (its `Data`
    /// opened, its signature, verdict and key conflict judged), and these
    /// are the writes to the node table that calls for.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    settled: Option<Writes>,
}

/// A PKC direct message to one of our nodes.
#[derive(Debug)]
struct Pkc {
    /// The index of our node's engine.
    engine: usize,
    /// `ciphertext | tag | extraNonce`.
    ciphertext: Vec<u8>,
    /// The key the packet announces (`MeshPacket.public_key`).
    offered: Option<[u8; 32]>,
    /// In a batch: the ciphertext opened ahead, not yet booked with the
    /// engine.
    ahead: Option<Ahead>,
}

impl Pkc {
    fn new(engine: usize, ciphertext: Vec<u8>, offered: Option<[u8; 32]>) -> Self {
        Self {
            engine,
            ciphertext,
            offered,
            ahead: None,
        }
    }
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
            key: key.into(),
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
    /// operator's number for the key, or
    /// [`node_number`](super::node_number) of its public key (the number
    /// firmware 2.8 derives).
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
        let (env, payload) = envelope::decode_in_place(envelope)?;
        Ok(self.decode_checked(now, env, payload))
    }

    /// [`Decoder::decode`] of an envelope already parsed (or built around a
    /// bare `MeshPacket`, [`envelope::decode_packet`]).
    ///
    /// # Errors
    /// [`envelope::check`]'s errors.
    pub fn decode_envelope(&mut self, now: u64, env: ServiceEnvelope) -> Result<Decoded, Error> {
        let (env, payload) = envelope::split(env)?;
        Ok(self.decode_checked(now, env, payload))
    }

    fn decode_checked(&mut self, now: u64, env: Head, payload: Payload<'_>) -> Decoded {
        let (mut d, mut pending) = parse(&self.channels, &self.nodes, &self.verified, env, payload);
        self.settle(now, &mut d, &mut pending, &mut FreshKeys::default());
        d
    }
}
