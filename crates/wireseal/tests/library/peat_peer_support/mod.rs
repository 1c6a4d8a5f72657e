//! Two established per-peer nodes for the `peat_peer_*` tests: node ids,
//! fixed static keys and the handshake A -> B -> A.

use wireseal::keys::StaticSecret;
use wireseal::peat::{KeyExchangeOutcome, PeerSessions, SessionState};

/// Node A's id (the initiator in [`pair`]).
pub const A: u32 = 0x1111_1111;
/// Node B's id (the responder in [`pair`]).
pub const B: u32 = 0x2222_2222;

/// A node with the given id and a static key of 32 `key` bytes.
pub fn node(id: u32, key: u8) -> PeerSessions {
    PeerSessions::new(id, StaticSecret::from_bytes(&[key; 32]).unwrap())
}

/// Runs the handshake A -> B -> A; returns both sides established.
pub fn pair() -> (PeerSessions, PeerSessions) {
    let mut a = node(A, 0xa1);
    let mut b = node(B, 0xb2);
    let kx = a.initiate(0, B).unwrap();
    assert_eq!(a.state(B), Some(SessionState::AwaitingPeerKey));
    let KeyExchangeOutcome::Established { peer, response } = b.handle_key_exchange(0, &kx).unwrap()
    else {
        panic!("responder must establish")
    };
    assert_eq!(peer, A);
    assert!(matches!(
        a.handle_key_exchange(0, &response).unwrap(),
        KeyExchangeOutcome::Established { peer: B, .. }
    ));
    (a, b)
}
