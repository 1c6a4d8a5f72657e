//! Any bytes: header parsing never panics, and what parses re-encodes to the same 16 bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::meshtastic::PacketHeader;

fuzz_target!(|data: &[u8]| {
    if let Ok((h, payload)) = PacketHeader::parse(data) {
        assert_eq!(&h.to_bytes().unwrap()[..], &data[..16]);
        assert_eq!(payload.len(), data.len() - 16);
    }
});
