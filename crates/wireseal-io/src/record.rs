//! A decoded packet's record as JSON, one object on one line: a Meshtastic
//! packet's ([`PacketRecord`], the fields `docs/gateway.md` lists) and a
//! MeshCore packet's ([`Decoded`](wireseal::meshcore::Decoded), the fields
//! of its `serde` impl). Every driver writes records through here, so the
//! gateway, `wireseal meshtastic decode`, `wireseal meshcore decode` and
//! Python print the same bytes for the same packet.

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

/// A decoded MeshCore packet's record as one line of JSON (no newline): what
/// `wireseal meshcore decode --json` prints and Python's
/// `wireseal.meshcore.Decoder.decode` returns as a dict.
pub fn meshcore_to_json(decoded: &wireseal::meshcore::Decoded) -> String {
    // Maps, strings, numbers and nulls only (finite coordinates: a location
    // is read from whole microdegrees); an error here is a bug in that impl.
    serde_json::to_string(decoded).expect("a MeshCore record always serializes to JSON")
}
