//! Any payload, sender and id: opening never panics and never succeeds on
//! bytes the fuzzer made up (it does not know the key).
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::{PkcEngine, PkcPacket};

fuzz_target!(|data: &[u8]| {
    if data.len() < 40 {
        return;
    }
    let peer: [u8; 32] = data[..32].try_into().unwrap();
    let from = u32::from_le_bytes(data[32..36].try_into().unwrap());
    let id = u32::from_le_bytes(data[36..40].try_into().unwrap());
    let mut e = PkcEngine::new(StaticSecret::from_bytes(&[0x48; 32]).unwrap()).unwrap();
    let packet = PkcPacket {
        peer_public: &peer,
        from,
        id,
    };
    assert!(e.open_to_vec(0, packet, &data[40..]).is_err());
});
