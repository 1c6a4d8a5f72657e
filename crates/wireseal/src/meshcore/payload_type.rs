//! The payload type: what a packet carries (the header's bits 2-5), its
//! stable names and the fewest bytes the firmware takes for each. A file
//! of its own: the packet and the errors both name it.

use core::fmt;

/// What a packet carries (the header's bits 2-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PayloadType {
    /// A request to a peer (encrypted).
    Req,
    /// A response to a request (encrypted).
    Response,
    /// A direct text message (encrypted).
    TxtMsg,
    /// An acknowledgement checksum.
    Ack,
    /// A signed node advertisement.
    Advert,
    /// A group channel text (encrypted).
    GrpTxt,
    /// Group channel data (encrypted).
    GrpData,
    /// A request from a sender the recipient may not know (encrypted).
    AnonReq,
    /// A returned path (encrypted).
    Path,
    /// A trace of SNRs along a path.
    Trace,
    /// One part of a multipart packet.
    Multipart,
    /// Control data (node discovery).
    Control,
    /// A type value the firmware reserves (12, 13, 14).
    Reserved(u8),
    /// Application bytes.
    RawCustom,
}

impl PayloadType {
    /// The payload type of a four-bit value.
    pub const fn from_bits(bits: u8) -> Self {
        match bits & 0x0f {
            0 => PayloadType::Req,
            1 => PayloadType::Response,
            2 => PayloadType::TxtMsg,
            3 => PayloadType::Ack,
            4 => PayloadType::Advert,
            5 => PayloadType::GrpTxt,
            6 => PayloadType::GrpData,
            7 => PayloadType::AnonReq,
            8 => PayloadType::Path,
            9 => PayloadType::Trace,
            10 => PayloadType::Multipart,
            11 => PayloadType::Control,
            15 => PayloadType::RawCustom,
            other => PayloadType::Reserved(other),
        }
    }

    /// The four-bit value.
    pub const fn bits(self) -> u8 {
        match self {
            PayloadType::Req => 0,
            PayloadType::Response => 1,
            PayloadType::TxtMsg => 2,
            PayloadType::Ack => 3,
            PayloadType::Advert => 4,
            PayloadType::GrpTxt => 5,
            PayloadType::GrpData => 6,
            PayloadType::AnonReq => 7,
            PayloadType::Path => 8,
            PayloadType::Trace => 9,
            PayloadType::Multipart => 10,
            PayloadType::Control => 11,
            PayloadType::Reserved(v) => v & 0x0f,
            PayloadType::RawCustom => 15,
        }
    }

    /// The stable lowercase name (the firmware's `PAYLOAD_TYPE_*` without
    /// the prefix): `req`, `response`, `txt_msg`, `ack`, `advert`,
    /// `grp_txt`, `grp_data`, `anon_req`, `path`, `trace`, `multipart`,
    /// `control`, `reserved`, `raw_custom`.
    pub const fn as_str(self) -> &'static str {
        match self {
            PayloadType::Req => "req",
            PayloadType::Response => "response",
            PayloadType::TxtMsg => "txt_msg",
            PayloadType::Ack => "ack",
            PayloadType::Advert => "advert",
            PayloadType::GrpTxt => "grp_txt",
            PayloadType::GrpData => "grp_data",
            PayloadType::AnonReq => "anon_req",
            PayloadType::Path => "path",
            PayloadType::Trace => "trace",
            PayloadType::Multipart => "multipart",
            PayloadType::Control => "control",
            PayloadType::Reserved(_) => "reserved",
            PayloadType::RawCustom => "raw_custom",
        }
    }

    /// The fewest payload bytes the firmware handles for this type
    /// (`Mesh::onRecvPacket`): an advert's key, timestamp and signature;
    /// two hashes, the MAC and a byte for peer data; a channel hash, the
    /// MAC and a byte for group data; none for the other types (the
    /// firmware's parser takes even an empty TRACE or RAW_CUSTOM payload).
    pub const fn min_payload(self) -> usize {
        match self {
            PayloadType::Advert => 100,
            PayloadType::Req | PayloadType::Response | PayloadType::TxtMsg | PayloadType::Path => 5,
            PayloadType::GrpTxt | PayloadType::GrpData => 4,
            PayloadType::AnonReq => 36,
            PayloadType::Ack => 4,
            _ => 0,
        }
    }
}

impl fmt::Display for PayloadType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
