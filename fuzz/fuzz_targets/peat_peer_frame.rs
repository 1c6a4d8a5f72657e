//! Any bytes as a per-peer frame against an established session: parsing
//! and opening never panic, a failed open moves no state, and a frame that
//! opens once is a replay the second time.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use wireseal::keys::StaticSecret;
use wireseal::peat::{KeyExchangeOutcome, PeerHeader, PeerSessions, PEER_OVERHEAD};

/// Our side of a session with node 2 (fixed keys, so a seed frame sealed by
/// node 2 under the same keys can open).
fn sessions() -> PeerSessions {
    let mut us = PeerSessions::new(1, StaticSecret::from_bytes(&[0x11; 32]).unwrap());
    let them = PeerSessions::new(2, StaticSecret::from_bytes(&[0x22; 32]).unwrap());
    match us.handle_key_exchange(0, &them.key_exchange_frame()) {
        Ok(KeyExchangeOutcome::Established { .. }) => us,
        other => panic!("setup: {other:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    static CHECK: OnceLock<()> = OnceLock::new();
    CHECK.get_or_init(|| assert_eq!(sessions().len(), 1));
    let header = PeerHeader::parse(data);
    let mut us = sessions();
    let before = us.session_info(2);
    match us.open_to_vec(0, data) {
        Ok(m) => {
            assert!(header.is_ok());
            assert_eq!(m.plaintext.len() + PEER_OVERHEAD, data.len());
            assert!(us.open_to_vec(0, data).is_err(), "replay accepted");
        }
        Err(_) => assert_eq!(us.session_info(2), before, "a failed open moved state"),
    }
});
