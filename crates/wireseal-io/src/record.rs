//! A decoded Meshtastic packet's record
//! ([`PacketRecord`]) as JSON:
//! one object on one line, the fields `docs/gateway.md` lists. Every driver
//! writes records through here, so the gateway, `wireseal meshtastic decode`
//! and Python print the same bytes for the same packet.

use wireseal::meshtastic::record::PacketRecord;

/// The record as one line of JSON (no newline).
pub fn to_json(record: &PacketRecord<'_>) -> String {
    let mut out = Vec::with_capacity(512);
    write_json(record, &mut out);
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Appends the record's JSON to `out` (no newline).
pub fn write_json(record: &PacketRecord<'_>, out: &mut Vec<u8>) {
    // A record's `Serialize` impl only writes maps, strings and numbers, and
    // a `Vec` never fails to grow; an error here is a bug in that impl.
    serde_json::to_writer(out, record).expect("a packet record always serializes to JSON");
}
