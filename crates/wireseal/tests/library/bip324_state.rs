//! The exported direction state (`bip324::state`): a packet built from an
//! export with independent primitives (RustCrypto's ChaCha20-Poly1305, the
//! raw ChaCha20 keystream) equals the library's, across rekeys; `advance`
//! lands where sealing or opening one by one lands; `frame` finds exactly
//! the packets `open_next` would open and stops where it would fail, and
//! `frame_interleaved` frames many streams exactly as `frame` does; the
//! byte form round-trips and refuses what it does not know.

use crate::bip324_session_support;

use bip324_session_support::pair;
use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use chacha20poly1305::ChaCha20Poly1305;
use wireseal::bip324::state::{
    frame_interleaved, DirectionState, FrameJob, Framed, Position, STATE_LEN, STATE_VERSION,
};
use wireseal::bip324::{
    sealed_len, Error, Network, Next, PacketReceiver, PacketSender, PacketType, REKEY_INTERVAL,
};
use wireseal::hazmat::chacha20::keystream;

fn nonce(index: u32, epoch: u64) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[..4].copy_from_slice(&index.to_le_bytes());
    n[4..].copy_from_slice(&epoch.to_le_bytes());
    n
}

/// The packet `s` describes, sealed from its keys and positions alone.
fn seal_from_state(s: &DirectionState, contents: &[u8], kind: PacketType) -> Vec<u8> {
    let l = s.length_position();
    let mut stream = [0u8; 704];
    keystream(s.length_key().expose(), &nonce(0, l.epoch), 0, &mut stream);
    let at = 3 * l.index as usize;
    let len = (contents.len() as u32).to_le_bytes();
    let mut wire: Vec<u8> = (0..3).map(|i| len[i] ^ stream[at + i]).collect();
    let p = s.packet_position();
    let mut body = vec![kind.header()];
    body.extend_from_slice(contents);
    let tag = ChaCha20Poly1305::new(s.packet_key().expose().into())
        .encrypt_in_place_detached(&nonce(p.index, p.epoch).into(), b"", &mut body)
        .unwrap();
    wire.extend_from_slice(&body);
    wire.extend_from_slice(&tag);
    wire
}

fn sessions() -> (PacketSender, PacketReceiver) {
    let (a, b) = pair(Network::MAINNET, Network::MAINNET, b"", false).unwrap();
    (a.split().0, b.split().1)
}

#[test]
fn a_packet_sealed_from_the_export_is_the_librarys_across_rekeys() {
    let (mut tx, mut rx) = sessions();
    let mut shadow = tx.export_state();
    let start = shadow.packet_position();
    for i in 0..2 * REKEY_INTERVAL as usize + 5 {
        let contents = vec![i as u8; i % 37];
        let kind = if i % 5 == 0 {
            PacketType::Decoy
        } else {
            PacketType::Genuine
        };
        let expected = seal_from_state(&tx.export_state(), &contents, kind);
        assert_eq!(seal_from_state(&shadow, &contents, kind), expected, "{i}");
        let wire = tx.seal_to_vec(&contents, kind, b"").unwrap();
        assert_eq!(wire, expected, "packet {i}");
        shadow.advance(1).unwrap();
        let mut buf = wire.clone();
        let Ok(Next::Packet { packet, .. }) = rx.open_next(b"", &mut buf) else {
            panic!("open {i}")
        };
        assert_eq!((packet.kind, packet.contents), (kind, &contents[..]));
    }
    // The handshake's decoy and version packet came first.
    assert_eq!(start, Position { epoch: 0, index: 2 });
    let p = tx.export_state().packet_position();
    let n = 2 * REKEY_INTERVAL as u64 + 5 + 2;
    assert_eq!(p.epoch * 224 + u64::from(p.index), n);
    assert_eq!(tx.export_state().length_position(), p);
    assert_eq!(
        shadow.to_bytes().expose(),
        tx.export_state().to_bytes().expose()
    );
}

#[test]
fn advance_lands_where_one_by_one_lands() {
    for n in [0u64, 1, 200, 217, 218, 219, 441, 442, 1000] {
        let (mut a, mut rx) = sessions();
        let mut b = PacketSender::from_state(&a.export_state());
        let mut wire = Vec::new();
        for _ in 0..n {
            wire.extend(a.seal_to_vec(b"x", PacketType::Genuine, b"").unwrap());
        }
        b.advance(n).unwrap();
        assert_eq!(
            a.export_state().to_bytes().expose(),
            b.export_state().to_bytes().expose(),
            "{n}"
        );
        let last = a.seal_to_vec(b"last", PacketType::Genuine, b"").unwrap();
        assert_eq!(
            b.seal_to_vec(b"last", PacketType::Genuine, b"").unwrap(),
            last
        );
        // The receiver skips the same packets, then opens the next one.
        let mut framed = Vec::new();
        assert_eq!(rx.frame(&wire, &mut framed), wire.len());
        assert_eq!(framed.len() as u64, n);
        rx.advance(n).unwrap();
        let mut buf = last.clone();
        assert!(matches!(
            rx.open_next(b"", &mut buf),
            Ok(Next::Packet { .. })
        ));
    }
}

#[test]
fn frame_finds_the_packets_and_stops_where_open_next_fails() {
    let (mut tx, rx) = sessions();
    let sizes = [0usize, 1, 17, 600, 5, 4000, 3];
    let mut wire = Vec::new();
    let mut offsets = Vec::new();
    for (i, &s) in sizes.iter().enumerate() {
        offsets.push(wire.len());
        wire.extend(
            tx.seal_to_vec(&vec![i as u8; s], PacketType::Genuine, b"")
                .unwrap(),
        );
    }
    let mut framed = Vec::new();
    assert_eq!(rx.frame(&wire, &mut framed), wire.len());
    let want: Vec<Framed> = offsets
        .iter()
        .zip(sizes)
        .map(|(&offset, contents_len)| Framed {
            offset,
            contents_len,
        })
        .collect();
    assert_eq!(framed, want);
    assert_eq!(rx.export_state().unwrap().packet_position().index, 2);

    // A cut anywhere inside the last packet stops before it.
    let last = offsets[6];
    for cut in [last, last + 1, last + 3, wire.len() - 1] {
        framed.clear();
        assert_eq!(rx.frame(&wire[..cut], &mut framed), last, "cut {cut}");
        assert_eq!(framed.len(), 6);
    }
    // A length over the receive limit stops before its packet.
    let (mut tx3, rx3) = sessions();
    let rx3 = rx3.with_max_contents(599);
    let mut w3 = Vec::new();
    for s in [10usize, 600, 10] {
        w3.extend(
            tx3.seal_to_vec(&vec![0; s], PacketType::Genuine, b"")
                .unwrap(),
        );
    }
    framed.clear();
    assert_eq!(rx3.frame(&w3, &mut framed), sealed_len(10));
    assert_eq!(framed.len(), 1);
}

/// Streams of every kind side by side (more than one group of them): whole,
/// cut inside a packet, over the receive limit, across a rekey, empty,
/// garbage, and a receiver between a length and its body; each framed as
/// `frame` frames it alone.
#[test]
fn frame_interleaved_frames_each_stream_as_frame_does() {
    let mut receivers = Vec::new();
    let mut wires = Vec::new();
    for i in 0..21usize {
        let (mut tx, rx) = sessions();
        let rx = if i % 7 == 3 {
            rx.with_max_contents(300)
        } else {
            rx
        };
        let n = [0usize, 1, 5, 40, 250][i % 5];
        let mut wire = Vec::new();
        for k in 0..n {
            let size = (k * 37 + i * 11) % 700;
            wire.extend(
                tx.seal_to_vec(&vec![k as u8; size], PacketType::Genuine, b"")
                    .unwrap(),
            );
        }
        match i % 4 {
            1 if !wire.is_empty() => wire.truncate(wire.len() - 1 - i),
            2 => wire.extend_from_slice(&[0xa5; 9]),
            _ => {}
        }
        let mut rx = rx;
        if i == 13 {
            let mut f = [0u8; 3];
            f.copy_from_slice(&wire[..3]);
            rx.decrypt_length(f).unwrap();
        }
        receivers.push(rx);
        wires.push(wire);
    }
    let mut alone: Vec<(usize, Vec<Framed>)> = Vec::new();
    for (rx, wire) in receivers.iter().zip(&wires) {
        let mut out = Vec::new();
        let end = rx.frame(wire, &mut out);
        alone.push((end, out));
    }
    let mut outs: Vec<Vec<Framed>> = vec![Vec::new(); receivers.len()];
    let mut jobs: Vec<FrameJob<'_>> = receivers
        .iter()
        .zip(&wires)
        .zip(outs.iter_mut())
        .map(|((rx, wire), out)| FrameJob::new(rx, wire, out))
        .collect();
    frame_interleaved(&mut jobs);
    let ends: Vec<usize> = jobs.iter().map(|j| j.end).collect();
    drop(jobs);
    for (i, ((end, want), (got_end, got))) in alone.iter().zip(ends.iter().zip(&outs)).enumerate() {
        assert_eq!((got_end, got), (end, want), "stream {i}");
    }
    // The cases are all there: cut, over the limit, mid-packet, whole.
    assert!(alone
        .iter()
        .zip(&wires)
        .any(|((e, _), w)| *e < w.len() && *e > 0));
    assert_eq!(alone[13], (0, Vec::new()));
    assert!(alone.iter().any(|(_, f)| f.len() == 250));
}

#[test]
fn a_poisoned_or_mid_packet_receiver_frames_nothing_and_does_not_export() {
    let (mut tx, mut rx) = sessions();
    let wire = tx.seal_to_vec(b"abc", PacketType::Genuine, b"").unwrap();
    let mut f = [0u8; 3];
    f.copy_from_slice(&wire[..3]);
    rx.decrypt_length(f).unwrap();
    let mut framed = Vec::new();
    assert_eq!(rx.frame(&wire, &mut framed), 0);
    assert_eq!(rx.export_state().unwrap_err(), Error::OutOfOrder);
    assert_eq!(rx.advance(1), Err(Error::OutOfOrder));
    let mut bad = wire[3..].to_vec();
    bad[0] ^= 1;
    assert_eq!(rx.open_body(b"", &mut bad).unwrap_err(), Error::Auth);
    assert_eq!(rx.frame(&wire, &mut framed), 0);
    assert!(framed.is_empty());
    assert_eq!(rx.export_state().unwrap_err(), Error::Poisoned);
    assert_eq!(rx.advance(0), Err(Error::Poisoned));
}

#[test]
fn the_byte_form_round_trips_and_refuses_what_it_does_not_know() {
    let (tx, _) = sessions();
    let s = tx.export_state();
    let b = s.to_bytes();
    assert_eq!(b.expose().len(), STATE_LEN);
    assert_eq!(b.expose()[0], STATE_VERSION);
    assert_eq!(&b.expose()[1..33], s.length_key().expose());
    assert_eq!(&b.expose()[45..77], s.packet_key().expose());
    let back = DirectionState::from_bytes(b.expose()).unwrap();
    assert_eq!(back.to_bytes().expose(), b.expose());
    let shown = format!("{s:?}");
    assert!(
        shown.starts_with("DirectionState") && shown.contains("epoch"),
        "{shown}"
    );
    assert!(!shown.contains("key"), "{shown}");

    let mut v2 = *b.expose();
    v2[0] = 2;
    assert_eq!(
        DirectionState::from_bytes(&v2).unwrap_err(),
        Error::StateVersion { version: 2 }
    );
    for at in [41usize, 85] {
        let mut bad = *b.expose();
        bad[at..at + 4].copy_from_slice(&REKEY_INTERVAL.to_le_bytes());
        assert_eq!(
            DirectionState::from_bytes(&bad).unwrap_err(),
            Error::InvalidState
        );
    }
    assert_eq!(
        DirectionState::from_bytes(&b.expose()[..88]).unwrap_err(),
        Error::Truncated { len: 88, min: 89 }
    );
    let mut long = b.expose().to_vec();
    long.push(0);
    assert_eq!(
        DirectionState::from_bytes(&long).unwrap_err(),
        Error::TooLong { len: 90, max: 89 }
    );
}

#[test]
fn the_last_epoch_ends_the_same_way_for_exports_and_the_library() {
    let (tx, _) = sessions();
    let mut raw = *tx.export_state().to_bytes().expose();
    for at in [33usize, 77] {
        raw[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    }
    for at in [41usize, 85] {
        raw[at..at + 4].copy_from_slice(&220u32.to_le_bytes());
    }
    let s = DirectionState::from_bytes(&raw).unwrap();
    assert_eq!(s.messages_left(), 3);
    let mut one_by_one = PacketSender::from_state(&s);
    let mut rx = PacketReceiver::from_state(&s);
    let mut wire = Vec::new();
    for left in (1..=3).rev() {
        assert_eq!(one_by_one.messages_left(), left);
        wire.extend(
            one_by_one
                .seal_to_vec(b"", PacketType::Genuine, b"")
                .unwrap(),
        );
    }
    assert_eq!(one_by_one.messages_left(), 0);
    assert_eq!(
        one_by_one.seal_to_vec(b"", PacketType::Genuine, b""),
        Err(Error::Exhausted)
    );
    assert_eq!(tx.messages_left(), tx.export_state().messages_left());
    let mut skipped = PacketSender::from_state(&s);
    assert_eq!(skipped.advance(4), Err(Error::Exhausted));
    skipped.advance(3).unwrap();
    assert_eq!(
        skipped.seal_to_vec(b"", PacketType::Genuine, b""),
        Err(Error::Exhausted)
    );
    let mut t = DirectionState::from_bytes(&raw).unwrap();
    assert_eq!(t.advance(4), Err(Error::Exhausted));
    assert_eq!(
        t.packet_position(),
        Position {
            epoch: u64::MAX,
            index: 220
        }
    );
    t.advance(3).unwrap();
    assert_eq!(t.messages_left(), 0);
    // Framing stops at the schedule's end too.
    let mut framed = Vec::new();
    wire.extend_from_slice(&[0u8; 40]);
    assert_eq!(rx.frame(&wire, &mut framed), 3 * sealed_len(0));
    assert_eq!(rx.advance(4), Err(Error::Exhausted));
}
