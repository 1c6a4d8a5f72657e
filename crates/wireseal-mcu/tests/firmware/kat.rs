//! Known-answer and negative tests of the Meshtastic primitives and paths
//! (and the runner of every known-answer group) inside the
//! emulated Cortex-M4: every vector the host suite runs for these
//! primitives, through the same wire rules.

use crate::vectors::*;
use aes::cipher::{BlockEncrypt, KeyInit};
use sha2::{Digest, Sha256};
use wireseal::hazmat::aes_ccm::Aes256Ccm8;
use wireseal::hazmat::aes_ctr::apply_keystream;
use wireseal::hazmat::ccm::PairedCcm;
use wireseal::hazmat::x25519::StaticSecret;
use wireseal_mcu::harness::group;
use wireseal_mcu::hprintln;

/// The library's raw X25519 result; `None` when it refuses an all-zero
/// result.
fn raw_x25519(private: &[u8; 32], public: &[u8; 32]) -> Option<[u8; 32]> {
    let shared = StaticSecret::from_bytes(private)
        .ok()?
        .diffie_hellman(public)
        .ok()?;
    Some(*shared.expose())
}

/// The Meshtastic PKC key through the library's X25519 (which refuses an
/// all-zero result) and SHA-256.
fn shared_key(private: &[u8; 32], public: &[u8; 32]) -> Option<[u8; 32]> {
    raw_x25519(private, public).map(|s| Sha256::digest(s).into())
}

pub fn run() {
    sha256();
    aes_block();
    x25519_meshtastic();
    x25519_wycheproof();
    aes_ctr();
    ccm_cavp();
    ccm_wycheproof();
    crate::kat_peat_xeddsa::run();
    crate::library::run();
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
        let raw = raw_x25519(&v.private, &v.public).unwrap_or([0; 32]);
        g.check_bytes(format_args!("{} raw", v.id), &raw, &v.shared);
        let key = shared_key(&v.private, &v.public);
        if v.shared == [0; 32] {
            g.check(key.is_none(), format_args!("{}: weak key accepted", v.id));
        } else {
            let want: [u8; 32] = Sha256::digest(v.shared).into();
            g.check(key == Some(want), format_args!("{}: pkc key", v.id));
        }
    }
    for v in MESH_X25519_SHA256 {
        let key = shared_key(&v.private, &v.public).unwrap_or([0; 32]);
        g.check_bytes(format_args!("{}", v.id), &key, &v.key);
    }
    g.end();
}

fn x25519_wycheproof() {
    let mut g = group("wycheproof x25519 through the library (all-zero results refused)");
    let mut zero = 0;
    for v in WYCHEPROOF_X25519 {
        let key = shared_key(&v.private, &v.public);
        if v.shared == [0; 32] {
            zero += 1;
            g.check(
                v.zero_flag && key.is_none(),
                format_args!("tc {}: zero shared secret not refused", v.tc),
            );
        } else {
            let raw = raw_x25519(&v.private, &v.public).unwrap_or([0; 32]);
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
    salty_wycheproof();
}

/// The Cortex-M4 assembly candidate (`salty` 0.3) on the same cases: a
/// measurement of the candidate, not a test of the library (which does not
/// use it: it computes wrong results for some of them).
fn salty_wycheproof() {
    let mut wrong = 0;
    hprintln!("candidate salty 0.3 x25519 (cortex-m4 assembly) on wycheproof:");
    for v in WYCHEPROOF_X25519 {
        if salty::agreement::x25519(v.private, v.public) != v.shared {
            wrong += 1;
            hprintln!(
                "candidate   tc {} ({}): wrong shared secret",
                v.tc,
                if v.invalid {
                    "invalid"
                } else {
                    "valid or acceptable"
                }
            );
        }
    }
    hprintln!(
        "candidate salty 0.3 x25519: {} of {} wycheproof cases wrong",
        wrong,
        WYCHEPROOF_X25519.len()
    );
}

fn aes_ctr() {
    let mut g = group("meshtastic aes-ctr vectors (rfc 3686)");
    for v in MESH_AES_CTR {
        let mut buf = [0u8; 64];
        let buf = &mut buf[..v.plaintext.len()];
        buf.copy_from_slice(v.plaintext);
        let ok = apply_keystream(v.key, &v.counter_block, buf);
        g.check(ok, format_args!("{}: key length refused", v.id));
        g.check_bytes(format_args!("{}", v.id), buf, v.ciphertext);
    }
    g.end();
}

fn ccm_cavp() {
    let mut g = group("cavp aes-256-ccm 8/13 (seal and open)");
    for v in CAVP_CCM_AES256_8_13 {
        let c = Aes256Ccm8::new(&v.key);
        let nonce: [u8; 13] = v.nonce.try_into().unwrap_or([0; 13]);
        let mut buf = [0u8; 64];
        let buf = &mut buf[..v.msg.len()];
        buf.copy_from_slice(v.msg);
        match c.seal_in_place(&nonce, v.aad, buf) {
            Ok(tag) if v.valid => {
                g.check_bytes(format_args!("tc {} ct", v.tc), buf, v.ct);
                g.check_bytes(format_args!("tc {} tag", v.tc), &tag, v.tag);
            }
            _ => {}
        }
        buf.copy_from_slice(v.ct);
        let tag: [u8; 8] = v.tag.try_into().unwrap_or([0; 8]);
        let opened = c.open_in_place(&nonce, v.aad, buf, &tag);
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

/// Every Wycheproof AES-CCM case through the paired composition over the
/// AES of the case's key size; lengths CCM does not define are refused.
fn ccm_wycheproof() {
    let mut g = group("wycheproof aes-ccm, every key size, nonce and tag (paired blocks)");
    for v in WYCHEPROOF_AES_CCM {
        let ok = match v.key.len() {
            16 => ccm_case(&mut g, v, aes::Aes128Enc::new_from_slice(v.key).ok()),
            24 => ccm_case(&mut g, v, aes::Aes192Enc::new_from_slice(v.key).ok()),
            _ => ccm_case(&mut g, v, aes::Aes256Enc::new_from_slice(v.key).ok()),
        };
        g.check(ok, format_args!("tc {}", v.tc));
    }
    g.check(
        WYCHEPROOF_AES_CCM.len() == 552,
        format_args!("{} cases, want 552", WYCHEPROOF_AES_CCM.len()),
    );
    g.end();
}

/// Whether case `v` behaves as Wycheproof says under `cipher`.
fn ccm_case<C>(g: &mut wireseal_mcu::harness::Group, v: &CcmKat, cipher: Option<C>) -> bool
where
    C: aes::cipher::BlockEncrypt + aes::cipher::BlockSizeUser<BlockSize = aes::cipher::consts::U16>,
{
    let Some(ccm) = cipher.and_then(|c| PairedCcm::new(c, v.nonce.len(), v.tag.len())) else {
        return !v.valid;
    };
    let mut buf = [0u8; 528];
    if v.ct.len() > buf.len() {
        return false;
    }
    let buf = &mut buf[..v.ct.len()];
    buf.copy_from_slice(v.ct);
    let opened = ccm.open_in_place(v.nonce, v.aad, buf, v.tag).is_ok();
    if !v.valid {
        return !opened && buf.iter().all(|&b| b == 0);
    }
    if !opened || buf != v.msg {
        return false;
    }
    let mut tag = [0u8; 16];
    let tag = &mut tag[..v.tag.len()];
    let sealed = ccm.seal_in_place(v.nonce, v.aad, buf, tag).is_ok();
    g.check_bytes(format_args!("tc {} seal", v.tc), buf, v.ct);
    sealed && tag == v.tag
}
