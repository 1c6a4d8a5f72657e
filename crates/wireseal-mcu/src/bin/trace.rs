//! The constant-time check's firmware: each secret-handling operation runs
//! on several different secrets and inputs of one shape, each run between
//! two trace marks, and prints `trace-case OPERATION` before it. Run by
//! `scripts/trace-check.sh` under `plugin/trace_hash.c`, which requires the
//! runs of an operation to execute the same instruction addresses and
//! touch the same data addresses, in the same order. Two controls (`control:`
//! cases) leak on purpose, and the check requires their runs to differ.
#![no_std]
#![no_main]

use wireseal::hazmat::aes_ccm::Aes256Ccm8;
use wireseal::hazmat::x25519::StaticSecret;
use wireseal::hazmat::xeddsa::XedSigningKey;
use wireseal_mcu::hprintln;
use wireseal_mcu::trace::traced;

/// Scalars: two patterned, all zero, all ones, and each byte alone at 0xff.
fn scalars() -> [[u8; 32]; 5] {
    let mut s = [[0u8; 32]; 5];
    for (i, b) in s[0].iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(37).wrapping_add(11);
    }
    for (i, b) in s[1].iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(101) ^ 0xa5;
    }
    s[3] = [0xff; 32];
    s[4][7] = 0xff;
    s
}

/// u-coordinates: 9, a patterned one, 0, 1, p − 1 (low order or the
/// curve's edge) and 2^255 − 1 (non-canonical).
fn points() -> [[u8; 32]; 5] {
    let mut u = [[0u8; 32]; 5];
    u[0][0] = 9;
    for (i, b) in u[1].iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(59).wrapping_add(3);
    }
    u[2][0] = 1;
    u[3] = [0xff; 32];
    u[3][0] = 0xec;
    u[3][31] = 0x7f;
    u[4] = [0xff; 32];
    u
}

fn ladder() {
    for (k, u) in scalars().into_iter().zip(points()) {
        hprintln!("trace-case x25519 ladder (wireseal-fe25519)");
        traced((k, u), |(k, u)| wireseal_fe25519::x25519(&k, &u));
    }
    for k in scalars() {
        hprintln!("trace-case x25519 key generation (library)");
        let _ = traced(k, |k| StaticSecret::from_bytes(&k).map(|s| *s.public_key()));
    }
}

fn ccm() {
    for (i, k) in scalars().iter().enumerate() {
        let ccm = Aes256Ccm8::new(k);
        let mut nonce = [0u8; 13];
        nonce[0] = i as u8;
        let mut buf = [i as u8; 200];
        hprintln!("trace-case aes-256-ccm seal 200 B (library)");
        let tag = traced(&mut buf, |b| ccm.seal_in_place(&nonce, b"", b));
        let tag = tag.unwrap_or([0; 8]);
        hprintln!("trace-case aes-256-ccm open 200 B, valid tag (library)");
        let ok = traced(&mut buf, |b| ccm.open_in_place(&nonce, b"", b, &tag));
        if ok.is_err() {
            hprintln!("trace-error ccm round trip failed");
        }
    }
}

fn xeddsa() {
    for (i, k) in scalars().iter().enumerate() {
        let key = XedSigningKey::from_x25519(k);
        let message = [i as u8 ^ 0x5a; 32];
        let z = [i as u8; 64];
        hprintln!("trace-case xeddsa sign 32 B (library)");
        traced(&message, |m| key.sign(&[m], &z));
    }
}

/// Controls that the check must catch: a table read at a secret index (same
/// instructions, different data addresses) and a loop run a secret number
/// of times (different instructions).
fn controls() {
    static TABLE: [u8; 256] = [7; 256];
    for k in scalars() {
        hprintln!("trace-case control: table read at a secret index");
        traced(k, |k| core::hint::black_box(&TABLE)[usize::from(k[7])]);
        hprintln!("trace-case control: loop run a secret number of times");
        traced(k, |k| {
            (0..k[1] % 4).fold(0u8, |a, x| a ^ core::hint::black_box(x))
        });
    }
}

#[cortex_m_rt::entry]
fn main() -> ! {
    controls();
    ladder();
    ccm();
    xeddsa();
    wireseal_mcu::harness::finish()
}
