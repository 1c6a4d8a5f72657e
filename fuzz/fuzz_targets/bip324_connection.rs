//! The sans-IO BIP324 `Connection`, in either role, fed in fuzz-chosen
//! pieces (down to one byte at a time):
//!
//! * raw mode: any bytes. It never panics, an error poisons it for good,
//!   and what it buffers during the handshake stays within a key, the
//!   longest garbage and its terminator, plus one handshake packet.
//! * peer mode: a real peer's whole stream (our own `Connection` in the
//!   other role, with fuzz-chosen garbage, decoys and packets), with one
//!   byte optionally flipped. Untouched, the handshake completes with the
//!   peer's session id and exactly the packets sent come out; flipped, no
//!   packet that was not sent ever comes out.
//!
//! The input's first bytes are also parsed as a network name or magic,
//! which must show as itself again.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use wireseal::bip324::{
    Config, Connection, EllSwiftKeypair, Event, Network, PacketType, Role, ELLSWIFT_LEN,
    MAX_GARBAGE_LEN, TERMINATOR_LEN,
};

/// Fixed keys with fixed encodings, so runs are reproducible.
fn keypair(secret: u8) -> EllSwiftKeypair {
    static ENC: OnceLock<[[u8; ELLSWIFT_LEN]; 2]> = OnceLock::new();
    let enc = ENC.get_or_init(|| {
        [1u8, 2].map(|s| {
            *EllSwiftKeypair::from_secret_bytes(&[s; 32])
                .unwrap()
                .encoding()
        })
    });
    let e = &enc[(secret - 1) as usize];
    EllSwiftKeypair::from_secret_and_encoding_test_vectors_only(&[secret; 32], e).unwrap()
}

/// Takes `n` bytes from the front of `input` (fewer when it runs out).
fn take<'a>(input: &mut &'a [u8], n: usize) -> &'a [u8] {
    let (a, b) = input.split_at(n.min(input.len()));
    *input = b;
    a
}

fn byte(input: &mut &[u8]) -> u8 {
    take(input, 1).first().copied().unwrap_or(0)
}

/// Every packet `c` hands out now, or `None` after an error.
fn drain(c: &mut Connection, got: &mut Vec<Vec<u8>>) -> Option<()> {
    loop {
        match c.poll_event() {
            Ok(Some(Event::Packet(p))) => got.push(p.to_vec()),
            Ok(Some(_)) => {}
            Ok(None) => return Some(()),
            Err(_) => {
                assert!(c.is_poisoned());
                return None;
            }
        }
    }
}

fn raw(role: Role, mut input: &[u8]) {
    let mut c = Connection::new(role, keypair(2), &Config::new(Network::MAINNET)).unwrap();
    let mut failed = false;
    let mut got = Vec::new();
    while !input.is_empty() {
        let n = byte(&mut input) as usize * 17 + 1;
        let piece = take(&mut input, n);
        match c.receive(piece) {
            Ok(()) => assert!(!failed, "accepted bytes after an error"),
            Err(_) if failed => {}
            Err(_) => {
                failed = true;
                assert!(c.is_poisoned());
            }
        }
        if !c.is_established() {
            // Key, garbage and terminator, plus at most one whole packet
            // within Core's receive limit and the piece that completed it.
            let bound = ELLSWIFT_LEN + MAX_GARBAGE_LEN + TERMINATOR_LEN + (1 << 22) + n;
            assert!(c.buffered_len() <= bound);
        } else if !failed && drain(&mut c, &mut got).is_none() {
            failed = true;
        }
    }
}

fn with_peer(role: Role, mut input: &[u8]) {
    let garbage =
        vec![0x5a; u16::from_le_bytes([byte(&mut input), byte(&mut input)]) as usize % 4096];
    let decoys: Vec<Vec<u8>> = (0..byte(&mut input) % 4)
        .map(|i| vec![i; 9 * i as usize])
        .collect();
    let flip_at = u16::from_le_bytes([byte(&mut input), byte(&mut input)]) as usize;
    let mask = byte(&mut input);
    let peer_role = match role {
        Role::Initiator => Role::Responder,
        Role::Responder => Role::Initiator,
    };
    let peer_cfg = Config::new(Network::MAINNET)
        .with_garbage(garbage)
        .with_decoys(decoys);
    let mut peer = Connection::new(peer_role, keypair(1), &peer_cfg).unwrap();
    let mut ours = Connection::new(role, keypair(2), &Config::new(Network::MAINNET)).unwrap();
    let (mut delivered, mut sent, mut got) = (0usize, Vec::new(), Vec::new());
    let flipped = mask != 0;
    for round in 0..8 {
        // Ours to the peer, whole.
        let n = ours.transmit().len();
        if peer.receive(ours.transmit()).is_err() {
            return assert!(flipped, "an untouched handshake failed on the peer");
        }
        ours.transmitted(n);
        if peer.is_established() && round > 2 && !input.is_empty() {
            let len = u16::from_le_bytes([byte(&mut input), byte(&mut input)]) as usize % 3000;
            let contents = take(&mut input, len).to_vec();
            peer.send(b"d", PacketType::Decoy).unwrap();
            peer.send(&contents, PacketType::Genuine).unwrap();
            sent.push(contents);
        }
        // The peer to ours, in pieces, maybe with a byte flipped.
        let mut wire = peer.transmit().to_vec();
        peer.transmitted(wire.len());
        if flipped && (delivered..delivered + wire.len()).contains(&flip_at) {
            wire[flip_at - delivered] ^= mask;
        }
        delivered += wire.len();
        let mut rest = &wire[..];
        while !rest.is_empty() {
            let n = byte(&mut input) as usize + 1;
            if ours.receive(take(&mut rest, n)).is_err() {
                return assert!(flipped, "an untouched stream failed");
            }
        }
        if drain(&mut ours, &mut got).is_none() {
            return assert!(flipped, "an untouched packet failed");
        }
        assert!(
            got.len() <= sent.len() && got[..] == sent[..got.len()],
            "a packet not sent"
        );
    }
    let flip_landed = flipped && flip_at < delivered;
    if !flip_landed {
        assert!(ours.is_established());
        assert_eq!(ours.session_id(), peer.session_id());
        assert_eq!(got, sent);
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some(s) = data.get(..8).and_then(|h| std::str::from_utf8(h).ok()) {
        if let Ok(net) = s.parse::<Network>() {
            assert_eq!(net.to_string().parse::<Network>(), Ok(net));
        }
    }
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let role = if mode & 1 == 0 {
        Role::Initiator
    } else {
        Role::Responder
    };
    if mode & 2 == 0 {
        raw(role, rest);
    } else {
        with_peer(role, rest);
    }
});
