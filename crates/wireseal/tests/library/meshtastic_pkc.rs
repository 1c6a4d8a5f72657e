//! Behaviour of PKC direct messages, channel keys, headers and batch open,
//! including every negative case a decoder must handle.

use wireseal::batch::Batch;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::{
    pkc, ChannelKey, Error, PacketHeader, PkcEngine, PkcPacket, ReplayWindow, SealedPkc,
    MAX_PAYLOAD_LEN,
};

fn pair() -> (PkcEngine, [u8; 32], PkcEngine, [u8; 32]) {
    let a = StaticSecret::generate();
    let b = StaticSecret::generate();
    let (ap, bp) = (*a.public_key(), *b.public_key());
    (
        PkcEngine::new(a).unwrap(),
        ap,
        PkcEngine::new(b).unwrap(),
        bp,
    )
}

/// The packet description of a direct message to or from `peer`.
fn pkt(peer: &[u8; 32], from: u32, id: u32) -> PkcPacket<'_> {
    PkcPacket {
        peer_public: peer,
        from,
        id,
    }
}

#[test]
fn every_tampered_byte_is_rejected() {
    let (mut a, ap, mut b, bp) = pair();
    let payload = a
        .seal_to_vec(0, pkt(&bp, 10, 20), b"meet at the north ridge")
        .unwrap();
    assert_eq!(payload.len(), pkc::sealed_len(23));
    for i in 0..payload.len() {
        let mut t = payload.clone();
        t[i] ^= 0x80;
        let region = if i < 23 {
            "ciphertext"
        } else if i < 31 {
            "tag"
        } else {
            "extraNonce"
        };
        assert_eq!(
            b.open_to_vec(0, pkt(&ap, 10, 20), &t),
            Err(Error::Auth),
            "{region} byte {i}"
        );
    }
    // Header fields bound into the nonce: a wrong id or sender fails too.
    assert_eq!(
        b.open_to_vec(0, pkt(&ap, 10, 21), &payload),
        Err(Error::Auth)
    );
    assert_eq!(
        b.open_to_vec(0, pkt(&ap, 11, 20), &payload),
        Err(Error::Auth)
    );
    assert_eq!(
        b.open_to_vec(0, pkt(&ap, 10, 20), &payload).unwrap(),
        b"meet at the north ridge"
    );
}

#[test]
fn wrong_key_truncated_and_oversize() {
    let (mut a, ap, mut b, bp) = pair();
    let payload = a.seal_to_vec(0, pkt(&bp, 1, 2), b"x").unwrap();
    // Wrong key: a third party, or the right party naming the wrong sender key.
    let (mut c, _, _, cp) = pair();
    assert_eq!(c.open_to_vec(0, pkt(&ap, 1, 2), &payload), Err(Error::Auth));
    assert_eq!(b.open_to_vec(0, pkt(&cp, 1, 2), &payload), Err(Error::Auth));
    for n in 0..pkc::OVERHEAD {
        assert_eq!(
            b.open_to_vec(0, pkt(&ap, 1, 2), &payload[..n]),
            Err(Error::Truncated { len: n, min: 12 })
        );
    }
    // Dropping bytes from the middle still fails authentication.
    assert_eq!(
        b.open_to_vec(0, pkt(&ap, 1, 2), &payload[1..]),
        Err(Error::Auth)
    );
    let big = vec![0u8; MAX_PAYLOAD_LEN + 1];
    assert!(matches!(
        b.open_to_vec(0, pkt(&ap, 1, 2), &big),
        Err(Error::TooLong { .. })
    ));
    let pt = vec![0u8; pkc::MAX_PLAINTEXT_LEN];
    let full = a.seal_to_vec(0, pkt(&bp, 1, 3), &pt).unwrap();
    assert_eq!(full.len(), MAX_PAYLOAD_LEN);
    assert_eq!(b.open_to_vec(0, pkt(&ap, 1, 3), &full).unwrap(), pt);
    let over = vec![0u8; pkc::MAX_PLAINTEXT_LEN + 1];
    assert!(matches!(
        a.seal_to_vec(0, pkt(&bp, 1, 3), &over),
        Err(Error::TooLong { max: 227, .. })
    ));
    let mut small = [0u8; 12];
    assert_eq!(
        a.seal_into(0, pkt(&bp, 1, 3), b"ab", &mut small),
        Err(Error::BufferTooSmall { required: 14 })
    );
}

#[test]
fn weak_peer_keys_are_refused() {
    let (mut a, _, _, _) = pair();
    for bad in [[0u8; 32], {
        let mut k = [0u8; 32];
        k[0] = 1;
        k
    }] {
        assert_eq!(
            a.seal_to_vec(0, pkt(&bad, 1, 1), b"x"),
            Err(Error::InvalidKey)
        );
        assert_eq!(
            a.open_to_vec(0, pkt(&bad, 1, 1), &[0u8; 20]),
            Err(Error::InvalidKey)
        );
    }
    assert!(a.cache().is_empty(), "a refused key is never cached");
}

/// Seals with a given extraNonce into a new vector.
fn seal_with_extra(
    e: &mut PkcEngine,
    packet: PkcPacket<'_>,
    extra: [u8; 4],
    plaintext: &[u8],
) -> Result<Vec<u8>, Error> {
    let mut out = vec![0u8; pkc::sealed_len(plaintext.len())];
    let n = e.seal_with_extra_nonce_into(0, packet, extra, plaintext, &mut out)?;
    out.truncate(n);
    Ok(out)
}

#[test]
fn explicit_extra_nonce_is_used_verbatim() {
    let (mut a, ap, mut b, bp) = pair();
    let p1 = seal_with_extra(&mut a, pkt(&bp, 5, 6), [1, 2, 3, 4], b"abc").unwrap();
    let p2 = seal_with_extra(&mut a, pkt(&bp, 5, 6), [1, 2, 3, 4], b"abc").unwrap();
    assert_eq!(p1, p2);
    assert_eq!(&p1[p1.len() - 4..], &[1, 2, 3, 4]);
    assert_eq!(b.open_to_vec(0, pkt(&ap, 5, 6), &p1).unwrap(), b"abc");
}

#[test]
fn drawn_extra_nonces_are_fresh_across_refills() {
    // 2,000 seals cross two refills of the engine's NonceSource (768 four-byte
    // extraNonces each). Every payload opens, and the extraNonces are
    // distinct: a repeated buffer would repeat hundreds of them, while
    // independent 32-bit draws collide at all with probability ~5e-4 and
    // twice with ~1e-7.
    let (mut a, ap, mut b, bp) = pair();
    let mut seen = std::collections::HashSet::new();
    for id in 0..2000u32 {
        let p = a.seal_to_vec(0, pkt(&bp, 5, id), b"abc").unwrap();
        seen.insert(<[u8; 4]>::try_from(&p[p.len() - 4..]).unwrap());
        assert_eq!(b.open_to_vec(0, pkt(&ap, 5, id), &p).unwrap(), b"abc");
    }
    assert!(seen.len() >= 1999, "{} distinct of 2000", seen.len());
}
#[test]
fn replay_is_refused_only_after_the_tag_verifies() {
    let (mut a, ap, b, bp) = pair();
    let mut b = b.with_replay_window(ReplayWindow::default());
    let genuine = a.seal_to_vec(0, pkt(&bp, 7, 100), b"hello").unwrap();
    // A forgery carrying the same (from, id) arrives first: it fails the tag
    // and must not mark the id as used.
    let mut forged = genuine.clone();
    forged[0] ^= 1;
    assert_eq!(
        b.open_to_vec(0, pkt(&ap, 7, 100), &forged),
        Err(Error::Auth)
    );
    assert_eq!(
        b.open_to_vec(0, pkt(&ap, 7, 100), &genuine).unwrap(),
        b"hello"
    );
    assert_eq!(
        b.open_to_vec(0, pkt(&ap, 7, 100), &genuine),
        Err(Error::Replay)
    );
    let next = a.seal_to_vec(0, pkt(&bp, 7, 101), b"again").unwrap();
    assert_eq!(b.open_to_vec(0, pkt(&ap, 7, 101), &next).unwrap(), b"again");
}

#[test]
fn cache_serves_repeats_and_flushes_on_own_key_change() {
    let (mut a, ap, mut b, bp) = pair();
    for id in 0..10 {
        let p = a.seal_to_vec(0, pkt(&bp, 1, id), b"m").unwrap();
        assert_eq!(b.open_to_vec(0, pkt(&ap, 1, id), &p).unwrap(), b"m");
    }
    let s = b.cache().stats();
    assert_eq!((s.misses, s.hits), (1, 9));
    // Our key changes: old messages to the old key no longer open, and the
    // cache was flushed rather than serving a stale secret.
    let old = a.seal_to_vec(0, pkt(&bp, 1, 99), b"m").unwrap();
    b.set_own_key(StaticSecret::generate()).unwrap();
    assert_eq!(b.open_to_vec(0, pkt(&ap, 1, 99), &old), Err(Error::Auth));
    assert_eq!(b.cache().stats().flushes, 1);
    // The peer changed key: invalidation makes the next message derive afresh.
    assert!(a.invalidate_peer(&bp));
    assert!(!a.invalidate_peer(&bp));
}

#[test]
fn cache_entries_expire() {
    let (mut a, ap, b, bp) = pair();
    let mut b = b.with_ttl(60);
    let p = a.seal_to_vec(0, pkt(&bp, 1, 1), b"m").unwrap();
    b.open_to_vec(0, pkt(&ap, 1, 1), &p).unwrap();
    b.open_to_vec(59, pkt(&ap, 1, 1), &p).unwrap();
    b.open_to_vec(60, pkt(&ap, 1, 1), &p).unwrap();
    let s = b.cache().stats();
    assert_eq!((s.hits, s.misses, s.expirations), (1, 2, 1));
}

#[test]
fn batch_open_matches_one_at_a_time() {
    let receiver = StaticSecret::from_bytes(&[0x48; 32]).unwrap();
    let rp = *receiver.public_key();
    let senders: Vec<StaticSecret> = (0..40).map(|_| StaticSecret::generate()).collect();
    let mut payloads = Vec::new();
    for (i, s) in senders.iter().enumerate() {
        let sp = *s.public_key();
        let mut e = PkcEngine::new(StaticSecret::from_bytes(s.expose()).unwrap()).unwrap();
        for j in 0..5u32 {
            let pt = vec![(i as u8) ^ (j as u8); 10 + j as usize * 40];
            let mut p = e.seal_to_vec(0, pkt(&rp, i as u32, j), &pt).unwrap();
            if (i + j as usize) % 7 == 0 {
                p[3] ^= 1; // some tampered packets
            }
            payloads.push((sp, i as u32, j, p));
        }
    }
    // Duplicates (replays) and a weak key mixed in.
    let dup = payloads[3].clone();
    payloads.push(dup);
    payloads.push(([0u8; 32], 999, 1, vec![0u8; 30]));
    payloads.push((payloads[0].0, 0, 0, vec![1, 2, 3]));
    let packets: Vec<SealedPkc<'_>> = payloads
        .iter()
        .map(|(k, f, i, p)| SealedPkc {
            packet: pkt(k, *f, *i),
            payload: p,
        })
        .collect();
    let make = || {
        PkcEngine::with_capacity(StaticSecret::from_bytes(&[0x48; 32]).unwrap(), 16)
            .unwrap()
            .with_replay_window(ReplayWindow::default())
    };
    let mut one = make();
    let serial: Vec<_> = packets
        .iter()
        .map(|p| one.open_to_vec(0, p.packet, p.payload))
        .collect();
    assert!(serial.iter().filter(|r| r.is_ok()).count() > 150);
    assert!(serial.contains(&Err(Error::Auth)));
    assert!(serial.iter().any(|r| matches!(r, Err(Error::Replay))));
    assert!(serial.contains(&Err(Error::InvalidKey)));
    // The caller-buffer variant: same results, plaintexts laid out in order.
    let mut e = make();
    let need = wireseal::meshtastic::open_batch_len(&packets);
    let mut short = vec![0u8; need - 1];
    assert_eq!(
        e.open_batch_into(0, &Batch::with_threads(2), &packets, &mut short)
            .unwrap_err(),
        Error::BufferTooSmall { required: need }
    );
    let mut out = vec![0u8; need];
    let ranges = e
        .open_batch_into(0, &Batch::with_threads(2), &packets, &mut out)
        .unwrap();
    let as_vecs: Vec<_> = ranges
        .into_iter()
        .map(|r| r.map(|r| out[r].to_vec()))
        .collect();
    assert_eq!(as_vecs, serial);
    for threads in [1, 2, 4] {
        let mut e = make();
        assert_eq!(
            e.open_batch_to_vec(0, &Batch::with_threads(threads), &packets),
            serial,
            "{threads} threads"
        );
        // A second batch hits the cache (and now everything is a replay).
        let again = e.open_batch_to_vec(1, &Batch::with_threads(threads), &packets);
        assert!(again.iter().all(|r| r.is_err()));
    }
    // With room for every sender, the cache ends up exactly as one at a
    // time leaves it: the same counters and the same entries.
    let roomy = || {
        PkcEngine::with_capacity(StaticSecret::from_bytes(&[0x48; 32]).unwrap(), 64)
            .unwrap()
            .with_replay_window(ReplayWindow::default())
    };
    let mut one = roomy();
    for p in &packets {
        let _ = one.open_to_vec(0, p.packet, p.payload);
    }
    for threads in [1, 2, 4] {
        let mut e = roomy();
        assert_eq!(
            e.open_batch_to_vec(0, &Batch::with_threads(threads), &packets),
            serial
        );
        assert_eq!(e.cache().stats(), one.cache().stats(), "{threads} threads");
        assert_eq!(e.cache().len(), one.cache().len());
        for s in &senders {
            assert!(e.cache().peek(0, s.public_key()).is_some());
        }
    }
    assert_eq!(
        one.cache().stats().misses,
        41,
        "40 senders and the weak key"
    );
}

#[test]
fn channel_psk_expansion_edges() {
    assert!(!ChannelKey::from_psk(&[]).unwrap().is_encrypted());
    assert!(!ChannelKey::from_psk(&[0]).unwrap().is_encrypted());
    assert_eq!(
        ChannelKey::from_psk(&[255]).unwrap().expanded()[15],
        0x01u8.wrapping_add(254)
    );
    let k = ChannelKey::from_psk(&[9, 8, 7]).unwrap();
    assert_eq!(
        k.expanded(),
        &[9, 8, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    let k = ChannelKey::from_psk(&[1u8; 20]).unwrap();
    assert_eq!(k.expanded().len(), 32);
    assert_eq!(&k.expanded()[20..], &[0u8; 12]);
    assert_eq!(
        ChannelKey::from_psk(&[1u8; 16]).unwrap().expanded(),
        &[1u8; 16]
    );
    assert_eq!(
        ChannelKey::from_psk(&[1u8; 33]).unwrap_err(),
        Error::InvalidPsk { len: 33 }
    );
    // An unencrypted channel leaves bytes alone; its hash is the name's XOR.
    let none = ChannelKey::from_psk(&[]).unwrap();
    let mut b = *b"abc";
    none.open_in_place(1, 2, &mut b).unwrap();
    assert_eq!(&b, b"abc");
    assert_eq!(none.hash("ab"), b'a' ^ b'b');
    assert!(!format!("{k:?}").contains("01"));
}

#[test]
fn header_rejects_bad_lengths_and_fields() {
    assert_eq!(
        PacketHeader::parse(&[0u8; 15]).unwrap_err(),
        Error::Truncated { len: 15, min: 16 }
    );
    assert!(matches!(
        PacketHeader::parse(&[0u8; 256]),
        Err(Error::TooLong { .. })
    ));
    let (h, rest) = PacketHeader::parse(&[0xffu8; 16]).unwrap();
    assert!(rest.is_empty());
    assert_eq!(
        (h.hop_limit, h.hop_start, h.want_ack, h.via_mqtt),
        (7, 7, true, true)
    );
    let bad = PacketHeader {
        hop_limit: 8,
        ..Default::default()
    };
    assert_eq!(
        bad.to_bytes().unwrap_err(),
        Error::HeaderField { field: "hop_limit" }
    );
    let bad = PacketHeader {
        hop_start: 9,
        ..Default::default()
    };
    assert!(bad.frame(b"").is_err());
    assert!(PacketHeader::default()
        .frame(&[0u8; MAX_PAYLOAD_LEN + 1])
        .is_err());
}

/// A batch whose every key is cached and that has no replay window books
/// its cache hits per slot, not per packet: the same counters and the same
/// recency as opening the packets one at a time.
#[test]
fn cached_batch_books_hits_as_one_at_a_time() {
    let receiver = StaticSecret::generate();
    let rp = *receiver.public_key();
    let senders: Vec<StaticSecret> = (0..8).map(|_| StaticSecret::generate()).collect();
    let mut payloads = Vec::new();
    // Senders 0..6 send, in an order that makes their last uses differ from
    // their first; 6 and 7 stay out of the batch.
    for (k, i) in [3usize, 0, 5, 3, 1, 4, 0, 2, 5, 3].into_iter().enumerate() {
        let s = &senders[i];
        let mut e = PkcEngine::new(StaticSecret::from_bytes(s.expose()).unwrap()).unwrap();
        let mut p = e
            .seal_to_vec(0, pkt(&rp, i as u32, k as u32), b"hi")
            .unwrap();
        if k == 4 {
            p[0] ^= 1; // a tag that fails still counts its hit
        }
        payloads.push((*s.public_key(), i as u32, k as u32, p));
    }
    payloads.push((*senders[1].public_key(), 1, 99, vec![1, 2, 3]));
    let packets: Vec<SealedPkc<'_>> = payloads
        .iter()
        .map(|(k, f, i, p)| SealedPkc {
            packet: pkt(k, *f, *i),
            payload: p,
        })
        .collect();
    let warm = |e: &mut PkcEngine| {
        for s in &senders {
            let mut tx = PkcEngine::new(StaticSecret::from_bytes(s.expose()).unwrap()).unwrap();
            let p = tx.seal_to_vec(0, pkt(&rp, 0, 0), b"x").unwrap();
            e.open_to_vec(0, pkt(s.public_key(), 0, 0), &p).unwrap();
        }
    };
    let make = || {
        let own = StaticSecret::from_bytes(receiver.expose()).unwrap();
        let mut e = PkcEngine::with_capacity(own, 8).unwrap();
        warm(&mut e);
        e
    };
    let mut one = make();
    let serial: Vec<_> = packets
        .iter()
        .map(|p| one.open_to_vec(0, p.packet, p.payload))
        .collect();
    assert!(serial.contains(&Err(Error::Auth)));
    for threads in [1, 2, 4] {
        let mut e = make();
        let got = e.open_batch_to_vec(0, &Batch::with_threads(threads), &packets);
        assert_eq!(got, serial, "{threads} threads");
        assert_eq!(e.cache().stats(), one.cache().stats(), "{threads} threads");
        // The same recency: each new sender evicts the same entry.
        let mut one = make();
        for p in &packets {
            let _ = one.open_to_vec(0, p.packet, p.payload);
        }
        for n in 0..8u8 {
            let k = [n + 1; 32];
            let weak_or_new = |e: &mut PkcEngine| e.open_to_vec(0, pkt(&k, 9, 9), &[0; 20]);
            assert_eq!(weak_or_new(&mut e), weak_or_new(&mut one));
            for s in &senders {
                let p = s.public_key();
                assert_eq!(
                    e.cache().peek(0, p).is_some(),
                    one.cache().peek(0, p).is_some()
                );
            }
        }
    }
}
