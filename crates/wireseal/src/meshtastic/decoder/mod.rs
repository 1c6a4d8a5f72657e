//! A sans-IO decoder for a Meshtastic MQTT feed: envelope bytes and `now` in,
//! [`Decoded`] packets out.
//!
//! For every envelope the [`Decoder`]:
//! 1. decodes the `ServiceEnvelope` ([`super::envelope::decode`], size-capped);
//! 2. decrypts the `MeshPacket`: channel packets with the configured channels
//!    whose hash matches (several channels may share a hash: each is tried,
//!    the one named by the envelope's `channel_id` first, and the first whose
//!    plaintext parses as `Data` with a non-zero portnum wins); PKC direct
//!    messages (`channel_id` `PKI`) addressed to our node through a
//!    [`PkcEngine`] and its shared-secret cache, while PKC packets to other
//!    nodes are reported without any key agreement;
//! 3. learns node keys from NodeInfo packets (`User.public_key`) and from
//!    `MeshPacket.public_key` of PKC packets that opened: the first key seen
//!    for a node is pinned, a different one later is reported
//!    ([`KeyEvent::Conflict`]) and never adopted;
//! 4. verifies `Data.xeddsa_signature` with the sender's pinned key
//!    ([`super::xeddsa`]); a signed NodeInfo from a node seen for the first
//!    time is checked with the key it announces, and that key is pinned only
//!    when the signature is valid;
//! 5. optionally refuses (sender, id) pairs already accepted
//!    ([`ReplayWindow`]), which also drops the copies of one packet that
//!    several gateways publish.
//!
//! [`Decoder::decode_batch`] spreads steps 1–2 (channel packets, and PKC
//! packets whose sender key is already cached) and 4 over the caller's
//! [`Batch`](crate::batch::Batch); the results, the node table, the PKC
//! cache and the replay window end up exactly as decoding one at a time
//! leaves them.
//!
//! ```
//! use wireseal::meshtastic::decoder::{Decoder, Decryption};
//! use wireseal::meshtastic::envelope::{self, Data, MeshPacket, PayloadVariant, ServiceEnvelope};
//! use wireseal::meshtastic::ChannelKey;
//!
//! let mut decoder = Decoder::new();
//! decoder.add_channel("LongFast", &[1]).unwrap();
//! // A channel packet as a node would send it (AES-CTR under the default key).
//! let key = ChannelKey::from_psk(&[1]).unwrap();
//! let mut body = envelope::encode_data(&Data { portnum: 1, payload: b"hi".to_vec(), ..Default::default() });
//! key.seal_in_place(0x929, 7, &mut body);
//! let env = ServiceEnvelope {
//!     packet: Some(MeshPacket {
//!         from: 0x929, to: 0xffff_ffff, id: 7, channel: u32::from(key.hash("LongFast")),
//!         payload_variant: Some(PayloadVariant::Encrypted(body)),
//!         ..Default::default()
//!     }),
//!     channel_id: "LongFast".into(),
//!     gateway_id: "!00000929".into(),
//! };
//! let d = decoder.decode(0, &envelope::encode_to_vec(&env)).unwrap();
//! assert_eq!(d.decryption, Decryption::Channel(0));
//! assert_eq!(d.text(), Some("hi"));
//! ```

mod batch;
mod nodes;
mod outcome;

pub use nodes::{NodeKey, NodeTable, DEFAULT_NODE_CAPACITY};
pub use outcome::{Decoded, Decryption, KeyEvent, Signature, Undecoded};

use super::channel::ChannelKey;
use super::envelope::{self, Data, PayloadVariant, NODEINFO_APP, PKI_CHANNEL_ID};
use super::pkc::{PkcEngine, PkcPacket};
use super::replay::ReplayWindow;
use super::xeddsa::{SignedFields, VerifyingKey};
use super::{Error, MAX_PAYLOAD_LEN};
use crate::primitives::x25519::StaticSecret;
use zeroize::Zeroize;

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
    /// Our node number, when a node key is configured.
    our_node: Option<u32>,
}

/// Decodes envelopes of one MQTT feed; see the [module docs](self).
#[derive(Debug)]
pub struct Decoder {
    channels: Channels,
    pkc: Option<PkcEngine>,
    nodes: NodeTable,
    replay: Option<ReplayWindow>,
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
    /// A PKC ciphertext to our node and the key the packet announces.
    pkc: Option<(Vec<u8>, Option<[u8; 32]>)>,
    /// That ciphertext opened ahead by a batch, not yet settled.
    ahead: Option<Box<batch::Ahead>>,
    /// The key a NodeInfo in the clear or on a channel announces.
    announced: Option<[u8; 32]>,
    /// What the last step verifies (set by the second).
    check: Check,
}

/// The signature check the last step runs.
#[derive(Debug, Clone, Copy)]
enum Check {
    /// Nothing to verify; `Decoded::signature` is final.
    Settled,
    /// Verify with this key.
    With(VerifyingKey),
}

impl Decoder {
    /// A decoder with no channels, no node key and no replay window.
    pub fn new() -> Self {
        Self {
            channels: Channels {
                by_hash: vec![Vec::new(); 256],
                ..Channels::default()
            },
            pkc: None,
            nodes: NodeTable::default(),
            replay: None,
        }
    }

    /// Adds a channel (its PSK as configured on the radio: empty, one-byte
    /// index, 16 or 32 bytes); returns its index.
    ///
    /// # Errors
    /// [`Error::InvalidPsk`] for a PSK over 32 bytes.
    pub fn add_channel(&mut self, name: &str, psk: &[u8]) -> Result<usize, Error> {
        let key = ChannelKey::from_psk(psk)?;
        let i = self.channels.list.len();
        self.channels.by_hash[usize::from(key.hash(name))].push(i);
        self.channels.list.push(Channel {
            name: name.to_owned(),
            key,
        });
        Ok(i)
    }

    /// The name of channel `index`.
    pub fn channel_name(&self, index: usize) -> Option<&str> {
        self.channels.list.get(index).map(|c| c.name.as_str())
    }

    /// Our node: its number and key, for PKC direct messages addressed to it.
    /// The engine caches up to [`DEFAULT_PKC_PEERS`] senders; our own key is
    /// pinned in the node table.
    pub fn set_node(&mut self, node: u32, own: StaticSecret) {
        self.set_node_engine(node, PkcEngine::with_capacity(own, DEFAULT_PKC_PEERS));
    }

    /// [`Decoder::set_node`] with an engine configured by the caller (cache
    /// size, TTL). The engine's own replay window should be off: the
    /// decoder's ([`Decoder::set_replay_window`]) covers every packet.
    pub fn set_node_engine(&mut self, node: u32, engine: PkcEngine) {
        let public = *engine.public_key();
        self.nodes.forget(node);
        self.nodes.offer(node, &public);
        self.channels.our_node = Some(node);
        self.pkc = Some(engine);
    }

    /// Refuses (sender, id) pairs already accepted.
    pub fn set_replay_window(&mut self, window: ReplayWindow) {
        self.replay = Some(window);
    }

    /// Replaces the node table (to preload keys, or to bound it differently).
    pub fn set_node_table(&mut self, nodes: NodeTable) {
        self.nodes = nodes;
    }

    /// The node table.
    pub fn nodes(&self) -> &NodeTable {
        &self.nodes
    }

    /// The node table, to pin or forget keys.
    pub fn nodes_mut(&mut self) -> &mut NodeTable {
        &mut self.nodes
    }

    /// The PKC engine, for its cache counters.
    pub fn pkc_engine(&self) -> Option<&PkcEngine> {
        self.pkc.as_ref()
    }

    /// Decodes one envelope. `now` is in milliseconds on the caller's clock
    /// (it ages the PKC cache when the engine has a TTL).
    ///
    /// # Errors
    /// Only when the envelope itself is unusable ([`envelope::decode`]'s
    /// errors); a packet that cannot be decrypted is an `Ok` whose
    /// [`Decoded::error`] says why.
    pub fn decode(&mut self, now: u64, envelope: &[u8]) -> Result<Decoded, Error> {
        let mut parsed = parse(&self.channels, envelope)?;
        self.settle(now, &mut parsed);
        finish(&mut parsed);
        Ok(parsed.head)
    }

    /// The stateful step, in input order: PKC, node table, replay window;
    /// leaves the signature check for the last step in `parsed.check`.
    fn settle(&mut self, now: u64, parsed: &mut Parsed) {
        let d = &mut parsed.head;
        let mut announced = parsed.announced;
        if let Some((ciphertext, offered)) = parsed.pkc.take() {
            self.open_pkc(now, d, &ciphertext, offered, parsed.ahead.take());
            announced = d.data.as_ref().and_then(announced_key);
        }
        let Some(data) = &d.data else {
            return;
        };
        let mut check = Check::Settled;
        if data.xeddsa_signature.is_empty() {
            if let Some(k) = announced {
                d.key_event = d.key_event.or(self.nodes.offer(d.from, &k));
            }
        } else if let Some(pinned) = self.nodes.get(d.from).copied() {
            if let Some(k) = announced {
                d.key_event = d.key_event.or(self.nodes.offer(d.from, &k));
            }
            match pinned.verifying_key {
                Some(vk) => check = Check::With(vk),
                None => d.signature = Signature::Invalid,
            }
        } else if let Some(k) = announced {
            // First contact: a signed NodeInfo vouches for the key it carries.
            let valid = VerifyingKey::from_x25519(&k)
                .and_then(|vk| {
                    vk.verify(&signed_fields(d.from, d.id, data), &data.xeddsa_signature)
                })
                .is_ok();
            if valid {
                d.signature = Signature::Valid;
                d.key_event = d.key_event.or(self.nodes.offer(d.from, &k));
            } else {
                d.signature = Signature::Invalid;
            }
        } else {
            d.signature = Signature::UnknownKey;
        }
        if let Some(w) = &mut self.replay {
            if !w.accept(d.from, d.id) {
                d.error = Some(Undecoded::Replay);
            }
        }
        parsed.check = check;
    }

    /// Opens a PKC direct message to our node.
    fn open_pkc(
        &mut self,
        now: u64,
        d: &mut Decoded,
        ciphertext: &[u8],
        offered: Option<[u8; 32]>,
        ahead: Option<Box<batch::Ahead>>,
    ) {
        let Some(engine) = &mut self.pkc else {
            d.error = Some(Undecoded::NoNodeKey);
            return;
        };
        let (key, tentative) = match (self.nodes.get(d.from), offered) {
            (Some(k), Some(o)) if k.public_key != o => {
                d.key_event = Some(KeyEvent::Conflict {
                    node: d.from,
                    pinned: k.public_key,
                    offered: o,
                });
                (k.public_key, false)
            }
            (Some(k), _) => (k.public_key, false),
            (None, Some(o)) => (o, true),
            (None, None) => {
                d.error = Some(Undecoded::UnknownSender);
                return;
            }
        };
        let packet = PkcPacket {
            peer_public: &key,
            from: d.from,
            id: d.id,
        };
        let mut buf = [0u8; MAX_PAYLOAD_LEN];
        let decoded = match ahead.and_then(|a| (*a).settle(engine, packet)) {
            Some(decoded) => decoded,
            None => engine
                .open_into(now, packet, ciphertext, &mut buf)
                .and_then(|n| envelope::decode_data(&buf[..n])),
        };
        match decoded {
            Ok(data) => {
                d.data = Some(data);
                d.decryption = Decryption::Pkc;
                if tentative {
                    d.key_event = self.nodes.offer(d.from, &key);
                }
            }
            Err(e) => d.error = Some(Undecoded::Failed(e)),
        }
        buf.zeroize();
    }
}

/// The stateless step: envelope, channel trial decryption, routing of PKC.
fn parse(channels: &Channels, bytes: &[u8]) -> Result<Parsed, Error> {
    let env = envelope::decode(bytes)?;
    let packet = env.packet.expect("envelope::decode checked");
    let mut head = Decoded {
        from: packet.from,
        to: packet.to,
        id: packet.id,
        channel_id: env.channel_id,
        gateway_id: env.gateway_id,
        channel_hash: packet.channel,
        rx_time: packet.rx_time,
        hop_limit: packet.hop_limit,
        hop_start: packet.hop_start,
        data: None,
        decryption: Decryption::No,
        signature: Signature::Absent,
        key_event: None,
        error: None,
    };
    let mut pkc = None;
    match packet.payload_variant.expect("envelope::decode checked") {
        PayloadVariant::Decoded(data) => {
            head.data = Some(data);
            head.decryption = Decryption::Plain;
        }
        PayloadVariant::Encrypted(ct) => {
            if head.channel_id == PKI_CHANNEL_ID || packet.pki_encrypted {
                match channels.our_node {
                    None => head.error = Some(Undecoded::NoNodeKey),
                    Some(n) if n != head.to => head.error = Some(Undecoded::NotForUs),
                    Some(_) => {
                        let offered = packet.public_key.as_slice().try_into().ok();
                        pkc = Some((ct, offered));
                    }
                }
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
    Ok(Parsed {
        announced: head.data.as_ref().and_then(announced_key),
        head,
        pkc,
        ahead: None,
        check: Check::Settled,
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
        channels.list[i].key.open_in_place(head.from, head.id, buf);
        if let Ok(data) = envelope::decode_data(buf) {
            return Ok((i, data));
        }
    }
    Err(Undecoded::WrongChannelKey)
}

/// The key a NodeInfo packet announces (`User.public_key`, 32 bytes).
fn announced_key(data: &Data) -> Option<[u8; 32]> {
    if data.portnum != NODEINFO_APP {
        return None;
    }
    let user = envelope::decode_user(&data.payload).ok()?;
    user.public_key.as_slice().try_into().ok()
}

fn signed_fields(from: u32, id: u32, data: &Data) -> SignedFields<'_> {
    SignedFields {
        from,
        id,
        portnum: data.portnum as u32,
        payload: &data.payload,
    }
}

/// The last (stateless) step: the signature check.
fn finish(parsed: &mut Parsed) {
    let (d, check) = (&mut parsed.head, parsed.check);
    let Check::With(vk) = check else { return };
    let Some(data) = &d.data else { return };
    d.signature = match vk.verify(&signed_fields(d.from, d.id, data), &data.xeddsa_signature) {
        Ok(()) => Signature::Valid,
        Err(_) => Signature::Invalid,
    };
}
