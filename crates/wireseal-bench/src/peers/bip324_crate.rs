//! The `bip324` crate (rust-bitcoin) as an in-memory peer: a full handshake
//! and round trips through its zero-allocation and `Vec` APIs. Without the
//! `rust-peers` feature every function does nothing and returns 0, and the
//! section marks the crate's rows skipped ([`super::rust_peers::mark_skipped`]).

#[cfg(feature = "rust-peers")]
pub use ::bip324::CipherSession;

/// Stands in for the crate's session when it is not compiled in.
#[cfg(not(feature = "rust-peers"))]
#[derive(Debug)]
pub struct CipherSession;

#[cfg(feature = "rust-peers")]
use ::bip324 as peer;

#[cfg(feature = "rust-peers")]
const MAGIC: [u8; 4] = [0xf9, 0xbe, 0xb4, 0xd9];

/// The crate's full handshake, both sides, in memory.
#[cfg(feature = "rust-peers")]
pub fn crate_handshake() -> (CipherSession, CipherSession) {
    let a = peer::Handshake::<peer::Initialized>::new(MAGIC, peer::Role::Initiator).expect("a");
    let b = peer::Handshake::<peer::Initialized>::new(MAGIC, peer::Role::Responder).expect("b");
    let (mut ka, mut kb) = ([0u8; 64], [0u8; 64]);
    let a = a.send_key(None, &mut ka).expect("a key");
    let b = b.send_key(None, &mut kb).expect("b key");
    let a = a.receive_key(kb).expect("a recv");
    let b = b.receive_key(ka).expect("b recv");
    let n = peer::Handshake::<peer::ReceivedKey>::send_version_len(None);
    let (mut va, mut vb) = (vec![0u8; n], vec![0u8; n]);
    let a = a.send_version(&mut va, None).expect("a ver");
    let b = b.send_version(&mut vb, None).expect("b ver");
    (crate_finish(a, &vb), crate_finish(b, &va))
}

#[cfg(feature = "rust-peers")]
fn crate_finish(h: peer::Handshake<peer::SentVersion>, msg: &[u8]) -> CipherSession {
    let peer::GarbageResult::FoundGarbage {
        handshake: mut h,
        consumed_bytes,
    } = h.receive_garbage(msg).expect("garbage")
    else {
        unreachable!("terminator present")
    };
    let rem = &msg[consumed_bytes..];
    let len = h
        .decrypt_packet_len(rem[..3].try_into().expect("3"))
        .expect("len");
    let mut pkt = rem[3..3 + len].to_vec();
    match h.receive_version(&mut pkt).expect("version") {
        peer::VersionResult::Complete { cipher } => cipher,
        peer::VersionResult::Decoy(_) => unreachable!("no decoys sent"),
    }
}

/// The crate's round trip of every packet in `sizes`, zero-allocation API;
/// returns the bytes received.
#[cfg(feature = "rust-peers")]
pub fn crate_rt(
    a: &mut CipherSession,
    b: &mut CipherSession,
    sizes: &[u32],
    data: &[u8],
    buf: &mut [u8],
) -> usize {
    let mut got = 0;
    for &s in sizes {
        let s = s as usize;
        let n = peer::OutboundCipher::encryption_buffer_len(s);
        a.outbound()
            .encrypt(&data[..s], &mut buf[..n], peer::PacketType::Genuine, None)
            .expect("encrypt");
        let len = b
            .inbound()
            .decrypt_packet_len(buf[..3].try_into().expect("3"));
        let (_, pt) = b
            .inbound()
            .decrypt_in_place(&mut buf[3..3 + len], None)
            .expect("the crate's round trip");
        got += pt.len();
    }
    got
}

/// The crate's side of one lane: seal every packet into `wire`, then open
/// them all (the same shape as our batch jobs); returns the bytes received.
#[cfg(feature = "rust-peers")]
pub fn crate_lane(
    a: &mut CipherSession,
    b: &mut CipherSession,
    sizes: &[u32],
    data: &[u8],
    wire: &mut Vec<u8>,
) -> usize {
    wire.clear();
    for &s in sizes {
        let s = s as usize;
        let at = wire.len();
        let n = peer::OutboundCipher::encryption_buffer_len(s);
        wire.resize(at + n, 0);
        a.outbound()
            .encrypt(&data[..s], &mut wire[at..], peer::PacketType::Genuine, None)
            .expect("encrypt");
    }
    let mut at = 0;
    let mut got = 0;
    while at < wire.len() {
        let len = b
            .inbound()
            .decrypt_packet_len(wire[at..at + 3].try_into().expect("3"));
        let (_, pt) = b
            .inbound()
            .decrypt_in_place(&mut wire[at + 3..at + 3 + len], None)
            .expect("the crate's round trip");
        got += pt.len();
        at += 3 + len;
    }
    got
}

/// The crate's round trip through its allocating convenience API
/// (`encrypt_to_vec` / `decrypt_to_vec`, what its `io` layer uses).
#[cfg(feature = "rust-peers")]
pub fn crate_rt_vec(
    a: &mut CipherSession,
    b: &mut CipherSession,
    sizes: &[u32],
    data: &[u8],
) -> usize {
    let mut got = 0;
    for &s in sizes {
        let wire =
            a.outbound()
                .encrypt_to_vec(&data[..s as usize], peer::PacketType::Genuine, None);
        let len = b
            .inbound()
            .decrypt_packet_len(wire[..3].try_into().expect("3"));
        let (_, pt) = b
            .inbound()
            .decrypt_to_vec(&wire[3..3 + len], None)
            .expect("the crate's round trip");
        got += pt.len();
    }
    got
}

/// Without the crate: two placeholder sessions.
#[cfg(not(feature = "rust-peers"))]
pub fn crate_handshake() -> (CipherSession, CipherSession) {
    (CipherSession, CipherSession)
}

/// Without the crate: nothing measured.
#[cfg(not(feature = "rust-peers"))]
pub fn crate_rt(
    _: &mut CipherSession,
    _: &mut CipherSession,
    _: &[u32],
    _: &[u8],
    _: &mut [u8],
) -> usize {
    0
}

/// Without the crate: nothing measured.
#[cfg(not(feature = "rust-peers"))]
pub fn crate_lane(
    _: &mut CipherSession,
    _: &mut CipherSession,
    _: &[u32],
    _: &[u8],
    _: &mut Vec<u8>,
) -> usize {
    0
}

/// Without the crate: nothing measured.
#[cfg(not(feature = "rust-peers"))]
pub fn crate_rt_vec(_: &mut CipherSession, _: &mut CipherSession, _: &[u32], _: &[u8]) -> usize {
    0
}
