//! What decoding one envelope tells the caller.

use super::super::envelope::Data;
use super::super::Error;

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
    No,
}

/// The outcome of checking `Data.xeddsa_signature`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signature {
    /// Verified with the sender's pinned key (or, for a NodeInfo from a node
    /// seen for the first time, with the key it announces).
    Valid,
    /// Present and not valid for the sender's key (or not 64 bytes).
    Invalid,
    /// No signature on the packet, or no `Data` to look at.
    Absent,
    /// Signed, but no public key is known for the sender.
    UnknownKey,
}

impl Signature {
    /// `"valid"`, `"invalid"`, `"absent"` or `"unknown-key"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Signature::Valid => "valid",
            Signature::Invalid => "invalid",
            Signature::Absent => "absent",
            Signature::UnknownKey => "unknown-key",
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
    /// A short stable reason for logs and JSON output.
    pub fn reason(&self) -> &'static str {
        match self {
            Undecoded::NoChannel => "no-channel",
            Undecoded::WrongChannelKey => "wrong-channel-key",
            Undecoded::NotForUs => "pkc-not-for-us",
            Undecoded::NoNodeKey => "pkc-no-node-key",
            Undecoded::UnknownSender => "pkc-unknown-sender",
            Undecoded::Failed(Error::Auth) => "auth-failed",
            Undecoded::Failed(Error::InvalidKey) => "weak-key",
            Undecoded::Failed(Error::Malformed { .. }) => "malformed-data",
            Undecoded::Failed(Error::Truncated { .. }) => "truncated",
            Undecoded::Failed(Error::TooLong { .. }) => "too-long",
            Undecoded::Failed(_) => "failed",
            Undecoded::Replay => "replay",
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
    /// The envelope's channel name (`PKI` for direct messages).
    pub channel_id: String,
    /// The publishing gateway's id.
    pub gateway_id: String,
    /// `MeshPacket.channel`: the channel hash of an encrypted packet.
    pub channel_hash: u32,
    /// `MeshPacket.rx_time`.
    pub rx_time: u32,
    /// `MeshPacket.hop_limit`.
    pub hop_limit: u32,
    /// `MeshPacket.hop_start`.
    pub hop_start: u32,
    /// The packet's `Data`, when decoded.
    pub data: Option<Data>,
    /// How `data` was obtained.
    pub decryption: Decryption,
    /// The signature check.
    pub signature: Signature,
    /// What the node table did with a key this packet announced.
    pub key_event: Option<KeyEvent>,
    /// Why the packet was not decoded, when it was not.
    pub error: Option<Undecoded>,
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
        if d.portnum != super::super::envelope::TEXT_MESSAGE_APP {
            return None;
        }
        core::str::from_utf8(&d.payload).ok()
    }
}
