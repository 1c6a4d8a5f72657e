//! Application ports (`PortNum`, `portnums.proto`) by name, and the
//! payloads of the ports this crate reads: text, position, node info and
//! key verification.

use super::envelope::{self, KeyVerification, Position, User};
#[allow(unused_imports)]
use crate::prelude::*;

/// Port numbers and their names, as `portnums.proto` spells them.
const NAMES: [(i32, &str); 40] = [
    (0, "UNKNOWN_APP"),
    (1, "TEXT_MESSAGE_APP"),
    (2, "REMOTE_HARDWARE_APP"),
    (3, "POSITION_APP"),
    (4, "NODEINFO_APP"),
    (5, "ROUTING_APP"),
    (6, "ADMIN_APP"),
    (7, "TEXT_MESSAGE_COMPRESSED_APP"),
    (8, "WAYPOINT_APP"),
    (9, "AUDIO_APP"),
    (10, "DETECTION_SENSOR_APP"),
    (11, "ALERT_APP"),
    (12, "KEY_VERIFICATION_APP"),
    (13, "REMOTE_SHELL_APP"),
    (32, "REPLY_APP"),
    (33, "IP_TUNNEL_APP"),
    (34, "PAXCOUNTER_APP"),
    (35, "STORE_FORWARD_PLUSPLUS_APP"),
    (36, "NODE_STATUS_APP"),
    (37, "MESH_BEACON_APP"),
    (64, "SERIAL_APP"),
    (65, "STORE_FORWARD_APP"),
    (66, "RANGE_TEST_APP"),
    (67, "TELEMETRY_APP"),
    (68, "ZPS_APP"),
    (69, "SIMULATOR_APP"),
    (70, "TRACEROUTE_APP"),
    (71, "NEIGHBORINFO_APP"),
    (72, "ATAK_PLUGIN"),
    (73, "MAP_REPORT_APP"),
    (74, "POWERSTRESS_APP"),
    (75, "LORAWAN_BRIDGE"),
    (76, "RETICULUM_TUNNEL_APP"),
    (77, "CAYENNE_APP"),
    (78, "ATAK_PLUGIN_V2"),
    (79, "LORA_OTA_APP"),
    (112, "GROUPALARM_APP"),
    (256, "PRIVATE_APP"),
    (257, "ATAK_FORWARDER"),
    (511, "MAX"),
];

/// The name of port `portnum` (`"TEXT_MESSAGE_APP"`, ...); `None` for a
/// number `portnums.proto` does not name.
pub fn portnum_name(portnum: i32) -> Option<&'static str> {
    NAMES
        .binary_search_by_key(&portnum, |(n, _)| *n)
        .ok()
        .map(|i| NAMES[i].1)
}

/// The number of the port called `name` (as [`portnum_name`] spells it).
pub fn portnum_by_name(name: &str) -> Option<i32> {
    NAMES.iter().find(|(_, n)| *n == name).map(|(p, _)| *p)
}

/// What a packet is, by its port: one name per kind for records, stores and
/// counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PacketKind {
    /// `TEXT_MESSAGE_APP`.
    Text,
    /// `POSITION_APP`.
    Position,
    /// `NODEINFO_APP`.
    NodeInfo,
    /// `ROUTING_APP`.
    Routing,
    /// `ADMIN_APP`.
    Admin,
    /// `WAYPOINT_APP`.
    Waypoint,
    /// `TELEMETRY_APP`.
    Telemetry,
    /// `TRACEROUTE_APP`.
    Traceroute,
    /// `NEIGHBORINFO_APP`.
    NeighborInfo,
    /// `MAP_REPORT_APP` (sent without a packet id).
    MapReport,
    /// `KEY_VERIFICATION_APP`.
    KeyVerification,
    /// Any other port.
    Other,
    /// Not decoded: the port is unknown.
    Undecoded,
}

impl PacketKind {
    /// Every kind, in declaration order.
    pub const ALL: [PacketKind; 13] = [
        PacketKind::Text,
        PacketKind::Position,
        PacketKind::NodeInfo,
        PacketKind::Routing,
        PacketKind::Admin,
        PacketKind::Waypoint,
        PacketKind::Telemetry,
        PacketKind::Traceroute,
        PacketKind::NeighborInfo,
        PacketKind::MapReport,
        PacketKind::KeyVerification,
        PacketKind::Other,
        PacketKind::Undecoded,
    ];

    /// The kind's position in [`PacketKind::ALL`].
    pub const fn index(&self) -> usize {
        *self as usize
    }

    /// The kind of a packet of port `portnum` (`None`: not decoded).
    pub const fn of(portnum: Option<i32>) -> Self {
        match portnum {
            None => PacketKind::Undecoded,
            Some(envelope::TEXT_MESSAGE_APP) => PacketKind::Text,
            Some(envelope::POSITION_APP) => PacketKind::Position,
            Some(envelope::NODEINFO_APP) => PacketKind::NodeInfo,
            Some(envelope::ROUTING_APP) => PacketKind::Routing,
            Some(envelope::ADMIN_APP) => PacketKind::Admin,
            Some(envelope::WAYPOINT_APP) => PacketKind::Waypoint,
            Some(envelope::TELEMETRY_APP) => PacketKind::Telemetry,
            Some(envelope::TRACEROUTE_APP) => PacketKind::Traceroute,
            Some(envelope::NEIGHBORINFO_APP) => PacketKind::NeighborInfo,
            Some(envelope::MAP_REPORT_APP) => PacketKind::MapReport,
            Some(envelope::KEY_VERIFICATION_APP) => PacketKind::KeyVerification,
            Some(_) => PacketKind::Other,
        }
    }

    /// `"text"`, `"position"`, `"nodeinfo"`, `"routing"`, `"admin"`,
    /// `"waypoint"`, `"telemetry"`, `"traceroute"`, `"neighborinfo"`,
    /// `"map_report"`, `"key_verification"`, `"other"` or `"undecoded"`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            PacketKind::Text => "text",
            PacketKind::Position => "position",
            PacketKind::NodeInfo => "nodeinfo",
            PacketKind::Routing => "routing",
            PacketKind::Admin => "admin",
            PacketKind::Waypoint => "waypoint",
            PacketKind::Telemetry => "telemetry",
            PacketKind::Traceroute => "traceroute",
            PacketKind::NeighborInfo => "neighborinfo",
            PacketKind::MapReport => "map_report",
            PacketKind::KeyVerification => "key_verification",
            PacketKind::Other => "other",
            PacketKind::Undecoded => "undecoded",
        }
    }
}

/// A payload this crate reads.
#[derive(Debug, Clone, PartialEq)]
pub enum App {
    /// A text message (UTF-8).
    Text(String),
    /// A position report.
    Position(Position),
    /// Node info: names, hardware, public key.
    User(User),
    /// A step of the key-verification exchange.
    KeyVerification(KeyVerification),
}

impl App {
    /// The payload of port `portnum`, when it is one this crate reads and it
    /// parses.
    pub fn decode(portnum: i32, payload: &[u8]) -> Option<Self> {
        match portnum {
            envelope::TEXT_MESSAGE_APP => core::str::from_utf8(payload)
                .ok()
                .map(|t| App::Text(t.to_owned())),
            envelope::POSITION_APP => envelope::decode_position(payload).ok().map(App::Position),
            envelope::NODEINFO_APP => envelope::decode_user(payload).ok().map(App::User),
            envelope::KEY_VERIFICATION_APP => envelope::decode_key_verification(payload)
                .ok()
                .map(App::KeyVerification),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sorted_and_round_trip() {
        assert!(NAMES.windows(2).all(|w| w[0].0 < w[1].0));
        for (n, name) in NAMES {
            assert_eq!(portnum_name(n), Some(name));
            assert_eq!(portnum_by_name(name), Some(n));
        }
        assert_eq!(portnum_name(14), None);
        assert_eq!(portnum_by_name("text"), None);
    }

    #[test]
    fn payloads_of_known_ports() {
        assert_eq!(App::decode(1, b"hi"), Some(App::Text("hi".into())));
        assert_eq!(App::decode(1, &[0xff]), None);
        assert_eq!(App::decode(67, b"x"), None);
        let kv = KeyVerification {
            nonce: 7,
            hash1: vec![1; 32],
            hash2: vec![],
        };
        let bytes = prost::Message::encode_to_vec(&kv);
        assert_eq!(App::decode(12, &bytes), Some(App::KeyVerification(kv)));
    }
}
