//! What decoding one envelope tells the caller.

use super::super::envelope::{Data, ADMIN_APP, KEY_VERIFICATION_APP, TEXT_MESSAGE_APP};
use super::super::identity::Identity;
use super::super::policy::Verdict;
use super::super::Error;
#[allow(unused_imports)]
use crate::prelude::*;
use compact_str::CompactString;

/// How the packet's `Data` was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decryption {
    /// Decrypted with the channel at this index of the decoder's channel list.
    Channel(usize),
    /// Opened as a PKC direct message to our node.
    Pkc,
    /// The envelope carried the packet unencrypted.
    Plain,
    /// Not decrypted (see [`Decoded::error`]).
    None,
}

impl Decryption {
    /// `"channel"`, `"pkc"`, `"plain"` or `"none"` (the channel's name, for
    /// [`Decryption::Channel`], is [`Decoder::channel_name`](super::Decoder::channel_name)).
    pub const fn as_str(&self) -> &'static str {
        Self::NAMES[self.index()]
    }

    /// Every outcome's name, in declaration order: a table of
    /// `NAMES.len()` entries indexed by [`Decryption::index`] covers them all.
    pub const NAMES: [&'static str; 4] = ["channel", "pkc", "plain", "none"];

    /// The outcome's position in [`Decryption::NAMES`].
    pub const fn index(&self) -> usize {
        match self {
            Decryption::Channel(_) => 0,
            Decryption::Pkc => 1,
            Decryption::Plain => 2,
            Decryption::None => 3,
        }
    }
}

/// The outcome of checking `Data.xeddsa_signature`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signature {
    /// Verified with the sender's pinned key (or, for a NodeInfo from a node
    /// seen for the first time, with the key it announces, which hashes to
    /// the sender's number).
    Valid,
    /// 64 bytes that do not verify with the sender's key (or, on a first
    /// NodeInfo, with a key that is not the sender's).
    Invalid,
    /// A signature field that is neither empty nor 64 bytes.
    Malformed,
    /// No signature on the packet, or no `Data` to look at.
    Absent,
    /// Signed, but no public key is known for the sender.
    UnknownKey,
}

impl Signature {
    /// `"valid"`, `"invalid"`, `"malformed"`, `"absent"` or `"unknown_key"`.
    pub const fn as_str(&self) -> &'static str {
        Self::NAMES[self.index()]
    }

    /// Every status, in declaration order.
    pub const ALL: [Signature; 5] = [
        Signature::Valid,
        Signature::Invalid,
        Signature::Malformed,
        Signature::Absent,
        Signature::UnknownKey,
    ];

    /// Every status's name, in the order of [`Signature::ALL`].
    pub const NAMES: [&'static str; 5] = ["valid", "invalid", "malformed", "absent", "unknown_key"];

    /// The status's position in [`Signature::ALL`] and [`Signature::NAMES`].
    pub const fn index(&self) -> usize {
        match self {
            Signature::Valid => 0,
            Signature::Invalid => 1,
            Signature::Malformed => 2,
            Signature::Absent => 3,
            Signature::UnknownKey => 4,
        }
    }
}

/// Why a packet was not decoded (or, for [`Undecoded::Replay`], why its
/// decoded contents should not be acted on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undecoded {
    /// No configured channel has the packet's channel hash.
    NoChannel,
    /// Channels with the packet's hash exist, and none yields a valid `Data`.
    WrongChannelKey,
    /// A PKC direct message to another node (no key agreement was spent).
    NotForUs,
    /// A PKC direct message to our node, and the decoder has no node key.
    NoNodeKey,
    /// A PKC direct message from a node whose public key is unknown.
    UnknownSender,
    /// Decryption or parsing failed: [`Error::Auth`], [`Error::InvalidKey`],
    /// [`Error::Malformed`], ...
    Failed(Error),
    /// Already accepted (same sender and packet id) within the replay window.
    Replay,
}

impl Undecoded {
    /// `"no_channel"`, `"wrong_channel_key"`, `"pkc_not_for_us"`,
    /// `"pkc_no_node_key"`, `"pkc_unknown_sender"`, `"auth_failed"`,
    /// `"weak_key"`, `"malformed_data"`, `"truncated"`, `"too_long"`,
    /// `"failed"` or `"replay"`.
    pub const fn as_str(&self) -> &'static str {
        Self::NAMES[self.index()]
    }

    /// Every reason's name, in the order of [`Undecoded::index`] (a
    /// [`Undecoded::Failed`] is named by its error's kind).
    pub const NAMES: [&'static str; 12] = [
        "no_channel",
        "wrong_channel_key",
        "pkc_not_for_us",
        "pkc_no_node_key",
        "pkc_unknown_sender",
        "auth_failed",
        "weak_key",
        "malformed_data",
        "truncated",
        "too_long",
        "failed",
        "replay",
    ];

    /// The reason's position in [`Undecoded::NAMES`].
    pub const fn index(&self) -> usize {
        match self {
            Undecoded::NoChannel => 0,
            Undecoded::WrongChannelKey => 1,
            Undecoded::NotForUs => 2,
            Undecoded::NoNodeKey => 3,
            Undecoded::UnknownSender => 4,
            Undecoded::Failed(Error::Auth) => 5,
            Undecoded::Failed(Error::InvalidKey) => 6,
            Undecoded::Failed(Error::Malformed { .. }) => 7,
            Undecoded::Failed(Error::Truncated { .. }) => 8,
            Undecoded::Failed(Error::TooLong { .. }) => 9,
            Undecoded::Failed(_) => 10,
            Undecoded::Replay => 11,
        }
    }
}

/// What the node table learned or refused from this packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyEvent {
    /// The first key seen for `node` was pinned.
    Learned {
        /// The node.
        node: u32,
    },
    /// `node` announced a key other than the pinned one; the pinned key stays.
    Conflict {
        /// The node.
        node: u32,
        /// The key kept.
        pinned: [u8; 32],
        /// The key announced.
        offered: [u8; 32],
    },
    /// The node table is full: the key of a new node was not recorded.
    TableFull {
        /// The node.
        node: u32,
    },
    /// The key was pinned for `node`, and the same key is pinned under
    /// another number: a node renumbered by firmware 2.8, which numbers a
    /// node `crc32(public key)`. `from` is the older number, `to` the
    /// `crc32` one; `node` is one of them. Both keep the key and are linked
    /// in the node table ([`NodeKey::renumbered_from`](super::NodeKey::renumbered_from)).
    Renumbered {
        /// The node this packet came from.
        node: u32,
        /// The number the node had before.
        from: u32,
        /// The number it has now (`crc32` of the key).
        to: u32,
    },
}

impl KeyEvent {
    /// `"learned"`, `"conflict"`, `"table_full"` or `"renumbered"`.
    pub const fn as_str(&self) -> &'static str {
        Self::NAMES[self.index()]
    }

    /// Every event's name, in declaration order.
    pub const NAMES: [&'static str; 4] = ["learned", "conflict", "table_full", "renumbered"];

    /// The event's position in [`KeyEvent::NAMES`].
    pub const fn index(&self) -> usize {
        match self {
            KeyEvent::Learned { .. } => 0,
            KeyEvent::Conflict { .. } => 1,
            KeyEvent::TableFull { .. } => 2,
            KeyEvent::Renumbered { .. } => 3,
        }
    }
}

/// Packets about keys and administration, recognised by their port and
/// reported, never acted on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Remote administration (`ADMIN_APP`): a node authorised by an admin
    /// key configures another.
    Admin,
    /// The key-verification exchange (`KEY_VERIFICATION_APP`) two nodes run
    /// to confirm each other's keys.
    KeyVerification,
}

impl Control {
    /// `"admin"` or `"key_verification"`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            Control::Admin => "admin",
            Control::KeyVerification => "key_verification",
        }
    }
}

/// The header fields of the packet and its reception, as the envelope
/// carries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Reception {
    /// `MeshPacket.rx_time`: seconds since the Unix epoch.
    pub rx_time: u32,
    /// `MeshPacket.rx_snr` as the bits of its `float` (see
    /// [`Reception::rx_snr`]).
    pub rx_snr_bits: u32,
    /// `MeshPacket.rx_rssi` (dBm).
    pub rx_rssi: i32,
    /// `MeshPacket.hop_limit`.
    pub hop_limit: u32,
    /// `MeshPacket.hop_start`.
    pub hop_start: u32,
    /// `MeshPacket.relay_node`: last byte of the relaying node's number.
    pub relay_node: u32,
    /// `MeshPacket.next_hop`.
    pub next_hop: u32,
    /// `MeshPacket.via_mqtt`.
    pub via_mqtt: bool,
    /// `MeshPacket.transport_mechanism`.
    pub transport: i32,
    /// `MeshPacket.xeddsa_signed`: the uplinking node's claim; never
    /// trusted ([`Decoded::signature`] is the decoder's own check).
    pub claimed_signed: bool,
}

/// One decoded envelope.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// Sender node number.
    pub from: u32,
    /// Destination node number.
    pub to: u32,
    /// Packet id.
    pub id: u32,
    /// The envelope's channel name (`PKI` for direct messages), held inline
    /// up to 24 bytes (an id is at most [`MAX_ID_LEN`] bytes).
    ///
    /// [`MAX_ID_LEN`]: crate::meshtastic::envelope::MAX_ID_LEN
    pub channel_id: CompactString,
    /// The publishing gateway's id, held as `channel_id` is.
    pub gateway_id: CompactString,
    /// `MeshPacket.channel`: the channel hash of an encrypted packet.
    pub channel_hash: u32,
    /// Header fields and reception details.
    pub reception: Reception,
    /// The packet's `Data`, when decoded.
    pub data: Option<Data>,
    /// How `data` was obtained.
    pub decryption: Decryption,
    /// The signature check.
    pub signature: Signature,
    /// For a NodeInfo packet: how the sender's number relates to the key it
    /// announces.
    pub identity: Option<Identity>,
    /// For a decoded packet: what the decoder's signature policy makes of it.
    pub verdict: Option<Verdict>,
    /// What the node table did with a key this packet announced.
    pub key_event: Option<KeyEvent>,
    /// Which of our nodes a PKC direct message was addressed to.
    pub our_node: Option<u32>,
    /// Why the packet was not decoded, when it was not.
    pub error: Option<Undecoded>,
}

impl Reception {
    /// `MeshPacket.rx_snr` in dB (any float the sender put there, NaN
    /// included).
    pub fn rx_snr(&self) -> f32 {
        f32::from_bits(self.rx_snr_bits)
    }
}

impl Decoded {
    /// `Data.portnum`, when decoded.
    pub fn portnum(&self) -> Option<i32> {
        self.data.as_ref().map(|d| d.portnum)
    }

    /// `Data.payload`, when decoded.
    pub fn payload(&self) -> Option<&[u8]> {
        self.data.as_ref().map(|d| d.payload.as_slice())
    }

    /// The text of a text message (portnum 1) that is valid UTF-8.
    pub fn text(&self) -> Option<&str> {
        let d = self.data.as_ref()?;
        if d.portnum != TEXT_MESSAGE_APP {
            return None;
        }
        core::str::from_utf8(&d.payload).ok()
    }

    /// An administration or key-verification packet, by its port.
    pub fn control(&self) -> Option<Control> {
        match self.portnum()? {
            ADMIN_APP => Some(Control::Admin),
            KEY_VERIFICATION_APP => Some(Control::KeyVerification),
            _ => None,
        }
    }

    /// Whether the packet went to every node (`to` is `0xffffffff`, or 1
    /// for "every node, not over LoRa").
    pub fn is_broadcast(&self) -> bool {
        is_broadcast(self.to)
    }
}

/// The firmware's `isBroadcast`: `0xffffffff`, or 1 ("broadcast, not over
/// LoRa").
pub(crate) const fn is_broadcast(to: u32) -> bool {
    to == u32::MAX || to == 1
}

#[cfg(test)]
mod tests {
    use super::super::super::app::PacketKind;
    use super::super::super::identity::Identity;
    use super::super::super::policy::{Concern, Verdict};
    use super::*;

    /// Every outcome names its own slot, and every slot has an outcome: a
    /// table indexed by `index()` covers each vocabulary.
    #[test]
    fn every_vocabulary_is_one_table() {
        fn covers(names: &[&str], outcomes: &[(usize, &str)]) {
            let mut seen = vec![false; names.len()];
            for &(i, word) in outcomes {
                assert_eq!(names[i], word);
                seen[i] = true;
            }
            assert!(seen.iter().all(|s| *s), "{names:?}");
        }
        let d = [
            Decryption::Channel(3),
            Decryption::Pkc,
            Decryption::Plain,
            Decryption::None,
        ];
        covers(&Decryption::NAMES, &d.map(|x| (x.index(), x.as_str())));
        covers(
            &Signature::NAMES,
            &Signature::ALL.map(|x| (x.index(), x.as_str())),
        );
        let u = [
            Undecoded::NoChannel,
            Undecoded::WrongChannelKey,
            Undecoded::NotForUs,
            Undecoded::NoNodeKey,
            Undecoded::UnknownSender,
            Undecoded::Failed(Error::Auth),
            Undecoded::Failed(Error::InvalidKey),
            Undecoded::Failed(Error::Malformed { what: "x" }),
            Undecoded::Failed(Error::Truncated { len: 0, min: 1 }),
            Undecoded::Failed(Error::TooLong { len: 2, max: 1 }),
            Undecoded::Failed(Error::Replay),
            Undecoded::Replay,
        ];
        covers(&Undecoded::NAMES, &u.map(|x| (x.index(), x.as_str())));
        let k = [
            KeyEvent::Learned { node: 1 },
            KeyEvent::Conflict {
                node: 1,
                pinned: [0; 32],
                offered: [1; 32],
            },
            KeyEvent::TableFull { node: 1 },
            KeyEvent::Renumbered {
                node: 1,
                from: 1,
                to: 2,
            },
        ];
        covers(&KeyEvent::NAMES, &k.map(|x| (x.index(), x.as_str())));
        covers(
            &Identity::NAMES,
            &Identity::ALL.map(|x| (x.index(), x.as_str())),
        );
        let v = [
            Verdict::Accept,
            Verdict::Flag(Concern::Unsigned),
            Verdict::Drop(Concern::Unsigned),
        ];
        covers(&Verdict::NAMES, &v.map(|x| (x.index(), x.as_str())));
        for (i, k) in PacketKind::ALL.iter().enumerate() {
            assert_eq!(k.index(), i);
        }
        assert_eq!(Signature::ALL.map(|s| s.index()), [0, 1, 2, 3, 4]);
        assert_eq!(Identity::ALL.map(|s| s.index()), [0, 1, 2]);
    }
}
