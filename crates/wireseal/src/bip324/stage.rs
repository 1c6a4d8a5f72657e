//! Where a connection is, as an end of stream from the peer sees it: shared
//! by [`super::Connection`] and the split directions ([`super::Inbound`]).

use core::fmt;

/// Where a connection is: what an end of stream from the peer now means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Stage {
    /// (Responder) before its first bytes told v1 from v2.
    Handshake,
    /// Before its whole 64-byte key.
    Key,
    /// Before its garbage terminator.
    GarbageTerminator,
    /// Before its version packet (or inside a decoy before it).
    Version,
    /// After the handshake, at a packet boundary.
    BetweenPackets,
    /// After the handshake, inside a packet.
    MidPacket,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::Handshake => "during the handshake",
            Stage::Key => "before sending its key",
            Stage::GarbageTerminator => "before its garbage terminator",
            Stage::Version => "before its version packet",
            Stage::BetweenPackets => "between packets",
            Stage::MidPacket => "in the middle of a packet",
        })
    }
}
