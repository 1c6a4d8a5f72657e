//! Known-answer and negative tests of ChaCha20-Poly1305, the peat
//! mesh-wide frames, Ed25519 and XEdDSA inside the emulated Cortex-M4.

use crate::kat::hex;
use crate::vectors::*;
use chacha20poly1305::aead::AeadInPlace;
use chacha20poly1305::ChaCha20Poly1305;
use wireseal_mcu::harness::group;
use wireseal_mcu::ops::{peat, xeddsa};

pub fn run() {
    chacha_wycheproof();
    peat_mesh();
    ed25519_rfc8032();
    xeddsa_peer();
    xeddsa_sign_verify();
}

fn chacha_wycheproof() {
    use chacha20poly1305::KeyInit as _;
    let mut g = group("wycheproof chacha20-poly1305 (12-byte nonces)");
    for v in WYCHEPROOF_CHACHA20_POLY1305 {
        let c = ChaCha20Poly1305::new((&v.key).into());
        let nonce: [u8; 12] = v.nonce.try_into().unwrap_or([0; 12]);
        let mut buf = [0u8; 1024];
        let buf = &mut buf[..v.msg.len()];
        if v.valid {
            buf.copy_from_slice(v.msg);
            let tag = c.encrypt_in_place_detached((&nonce).into(), v.aad, buf);
            g.check(tag.is_ok(), format_args!("tc {} seal failed", v.tc));
            g.check_bytes(format_args!("tc {} ct", v.tc), buf, v.ct);
            if let Ok(tag) = tag {
                g.check_bytes(format_args!("tc {} tag", v.tc), &tag, v.tag);
            }
        }
        let tag: [u8; 16] = v.tag.try_into().unwrap_or([0; 16]);
        let buf = &mut buf[..v.ct.len()];
        buf.copy_from_slice(v.ct);
        let r = c.decrypt_in_place_detached((&nonce).into(), v.aad, buf, (&tag).into());
        g.check(
            r.is_ok() == v.valid,
            format_args!("tc {}: open {:?}", v.tc, r.is_ok()),
        );
        if v.valid {
            g.check_bytes(format_args!("tc {} pt", v.tc), buf, v.msg);
        }
    }
    g.end();
}

fn peat_mesh() {
    let mut g = group("peat mesh-wide frames (peat-btle vectors), tampered frames refused");
    for v in PEAT_MESH {
        let key = peat::derive_key(v.mesh_id, &v.secret);
        g.check_bytes(
            format_args!("{} {} key", v.mesh_id, v.label),
            &key,
            &v.derived_key,
        );
        let c = peat::cipher(&key);
        let mut out = [0u8; 1024];
        let n = peat::seal(&c, &v.nonce, v.plaintext, &mut out);
        g.check(
            n == Some(v.frame.len()),
            format_args!("{}: seal length {n:?}", v.label),
        );
        g.check_bytes(
            format_args!("{} {} frame", v.mesh_id, v.label),
            &out[..v.frame.len()],
            v.frame,
        );
        let frame = &mut out[..v.frame.len()];
        frame.copy_from_slice(v.frame);
        let r = peat::open(&c, frame);
        g.check(r.is_some(), format_args!("{}: open failed", v.label));
        if let Some(r) = r {
            g.check_bytes(
                format_args!("{} {} open", v.mesh_id, v.label),
                &frame[r],
                v.plaintext,
            );
        }
        for i in 0..v.frame.len() {
            let frame = &mut out[..v.frame.len()];
            frame.copy_from_slice(v.frame);
            frame[i] ^= 0x04;
            let r = peat::open(&c, frame);
            g.check(
                r.is_none(),
                format_args!("{}: byte {i} flipped accepted", v.label),
            );
        }
    }
    g.end();
}

/// RFC 8032 §7.1 tests 1–3: Ed25519 verification is XEdDSA's after the key
/// conversion.
const RFC8032: [([u8; 32], &[u8], [u8; 64]); 3] = [
    (
        hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"),
        &[],
        hex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
    ),
    (
        hex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"),
        &[0x72],
        hex("92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ),
    (
        hex("fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025"),
        &[0xaf, 0x82],
        hex("6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
    ),
];

fn ed25519_rfc8032() {
    let mut g = group("ed25519 verify (rfc 8032 7.1), tampered signatures refused");
    for (i, (a, m, sig)) in RFC8032.iter().enumerate() {
        let Some(k) = xeddsa::VerifyingKey::from_ed25519(a) else {
            g.check(false, format_args!("test {}: key refused", i + 1));
            continue;
        };
        g.check(k.verify(m, sig), format_args!("test {}: refused", i + 1));
        for byte in [0, 31, 32, 63] {
            let mut bad = *sig;
            bad[byte] ^= 0x10;
            g.check(
                !k.verify(m, &bad),
                format_args!("test {}: byte {byte} flipped accepted", i + 1),
            );
        }
    }
    g.end();
}

fn xeddsa_peer() {
    let mut g = group("xeddsa signatures by libxeddsa verified, tampered refused");
    for (i, v) in XEDDSA_PEER.iter().enumerate() {
        let Some(k) = xeddsa::VerifyingKey::from_x25519(&v.public) else {
            g.check(false, format_args!("vector {i}: key refused"));
            continue;
        };
        g.check(
            k.verify(v.message, &v.signature),
            format_args!("vector {i}: refused"),
        );
        let mut bad = v.signature;
        bad[5] ^= 1;
        g.check(
            !k.verify(v.message, &bad),
            format_args!("vector {i}: bad R accepted"),
        );
        let mut m = [0u8; 64];
        let m = &mut m[..v.message.len()];
        m.copy_from_slice(v.message);
        m[0] ^= 1;
        g.check(
            !k.verify(m, &v.signature),
            format_args!("vector {i}: other message accepted"),
        );
    }
    g.check(
        XEDDSA_PEER.len() == 8,
        format_args!("{} peer vectors, want 8", XEDDSA_PEER.len()),
    );
    g.end();
}

fn xeddsa_sign_verify() {
    let mut g = group("xeddsa sign then verify (keys from x25519)");
    for seed in 0u8..4 {
        let private = [seed.wrapping_mul(37).wrapping_add(1); 32];
        let public = x25519_dalek::x25519(private, x25519_dalek::X25519_BASEPOINT_BYTES);
        let sig = xeddsa::sign(&private, b"hello world", &[seed; 64]);
        match xeddsa::VerifyingKey::from_x25519(&public) {
            Some(k) => {
                g.check(
                    k.verify(b"hello world", &sig),
                    format_args!("seed {seed}: refused"),
                );
                g.check(
                    !k.verify(b"hello worle", &sig),
                    format_args!("seed {seed}: other message"),
                );
            }
            None => g.check(false, format_args!("seed {seed}: key refused")),
        }
    }
    g.end();
}
