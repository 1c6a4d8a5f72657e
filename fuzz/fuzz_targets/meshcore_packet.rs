//! Any bytes as a received MeshCore packet: parsing never panics; a packet
//! that parses writes back to the same bytes, its hops tile its path, and
//! decoding it (adverts verified, app data read) never panics either.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::meshcore::{AdvertData, Decoder, Packet, PacketOut};

fuzz_target!(|data: &[u8]| {
    let Ok(p) = Packet::parse(data) else {
        return;
    };
    assert!(p.payload.len() <= 184 && p.path.len() <= 64);
    assert_eq!(p.hops().count(), p.path_len.hops());
    let out = PacketOut {
        route: p.route,
        payload_type: p.payload_type,
        transport_codes: p.transport_codes,
        path_hash_size: p.path_len.hash_size(),
        path: p.path,
        payload: p.payload,
    };
    assert_eq!(out.to_vec().expect("a parsed packet re-encodes"), data);
    let _ = AdvertData::parse(p.payload);
    let d = Decoder::new()
        .decode(0, data)
        .expect("parsed once, parses again");
    assert_eq!(d.hash, p.hash());
});
