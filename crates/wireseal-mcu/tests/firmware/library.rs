//! The library's portable core (`wireseal`, `default-features = false`)
//! inside the emulated Cortex-M4: the Meshtastic PKC engine with its cache
//! in fixed storage (both key forms), channel packets, headers, XEdDSA, and
//! peat mesh-wide frames, on the repository's vectors, with tampered inputs
//! refused.

use crate::vectors::*;
use core::str::FromStr;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use wireseal::cache::Slot;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::xeddsa::{SignedFields, SigningKey, VerifyingKey};
use wireseal::meshtastic::{
    ChannelKey, Error, PacketHeader, PkcEngine, PkcKey, PkcKeyForm, PkcPacket, PkcSecret,
};
use wireseal::peat::{self, MeshId, MeshKey};
use wireseal_mcu::harness::{group, Hex};

/// A deterministic CSPRNG for the tests (the emulated board has no RNG
/// peripheral; firmware passes its own).
pub fn test_rng(seed: u8) -> ChaCha20Rng {
    ChaCha20Rng::from_seed([seed; 32])
}

/// An engine over an inline array of 16 slots.
pub fn engine<K: PkcKeyForm>(private: &[u8; 32]) -> Option<PkcEngine<K, [Slot<K>; 16]>> {
    let own = StaticSecret::from_bytes(private).ok()?;
    PkcEngine::with_slots(own, Slot::array::<16>()).ok()
}

pub fn run() {
    pkc_vector::<PkcSecret>("library: meshtastic pkc radio frame (32-byte key slots)");
    pkc_vector::<PkcKey>("library: meshtastic pkc radio frame (expanded-key slots)");
    pkc_round_trip_and_tamper();
    cache_behaviour();
    channel();
    header();
    peat_mesh();
    xeddsa();
    crate::library_peat::run();
}

fn pkc_vector<K: PkcKeyForm>(name: &'static str) {
    let v = &MESH_PKC;
    let mut g = group(name);
    let Some(mut e) = engine::<K>(&v.our_private) else {
        g.check(false, format_args!("our key refused"));
        g.end();
        return;
    };
    let packet = PkcPacket {
        peer_public: &v.sender_public,
        from: v.from_node,
        id: v.packet_id,
    };
    for now in [0u64, 1] {
        let mut out = [0u8; 64];
        let r = e.open_into(now, packet, v.payload, &mut out);
        g.check(
            r == Ok(v.plaintext.len()),
            format_args!("open at {now}: {r:?}"),
        );
        g.check_bytes(
            format_args!("{} plaintext", v.id),
            &out[..v.plaintext.len()],
            v.plaintext,
        );
    }
    let n = v.payload.len();
    let extra: [u8; 4] = v.payload[n - 4..].try_into().unwrap_or([0; 4]);
    let nonce = wireseal::meshtastic::pkc::nonce(v.from_node, v.packet_id, extra);
    g.check_bytes(format_args!("{} nonce", v.id), &nonce, &v.nonce);
    let shared = wireseal::hazmat::x25519::StaticSecret::from_bytes(&v.our_private)
        .ok()
        .and_then(|k| k.diffie_hellman(&v.sender_public).ok())
        .map(|s| wireseal::hazmat::sha::sha256(s.expose()));
    g.check(
        shared.is_some_and(|k| k[..8] == v.shared_key_prefix),
        format_args!("{} key prefix", v.id),
    );
    let s = e.cache().stats();
    g.check(
        (s.hits, s.misses) == (1, 1),
        format_args!("hits/misses {}/{}, want 1/1", s.hits, s.misses),
    );
    g.end();
}

fn pkc_round_trip_and_tamper() {
    let v = &MESH_PKC;
    let mut g = group("library: pkc seal/open between two engines, tampered payloads refused");
    let mut rng = test_rng(1);
    let alice = StaticSecret::generate_with_rng(&mut rng);
    let alice_public = *alice.public_key();
    let Ok(mut a) = PkcEngine::<PkcSecret, _>::with_slots(alice, Slot::array::<4>()) else {
        g.check(false, format_args!("alice refused"));
        g.end();
        return;
    };
    let Some(mut b) = engine::<PkcKey>(&v.our_private) else {
        g.check(false, format_args!("bob refused"));
        g.end();
        return;
    };
    let bob_public = *b.public_key();
    let to_bob = PkcPacket {
        peer_public: &bob_public,
        from: 0x0929,
        id: 77,
    };
    let from_alice = PkcPacket {
        peer_public: &alice_public,
        ..to_bob
    };
    let mut sealed = [0u8; 64];
    let n = a.seal_with_rng_into(5, &mut rng, to_bob, v.plaintext, &mut sealed);
    g.check(
        n == Ok(v.plaintext.len() + 12),
        format_args!("seal length {n:?}"),
    );
    let n = v.plaintext.len() + 12;
    let mut out = [0u8; 64];
    let r = b.open_into(5, from_alice, &sealed[..n], &mut out);
    g.check(r == Ok(v.plaintext.len()), format_args!("open {r:?}"));
    g.check_bytes(
        format_args!("round trip"),
        &out[..v.plaintext.len()],
        v.plaintext,
    );
    for i in 0..n {
        let mut t = sealed;
        t[i] ^= 0x01;
        let r = b.open_into(5, from_alice, &t[..n], &mut out);
        g.check(
            r == Err(Error::Auth),
            format_args!("byte {i} flipped: {r:?}"),
        );
        g.check(
            out[..n - 12].iter().all(|&x| x == 0),
            format_args!("refused plaintext not wiped: {:?}", Hex(&out[..n - 12])),
        );
    }
    let other_id = PkcPacket {
        id: 78,
        ..from_alice
    };
    let r = b.open_into(5, other_id, &sealed[..n], &mut out);
    g.check(
        r == Err(Error::Auth),
        format_args!("other packet id: {r:?}"),
    );
    let r = b.open_into(5, from_alice, &sealed[..11], &mut out);
    g.check(
        matches!(r, Err(Error::Truncated { .. })),
        format_args!("short payload: {r:?}"),
    );
    let r = b.open_into(5, from_alice, &sealed[..n], &mut out[..2]);
    g.check(
        matches!(r, Err(Error::BufferTooSmall { .. })),
        format_args!("small buffer: {r:?}"),
    );
    let big = [0u8; 256];
    let r = a.seal_with_rng_into(5, &mut rng, to_bob, &big, &mut sealed);
    g.check(
        matches!(r, Err(Error::TooLong { .. })),
        format_args!("oversized plaintext: {r:?}"),
    );
    g.end();
}

fn cache_behaviour() {
    let v = &MESH_PKC;
    let mut g = group("library: shared-secret cache in 2 slots: hits, lru eviction, key change");
    let Ok(own) = StaticSecret::from_bytes(&v.our_private) else {
        g.check(false, format_args!("key refused"));
        g.end();
        return;
    };
    let Ok(mut e) = PkcEngine::<PkcSecret, _>::with_slots(own, Slot::array::<2>()) else {
        g.check(false, format_args!("engine refused"));
        g.end();
        return;
    };
    let mut out = [0u8; 64];
    let mut touch = |e: &mut PkcEngine<PkcSecret, [Slot<PkcSecret>; 2]>, peer: &[u8; 32], now| {
        let p = PkcPacket {
            peer_public: peer,
            from: 1,
            id: 2,
        };
        // The tag fails (the payload is not for this key); the key is
        // derived and cached all the same.
        e.open_into(now, p, &[0u8; 20], &mut out)
    };
    let a = v.sender_public;
    let b = MESH_X25519[0].public;
    let c = MESH_X25519[1].public;
    for (peer, now) in [(&a, 1), (&a, 2), (&b, 3), (&a, 4)] {
        let _ = touch(&mut e, peer, now);
    }
    let s = e.cache().stats();
    g.check(
        (s.hits, s.misses) == (2, 2),
        format_args!("a, a, b, a: {}/{} hits/misses, want 2/2", s.hits, s.misses),
    );
    // c evicts the least recently used entry: b, not a.
    let _ = touch(&mut e, &c, 5);
    g.check(e.cache().peek(5, &a).is_some(), format_args!("a evicted"));
    g.check(e.cache().peek(5, &b).is_none(), format_args!("b kept"));
    g.check(
        e.cache().peek(5, &c).is_some(),
        format_args!("c not cached"),
    );
    g.check(e.cache().stats().evictions == 1, format_args!("evictions"));
    let mut a2 = a;
    a2[31] ^= 1;
    g.check(
        e.cache().peek(5, &a2).is_none(),
        format_args!("a key differing in its last byte hit"),
    );
    let weak = MESH_X25519[2].public;
    let r = touch(&mut e, &weak, 6);
    g.check(
        r == Err(Error::InvalidKey) && e.cache().peek(6, &weak).is_none(),
        format_args!("weak key: {r:?}"),
    );
    let Ok(other) = StaticSecret::from_bytes(&MESH_X25519[0].private) else {
        g.end();
        return;
    };
    let flushes = e.cache().stats().flushes;
    let _ = e.set_own_key(other);
    g.check(
        e.cache().is_empty() && e.cache().stats().flushes == flushes + 1,
        format_args!("a new own key must flush the cache"),
    );
    g.end();
}

fn channel() {
    let v = &MESH_CHANNEL;
    let mut g = group("library: meshtastic channel (default key, LongFast)");
    let Ok(key) = ChannelKey::from_psk(&v.psk) else {
        g.check(false, format_args!("psk refused"));
        g.end();
        return;
    };
    let iv = wireseal::meshtastic::channel::counter_block(0x0929, 0x13b2_d662);
    g.check_bytes(format_args!("counter block"), &iv, &v.nonce);
    let mut buf = [0u8; 32];
    let buf = &mut buf[..v.plaintext.len()];
    buf.copy_from_slice(v.plaintext);
    let r = key.seal_in_place(0x0929, 0x13b2_d662, buf).map(|b| b.len());
    g.check(r == Ok(v.plaintext.len()), format_args!("seal {r:?}"));
    g.check_bytes(format_args!("encrypt"), buf, v.ciphertext);
    let _ = key.open_in_place(0x0929, 0x13b2_d662, buf);
    g.check_bytes(format_args!("decrypt"), buf, v.plaintext);
    // The firmware pads a 17-31-byte PSK with zeros to AES-256; 33 bytes
    // is no PSK at all.
    let padded = ChannelKey::from_psk(&[1u8; 24]).map(|k| k.padded_from());
    g.check(
        padded == Ok(Some(24)),
        format_args!("24-byte psk: {padded:?}"),
    );
    let r = ChannelKey::from_psk(&[0u8; 33]);
    g.check(r.is_err(), format_args!("33-byte psk accepted"));
    let mut big = [0u8; 300];
    let r = key.open_in_place(1, 2, &mut big).map(|b| b.len());
    g.check(
        matches!(r, Err(Error::TooLong { .. })),
        format_args!("oversized payload: {r:?}"),
    );
    g.end();
}

fn header() {
    let mut g = group("library: meshtastic header parse and write");
    let mut frame = [0u8; 20];
    frame[..4].copy_from_slice(&0xffff_ffffu32.to_le_bytes());
    frame[4..8].copy_from_slice(&0x0929u32.to_le_bytes());
    frame[8..12].copy_from_slice(&0x13b2_d662u32.to_le_bytes());
    frame[12] = 0x63;
    frame[13] = 0x08;
    match PacketHeader::parse(&frame) {
        Ok((h, payload)) => {
            g.check(
                h.to == 0xffff_ffff && h.from == 0x0929 && h.id == 0x13b2_d662,
                format_args!("fields {h:?}"),
            );
            g.check(
                payload.len() == 4,
                format_args!("payload {}", payload.len()),
            );
            let back = h.to_bytes();
            g.check(
                back.as_ref().map(|b| &b[..]) == Ok(&frame[..16]),
                format_args!("rewritten {back:?}"),
            );
        }
        Err(e) => g.check(false, format_args!("parse {e:?}")),
    }
    let r = PacketHeader::parse(&frame[..15]);
    g.check(
        matches!(r, Err(Error::Truncated { .. })),
        format_args!("short header: {r:?}"),
    );
    g.end();
}

fn peat_mesh() {
    let mut g = group("library: peat mesh-wide frames (peat-btle vectors), tampered refused");
    let mut rng = test_rng(2);
    for v in PEAT_MESH {
        let Ok(id) = MeshId::from_str(v.mesh_id) else {
            g.check(false, format_args!("{}: mesh id refused", v.mesh_id));
            continue;
        };
        let raw = peat::derive_key_bytes(&id, &v.secret);
        g.check_bytes(
            format_args!("{} key", v.label),
            raw.expose(),
            &v.derived_key,
        );
        let key = MeshKey::derive(&id, &v.secret);
        let mut out = [0u8; 1024];
        let n = key.seal_with_nonce_into(&v.nonce, v.plaintext, &mut out);
        g.check(n == Ok(v.frame.len()), format_args!("seal {n:?}"));
        g.check_bytes(
            format_args!("{} frame", v.label),
            &out[..v.frame.len()],
            v.frame,
        );
        let frame = &mut out[..v.frame.len()];
        frame.copy_from_slice(v.frame);
        match key.open_in_place(frame) {
            Ok(pt) => g.check_bytes(format_args!("{} open", v.label), pt, v.plaintext),
            Err(e) => g.check(false, format_args!("{}: open {e:?}", v.label)),
        }
        for i in 0..v.frame.len() {
            let frame = &mut out[..v.frame.len()];
            frame.copy_from_slice(v.frame);
            frame[i] ^= 0x04;
            let r = key.open_in_place(frame).map(|p| p.len());
            // Byte 1 is reserved: peat-btle ignores it, and so do we.
            let want_ok = i == 1;
            g.check(
                r.is_ok() == want_ok,
                format_args!("{}: byte {i} flipped: {r:?}", v.label),
            );
        }
        let n = key.seal_with_rng_into(&mut rng, v.plaintext, &mut out);
        let ok = n.and_then(|n| key.open_in_place(&mut out[..n]).map(|p| p == v.plaintext));
        g.check(
            ok == Ok(true),
            format_args!("{}: random nonce round trip", v.label),
        );
    }
    g.end();
}

fn xeddsa() {
    let mut g = group("library: xeddsa packet signatures (sign with the caller's rng, verify)");
    let mut rng = test_rng(3);
    let own = StaticSecret::generate_with_rng(&mut rng);
    let signer = SigningKey::from_secret(&own);
    let fields = SignedFields {
        from: 0x0929,
        id: 7,
        portnum: 1,
        payload: b"hello mesh",
    };
    let sig = signer.sign_with_rng(&mut rng, &fields);
    match VerifyingKey::from_x25519(own.public_key()) {
        Ok(k) => {
            g.check(k.verify(&fields, &sig).is_ok(), format_args!("refused"));
            let mut bad = sig;
            bad[40] ^= 1;
            g.check(
                k.verify(&fields, &bad).is_err(),
                format_args!("bad s accepted"),
            );
            let other = SignedFields { id: 8, ..fields };
            g.check(
                k.verify(&other, &sig).is_err(),
                format_args!("other id accepted"),
            );
            g.check(
                k.verify(&fields, &sig[..63]).is_err(),
                format_args!("short sig"),
            );
        }
        Err(e) => g.check(false, format_args!("key refused: {e:?}")),
    }
    g.end();
}
