//! The seal job (the open job is the library's own
//! [`wireseal::bip324::batch::OpenJob`]).

use wireseal::bip324::{Error, PacketSender, PacketType};

/// One packet to seal: its contents length and its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outgoing {
    /// Contents bytes (taken in turn from the job's `contents`).
    pub len: u32,
    /// Genuine, or a decoy (header byte 0x80).
    pub kind: PacketType,
}

impl Outgoing {
    /// A genuine packet of `len` contents bytes.
    pub const fn genuine(len: u32) -> Self {
        Self {
            len,
            kind: PacketType::Genuine,
        }
    }
}

/// Outbound work for one session: seal `packets` (their contents back to
/// back in `contents`), appending the wire bytes to `out`. The shape of the
/// library's [`wireseal::bip324::batch::SealJob`], with a type per packet.
#[derive(Debug)]
pub struct SealJob<'a> {
    /// The session's sender.
    pub sender: &'a mut PacketSender,
    /// Every packet's contents, back to back.
    pub contents: &'a [u8],
    /// The packets, in order.
    pub packets: &'a [Outgoing],
    /// Wire bytes are appended here.
    pub out: &'a mut Vec<u8>,
    /// Packets sealed, or the first error: [`Error::Truncated`] when
    /// `contents` ends before a packet's, [`Error::TooLong`] for contents
    /// over [`wireseal::bip324::MAX_CONTENTS_LEN`], [`Error::Exhausted`]
    /// when the key schedule is spent. `out` then keeps the packets sealed
    /// before that one, as the library's batch does.
    pub result: Result<usize, Error>,
}
