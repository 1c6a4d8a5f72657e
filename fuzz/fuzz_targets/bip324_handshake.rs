//! A BIP324 responder fed an initiator's stream in fuzz-chosen pieces (down
//! to one byte at a time): key, garbage (0-4095 bytes), terminator search,
//! decoys and version packet, optionally with one byte flipped. Unchanged,
//! the handshake completes with matching session ids; with a flipped byte it
//! never completes (a failure or waiting for more); it never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use wireseal::bip324::handshake::{GarbageRead, Handshake, KeyRead, VersionRead};
use wireseal::bip324::{EllSwiftKeypair, Network, ELLSWIFT_LEN};

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

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let garbage_len = u16::from_le_bytes([data[0], data[1]]) as usize % 4096;
    let decoys = (data[2] % 4) as usize;
    let flip_at = u16::from_le_bytes([data[3], data[4]]) as usize;
    let mask = data[5];
    let chunks = &data[6..];

    // The initiator's whole stream (it must see the responder's key first).
    let garbage = vec![0x5a; garbage_len];
    let net = Network::MAINNET;
    let init = Handshake::initiator(net, keypair(1), &garbage).unwrap();
    let resp = Handshake::responder(net, keypair(2), b"").unwrap();
    let (mut stream, mut back) = (Vec::new(), Vec::new());
    let init = init.write_key(&mut stream);
    let resp = resp.write_key(&mut back);
    let KeyRead::Derived {
        handshake: init, ..
    } = init.read_key(&back)
    else {
        panic!("initiator cannot read the responder's key")
    };
    let init_id = *init.session_id();
    let decoy_bodies: Vec<Vec<u8>> = (0..decoys).map(|i| vec![i as u8; i * 7]).collect();
    let decoy_refs: Vec<&[u8]> = decoy_bodies.iter().map(|d| &d[..]).collect();
    init.write_version(&decoy_refs, &mut stream).unwrap();
    let flipped = mask != 0 && flip_at < stream.len();
    if flipped {
        stream[flip_at] ^= mask;
    }

    // Deliver in pieces of 1..=256 bytes chosen by the input (then the rest).
    let mut sizes = chunks.iter().map(|&b| b as usize + 1);
    let (mut sent, mut buf) = (0usize, Vec::new());
    let mut deliver = |buf: &mut Vec<u8>| -> bool {
        if sent == stream.len() {
            return false;
        }
        let n = sizes
            .next()
            .unwrap_or(stream.len())
            .min(stream.len() - sent);
        buf.extend_from_slice(&stream[sent..sent + n]);
        sent += n;
        true
    };

    let mut resp = resp;
    let resp = loop {
        match resp.read_key(&buf) {
            KeyRead::NeedMore(h) if deliver(&mut buf) => resp = h,
            KeyRead::NeedMore(_) | KeyRead::V1Peer => return assert!(flipped),
            KeyRead::Derived {
                handshake,
                consumed,
            } => {
                buf.drain(..consumed);
                break handshake;
            }
        }
    };
    let mut resp = resp.write_version(&[], &mut Vec::new()).unwrap();
    let mut resp = loop {
        match resp.read_garbage(&buf) {
            Ok(GarbageRead::NeedMore(h)) if deliver(&mut buf) => resp = h,
            Ok(GarbageRead::NeedMore(_)) | Err(_) => return assert!(flipped),
            Ok(GarbageRead::Found {
                handshake,
                consumed,
            }) => {
                buf.drain(..consumed);
                break handshake;
            }
        }
    };
    let mut seen_decoys = 0;
    loop {
        match resp.read_version(&mut buf) {
            Ok(VersionRead::NeedMore(h, _)) if deliver(&mut buf) => resp = h,
            Ok(VersionRead::NeedMore(..)) | Err(_) => return assert!(flipped),
            Ok(VersionRead::Decoy(h, consumed)) => {
                buf.drain(..consumed);
                seen_decoys += 1;
                resp = h;
            }
            Ok(VersionRead::Done { session, .. }) => {
                assert!(!flipped, "a flipped byte went unnoticed");
                assert_eq!(seen_decoys, decoys);
                assert_eq!(session.id(), &init_id);
                return;
            }
        }
    }
});
