//! MeshCore traffic as observers publish it, built with the library's
//! builders: packets (adverts, group texts, direct messages), the same
//! packet as it reached a repeater-relayed observer (a longer path, the
//! same hash), and the messages an observer feed carries: meshcoretomqtt's
//! JSON object on `meshcore/{IATA}/{PUBKEY}/packets`, or the packet's bytes.

use wireseal::meshcore::{
    encode_advert, encode_text_message, AdvertOut, ChannelKey, LocalIdentity, NodeType, Packet,
    PacketOut, PublicIdentity,
};

/// An observer's public key: 32 bytes, the first `0x5a` (a MeshCore hash
/// the firmware allows) and the last `n`.
pub fn observer(n: u8) -> [u8; 32] {
    let mut k = [0x0b; 32];
    k[0] = 0x5a;
    k[31] = n;
    k
}

/// The topic observer `key` publishes on in region `iata`.
pub fn topic(iata: &str, key: &[u8; 32]) -> String {
    format!("meshcore/{iata}/{}/packets", hex::encode_upper(key))
}

/// meshcoretomqtt's JSON object for packet `raw` heard by `key` (every
/// value a string, `raw` and `hash` in uppercase hex).
pub fn observer_json(raw: &[u8], key: &[u8; 32], snr: f32, rssi: i32) -> Vec<u8> {
    let p = Packet::parse(raw).ok();
    let (ptype, route, hash, plen) = p.map_or((0, "F", [0u8; 8], 0), |p| {
        let route = if p.route.is_flood() { "F" } else { "D" };
        (p.payload_type.bits(), route, p.hash(), p.payload.len())
    });
    serde_json::json!({
        "origin": "observer",
        "origin_id": hex::encode_upper(key),
        "timestamp": "2026-11-29T00:00:00.000000",
        "type": "PACKET",
        "direction": "rx",
        "time": "00:00:00",
        "date": "29/11/2026",
        "len": raw.len().to_string(),
        "packet_type": ptype.to_string(),
        "route": route,
        "payload_len": plen.to_string(),
        "raw": hex::encode_upper(raw),
        "SNR": format!("{snr}"),
        "RSSI": rssi.to_string(),
        "score": "1000",
        "duration": "120",
        "hash": hex::encode_upper(hash),
    })
    .to_string()
    .into_bytes()
}

/// A group text `text` (`"<sender>: <message>"`) on channel `key`.
pub fn group_text(key: &ChannelKey, timestamp: u32, text: &str) -> Vec<u8> {
    let mut buf = [0u8; 255];
    let n = key
        .encode_group_text(timestamp, text, &mut buf)
        .expect("a text of at most 160 bytes");
    buf[..n].to_vec()
}

/// `id`'s advert named `name`, a chat node, at `location` (degrees).
pub fn advert(
    id: &LocalIdentity,
    timestamp: u32,
    name: &str,
    location: Option<(f64, f64)>,
) -> Vec<u8> {
    let mut buf = [0u8; 255];
    let a = AdvertOut {
        node_type: NodeType::Chat,
        location,
        name,
    };
    let n = encode_advert(id, timestamp, &a, &mut buf).expect("an advert");
    buf[..n].to_vec()
}

/// A direct text message from `from` to `to`.
pub fn direct(from: &LocalIdentity, to: &PublicIdentity, timestamp: u32, text: &str) -> Vec<u8> {
    let mut buf = [0u8; 255];
    let n = encode_text_message(from, to, timestamp, 0, text, &mut buf).expect("a message");
    buf[..n].to_vec()
}

/// `raw` (a flood packet with an empty path) as it reached an observer
/// through repeaters whose one-byte hashes are `hops`: the same payload,
/// so the same packet hash.
pub fn relayed(raw: &[u8], hops: &[u8]) -> Vec<u8> {
    let p = Packet::parse(raw).expect("a packet the library built");
    let out = PacketOut {
        route: p.route,
        payload_type: p.payload_type,
        transport_codes: p.transport_codes,
        path_hash_size: 1,
        path: hops,
        payload: p.payload,
    };
    out.to_vec().expect("a path of at most 64 hops")
}

/// The packet hash of `raw`, as the store keys it (the 8 bytes as a signed
/// big-endian number).
pub fn hash_key(raw: &[u8]) -> i64 {
    i64::from_be_bytes(Packet::parse(raw).expect("a packet").hash())
}
