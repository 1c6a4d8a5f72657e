//! Any bytes as a peat key-exchange frame: decoding never panics, a decoded
//! frame re-encodes to its first 39 bytes (the reserved byte written as 0 and
//! the flag byte reduced to its bit 0, the parts peers ignore), and the
//! session table takes or refuses it without panicking.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::keys::StaticSecret;
use wireseal::peat::{KeyExchange, PeerSessions, KEY_EXCHANGE_LEN};

fuzz_target!(|data: &[u8]| {
    if let Ok(kx) = KeyExchange::decode(data) {
        let enc = kx.encode();
        assert_eq!(enc[0], data[0]);
        assert_eq!(enc[1], 0);
        assert_eq!(&enc[2..6], &data[2..6]);
        assert_eq!(enc[6], data[6] & 1);
        assert_eq!(&enc[7..], &data[7..KEY_EXCHANGE_LEN]);
    }
    let identity = StaticSecret::from_bytes(&[0x11; 32]).unwrap();
    let mut us = PeerSessions::new(1, identity).with_max_sessions(2);
    let before = us.len();
    match us.handle_key_exchange(0, data) {
        Ok(_) => assert!(us.len() <= 2),
        Err(_) => assert_eq!(us.len(), before, "a refused key exchange changed the table"),
    }
});
