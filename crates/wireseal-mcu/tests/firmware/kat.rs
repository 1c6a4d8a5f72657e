//! Known-answer and negative tests of the Meshtastic primitives and paths
//! (and the runner of every known-answer group) inside the
//! emulated Cortex-M4: every vector the host suite runs for these
//! primitives, through the same wire rules.

use crate::vectors::*;
use aes::cipher::{BlockEncrypt, KeyInit};
use ccm::aead::AeadInPlace;
use sha2::{Digest, Sha256};
use wireseal_mcu::harness::{group, Hex};
use wireseal_mcu::ops::meshtastic as mesh;

/// Hex to bytes at compile time.
pub const fn hex<const N: usize>(s: &str) -> [u8; N] {
    const fn nibble(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => panic!("not hex"),
        }
    }
    let b = s.as_bytes();
    assert!(b.len() == 2 * N, "wrong hex length");
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = nibble(b[2 * i]) << 4 | nibble(b[2 * i + 1]);
        i += 1;
    }
    out
}

pub fn run() {
    sha256();
    aes_block();
    x25519_meshtastic();
    x25519_wycheproof();
    aes_ctr();
    ccm_cavp();
    pkc_vector();
    pkc_round_trip_and_tamper();
    cache_behaviour();
    channel();
    crate::kat_peat_xeddsa::run();
}

fn sha256() {
    let mut g = group("meshtastic sha256 vectors");
    for v in MESH_SHA256 {
        let got: [u8; 32] = Sha256::digest(v.input).into();
        g.check_bytes(format_args!("{}", v.id), &got, &v.expected);
    }
    g.end();
}

fn aes_block() {
    let mut g = group("meshtastic aes-256 block vectors");
    for v in MESH_AES256_BLOCK {
        let c = aes::Aes256Enc::new((&v.key).into());
        let mut block = v.plaintext.into();
        c.encrypt_block(&mut block);
        g.check_bytes(format_args!("{}", v.id), &block, &v.ciphertext);
    }
    g.end();
}

fn x25519_meshtastic() {
    let mut g = group("meshtastic x25519 vectors (raw, weak key refused, then sha256)");
    for v in MESH_X25519 {
        let raw = x25519_dalek::x25519(v.private, v.public);
        g.check_bytes(format_args!("{} raw", v.id), &raw, &v.shared);
        let key = mesh::shared_key(&v.private, &v.public);
        if v.shared == [0; 32] {
            g.check(key.is_none(), format_args!("{}: weak key accepted", v.id));
        } else {
            let want: [u8; 32] = Sha256::digest(v.shared).into();
            g.check(key == Some(want), format_args!("{}: pkc key", v.id));
        }
    }
    for v in MESH_X25519_SHA256 {
        let key = mesh::shared_key(&v.private, &v.public).unwrap_or([0; 32]);
        g.check_bytes(format_args!("{}", v.id), &key, &v.key);
    }
    g.end();
}

fn x25519_wycheproof() {
    let mut g = group("wycheproof x25519 (all-zero results refused)");
    let mut zero = 0;
    for v in WYCHEPROOF_X25519 {
        let key = mesh::shared_key(&v.private, &v.public);
        if v.shared == [0; 32] {
            zero += 1;
            g.check(
                v.zero_flag && key.is_none(),
                format_args!("tc {}: zero shared secret not refused", v.tc),
            );
        } else {
            let raw = x25519_dalek::x25519(v.private, v.public);
            g.check(!v.invalid, format_args!("tc {}: invalid case", v.tc));
            g.check_bytes(format_args!("tc {}", v.tc), &raw, &v.shared);
            let want: [u8; 32] = Sha256::digest(v.shared).into();
            g.check(key == Some(want), format_args!("tc {}: pkc key", v.tc));
        }
    }
    g.check(zero == 31, format_args!("{zero} zero cases, want 31"));
    g.check(
        WYCHEPROOF_X25519.len() == 518,
        format_args!("{} cases, want 518", WYCHEPROOF_X25519.len()),
    );
    g.end();
}

fn aes_ctr() {
    let mut g = group("meshtastic aes-ctr vectors (rfc 3686)");
    for v in MESH_AES_CTR {
        let mut buf = [0u8; 64];
        let buf = &mut buf[..v.plaintext.len()];
        buf.copy_from_slice(v.plaintext);
        let ok = mesh::channel_crypt(v.key, &v.counter_block, buf);
        g.check(ok, format_args!("{}: key length refused", v.id));
        g.check_bytes(format_args!("{}", v.id), buf, v.ciphertext);
    }
    g.end();
}

fn ccm_cavp() {
    let mut g = group("cavp aes-256-ccm 8/13 (seal and open)");
    for v in CAVP_CCM_AES256_8_13 {
        let c = mesh::ccm(&v.key);
        let nonce: [u8; 13] = v.nonce.try_into().unwrap_or([0; 13]);
        let mut buf = [0u8; 64];
        let buf = &mut buf[..v.msg.len()];
        buf.copy_from_slice(v.msg);
        match c.encrypt_in_place_detached((&nonce).into(), v.aad, buf) {
            Ok(tag) if v.valid => {
                g.check_bytes(format_args!("tc {} ct", v.tc), buf, v.ct);
                g.check_bytes(format_args!("tc {} tag", v.tc), &tag, v.tag);
            }
            _ => {}
        }
        buf.copy_from_slice(v.ct);
        let tag: [u8; 8] = v.tag.try_into().unwrap_or([0; 8]);
        let opened = c.decrypt_in_place_detached((&nonce).into(), v.aad, buf, (&tag).into());
        g.check(
            opened.is_ok() == v.valid,
            format_args!("tc {}: open gave {:?}", v.tc, opened.is_ok()),
        );
        if v.valid {
            g.check_bytes(format_args!("tc {} pt", v.tc), buf, v.msg);
        }
    }
    g.end();
}

fn pkc_vector() {
    let v = &MESH_PKC;
    let mut g = group("meshtastic pkc radio frame (firmware test_PKC)");
    let key = mesh::shared_key(&v.our_private, &v.sender_public).unwrap_or([0; 32]);
    g.check_bytes(
        format_args!("{} key prefix", v.id),
        &key[..8],
        &v.shared_key_prefix,
    );
    let n = v.payload.len();
    let extra: [u8; 4] = v.payload[n - 4..].try_into().unwrap_or([0; 4]);
    let nonce = mesh::nonce(v.packet_id, &extra, v.from_node);
    g.check_bytes(format_args!("{} nonce", v.id), &nonce, &v.nonce);
    let mut buf = [0u8; 64];
    let buf = &mut buf[..n];
    buf.copy_from_slice(v.payload);
    let ccm = mesh::ccm(&key);
    let len = mesh::pkc_open(&ccm, v.from_node, v.packet_id, buf);
    g.check(
        len == Some(v.plaintext.len()),
        format_args!("open: {len:?}"),
    );
    g.check_bytes(
        format_args!("{} plaintext", v.id),
        &buf[..v.plaintext.len()],
        v.plaintext,
    );
    g.end();
}

fn pkc_round_trip_and_tamper() {
    let v = &MESH_PKC;
    let mut g = group("meshtastic pkc seal/open round trip, tampered payloads refused");
    let key = mesh::shared_key(&v.our_private, &v.sender_public).unwrap_or([0; 32]);
    let ccm = mesh::ccm(&key);
    let mut sealed = [0u8; 64];
    sealed[..v.plaintext.len()].copy_from_slice(v.plaintext);
    let extra = [0x03, 0x6a, 0x79, 0x2b];
    let n = mesh::pkc_seal(
        &ccm,
        v.from_node,
        v.packet_id,
        &extra,
        &mut sealed,
        v.plaintext.len(),
    );
    g.check(
        n == Some(v.payload.len()),
        format_args!("seal length {n:?}"),
    );
    // The vector's extra nonce: sealing reproduces the radio frame's payload.
    g.check_bytes(format_args!("seal"), &sealed[..v.payload.len()], v.payload);
    let n = v.payload.len();
    for i in 0..n {
        for bit in [0x01u8, 0x80] {
            let mut t = [0u8; 64];
            t[..n].copy_from_slice(v.payload);
            t[i] ^= bit;
            let r = mesh::pkc_open(&ccm, v.from_node, v.packet_id, &mut t[..n]);
            g.check(r.is_none(), format_args!("byte {i} ^ {bit:#x} accepted"));
        }
    }
    let mut t = [0u8; 64];
    t[..n].copy_from_slice(v.payload);
    let wrong_sender = mesh::pkc_open(&ccm, v.from_node ^ 1, v.packet_id, &mut t[..n]);
    g.check(
        wrong_sender.is_none(),
        format_args!("other sender's nonce accepted"),
    );
    t[..n].copy_from_slice(v.payload);
    let wrong_id = mesh::pkc_open(&ccm, v.from_node, v.packet_id + 1, &mut t[..n]);
    g.check(wrong_id.is_none(), format_args!("other packet id accepted"));
    let short = mesh::pkc_open(&ccm, v.from_node, v.packet_id, &mut t[..11]);
    g.check(
        short.is_none(),
        format_args!("payload shorter than the overhead accepted"),
    );
    let other = mesh::ccm(&[7; 32]);
    t[..n].copy_from_slice(v.payload);
    let r = mesh::pkc_open(&other, v.from_node, v.packet_id, &mut t[..n]);
    g.check(r.is_none(), format_args!("other key accepted"));
    g.check(
        t[..n - 12].iter().all(|&b| b == 0),
        format_args!("refused ciphertext not wiped: {:?}", Hex(&t[..n - 12])),
    );
    g.end();
}

fn cache_behaviour() {
    let v = &MESH_PKC;
    let mut g = group("shared-secret cache: hits, lru eviction, key change");
    let mut cache = mesh::Cache::<[u8; 32], 2>::default();
    let miss_count = core::cell::Cell::new(0);
    let lookup = |cache: &mut mesh::Cache<[u8; 32], 2>, public: &[u8; 32], now: u32| {
        cache
            .get_or_insert(public, now, || {
                miss_count.set(miss_count.get() + 1);
                mesh::shared_key(&v.our_private, public)
            })
            .copied()
    };
    let a = v.sender_public;
    let b = MESH_X25519[0].public;
    let c = MESH_X25519[1].public;
    let ka = lookup(&mut cache, &a, 1);
    let ka2 = lookup(&mut cache, &a, 2);
    g.check(
        ka.is_some() && ka == ka2,
        format_args!("second lookup differs"),
    );
    let kb = lookup(&mut cache, &b, 3);
    lookup(&mut cache, &a, 4);
    let misses = miss_count.get();
    g.check(
        misses == 2,
        format_args!("{misses} misses after a, a, b, a; want 2"),
    );
    // c evicts the least recently used slot: b (used at 3), not a (at 4).
    lookup(&mut cache, &c, 5);
    let misses = miss_count.get();
    g.check(cache.contains(&a), format_args!("a evicted"));
    g.check(!cache.contains(&b), format_args!("b still cached"));
    g.check(cache.contains(&c), format_args!("c not cached"));
    g.check(misses == 3, format_args!("{misses} misses, want 3"));
    let kb2 = lookup(&mut cache, &b, 6);
    let misses = miss_count.get();
    g.check(
        misses == 4 && kb == kb2,
        format_args!("b recomputed wrongly"),
    );
    // A key that differs in its last byte only is another key.
    let mut a2 = a;
    a2[31] ^= 1;
    g.check(
        !cache.contains(&a2),
        format_args!("lookup by a prefix of the key"),
    );
    // A weak key is refused and not stored.
    let weak = MESH_X25519[2].public;
    let r = lookup(&mut cache, &weak, 7);
    g.check(
        r.is_none() && !cache.contains(&weak),
        format_args!("weak key cached"),
    );
    g.check(
        ka == mesh::shared_key(&v.our_private, &a),
        format_args!("cached key differs from a fresh one"),
    );
    g.end();
}

fn channel() {
    let v = &MESH_CHANNEL;
    let mut g = group("meshtastic channel aes-128-ctr (default key, LongFast)");
    let iv = mesh::channel_iv(0x13b2_d662, 0x0929);
    g.check_bytes(format_args!("nonce"), &iv, &v.nonce);
    let mut buf = [0u8; 32];
    let buf = &mut buf[..v.plaintext.len()];
    buf.copy_from_slice(v.plaintext);
    g.check(
        mesh::channel_crypt(&v.psk, &iv, buf),
        format_args!("key refused"),
    );
    g.check_bytes(format_args!("encrypt"), buf, v.ciphertext);
    g.check(
        mesh::channel_crypt(&v.psk, &iv, buf),
        format_args!("key refused"),
    );
    g.check_bytes(format_args!("decrypt"), buf, v.plaintext);
    g.check(
        !mesh::channel_crypt(&[0; 24], &iv, buf),
        format_args!("24-byte key accepted"),
    );
    g.end();
}
