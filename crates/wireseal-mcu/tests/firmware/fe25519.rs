//! The Cortex-M4 field (`wireseal-fe25519`'s assembly) against a
//! big-integer model, and X25519 on it against RFC 7748, every Wycheproof
//! case and curve25519-dalek's portable ladder.
//!
//! The model works in 16-bit digits (a different radix and algorithm from
//! the assembly's 32-bit product scanning) and computes each operation's
//! exact integer function as `wireseal_fe25519::Fe` documents it; the
//! host tests hold the same functions against num-bigint and the residue
//! mod p.

use crate::library::test_rng;
use crate::vectors::WYCHEPROOF_X25519;
use rand_chacha::rand_core::RngCore;
use wireseal_fe25519::{x25519, x25519_base, Fe};
use wireseal_mcu::harness::{group, Group};

/// Random field inputs; each checks five operations, and the edge pairs
/// add theirs, for more than 1,000,000 checked inputs in all.
const RANDOM_INPUTS: u32 = 200_000;
/// Random (scalar, point) pairs against x25519-dalek.
const RANDOM_PAIRS: u32 = 10_000;

/// An integer in 16-bit digits, with room for a 512-bit product's columns
/// before their carries are propagated.
type Digits = [u64; 34];

fn digits(limbs: &[u32; 8]) -> Digits {
    let mut d = [0u64; 34];
    for (i, &l) in limbs.iter().enumerate() {
        d[2 * i] = u64::from(l & 0xffff);
        d[2 * i + 1] = u64::from(l >> 16);
    }
    d
}

fn propagate(d: &mut Digits) {
    let mut carry = 0u64;
    for x in d.iter_mut() {
        let v = *x + carry;
        *x = v & 0xffff;
        carry = v >> 16;
    }
}

/// `lo + 38·hi` of a value split at bit 256 (digit 16), carries propagated.
fn fold(d: &Digits) -> Digits {
    let mut out = [0u64; 34];
    out[..16].copy_from_slice(&d[..16]);
    for i in 16..34 {
        out[i - 16] += 38 * d[i];
    }
    propagate(&mut out);
    out
}

/// The limbs of a value below 2^256; `None` when it is not.
fn limbs(d: &Digits) -> Option<[u32; 8]> {
    if d[16..].iter().any(|&x| x != 0) {
        return None;
    }
    let mut l = [0u32; 8];
    for (i, x) in l.iter_mut().enumerate() {
        *x = (d[2 * i] | (d[2 * i + 1] << 16)) as u32;
    }
    Some(l)
}

fn model_mul(a: &[u32; 8], b: &[u32; 8]) -> Option<[u32; 8]> {
    let (da, db) = (digits(a), digits(b));
    let mut p = [0u64; 34];
    for i in 0..16 {
        for j in 0..16 {
            p[i + j] += da[i] * db[j];
        }
    }
    propagate(&mut p);
    limbs(&fold(&fold(&fold(&p))))
}

fn model_add(a: &[u32; 8], b: &[u32; 8]) -> Option<[u32; 8]> {
    let (da, db) = (digits(a), digits(b));
    let mut s = [0u64; 34];
    for i in 0..16 {
        s[i] = da[i] + db[i];
    }
    propagate(&mut s);
    limbs(&fold(&fold(&s)))
}

fn model_mul121666(a: &[u32; 8]) -> Option<[u32; 8]> {
    let mut m = digits(a);
    for x in m.iter_mut() {
        *x *= 121_666;
    }
    propagate(&mut m);
    limbs(&fold(&fold(&m)))
}

/// `a − b mod 2^256` in digits, and whether it borrowed.
fn sub_digits(a: &Digits, b: &Digits) -> (Digits, bool) {
    let mut out = [0u64; 34];
    let mut borrow = 0i64;
    for i in 0..16 {
        let v = a[i] as i64 - b[i] as i64 - borrow;
        out[i] = v.rem_euclid(1 << 16) as u64;
        borrow = i64::from(v < 0);
    }
    (out, borrow == 1)
}

fn model_sub(a: &[u32; 8], b: &[u32; 8]) -> Option<[u32; 8]> {
    let (d1, borrow1) = sub_digits(&digits(a), &digits(b));
    let (d2, borrow2) = sub_digits(
        &d1,
        &digits(&[38 * u32::from(borrow1), 0, 0, 0, 0, 0, 0, 0]),
    );
    let (out, borrow3) = sub_digits(
        &d2,
        &digits(&[38 * u32::from(borrow2), 0, 0, 0, 0, 0, 0, 0]),
    );
    if borrow3 {
        return None;
    }
    limbs(&out)
}

/// 0, 1, small values, p − 1, p, p + 1, 2p − 1, 2p, 2^255 ± 1, 2^256 − 1
/// and its neighbours near 38 and 19, each limb alone at its bound and all
/// limbs at their bound but one.
fn edges() -> [[u32; 8]; 39] {
    const M: u32 = u32::MAX;
    let top = |low: u32| [low, M, M, M, M, M, M, M];
    let p = |low: u32| [low, M, M, M, M, M, M, 0x7fff_ffff];
    let small = |x: u32| [x, 0, 0, 0, 0, 0, 0, 0];
    let mut e = [[0u32; 8]; 39];
    let fixed = [
        small(0),
        small(1),
        small(2),
        small(18),
        small(19),
        small(20),
        small(37),
        small(38),
        small(39),
        small(121_666),
        p(0xffff_ffec),
        p(0xffff_ffed),
        p(0xffff_ffee),
        p(M),
        [0, 0, 0, 0, 0, 0, 0, 0x8000_0000],
        top(0xffff_ffd9),
        top(0xffff_ffda),
        top(0xffff_ffdb),
        top(0xffff_ffec),
        top(0xffff_ffed),
        top(0xffff_fffe),
        top(M),
        [0, 0, 0, 0, 0, 0, 0, 0],
    ];
    e[..fixed.len()].copy_from_slice(&fixed);
    for i in 0..8 {
        e[fixed.len() + i][i] = M;
        e[fixed.len() + 8 + i] = [M; 8];
        e[fixed.len() + 8 + i][i] = 0;
    }
    e
}

/// The five operations on `(a, b)` against the model; the number of
/// inputs checked.
fn check_ops(g: &mut Group, a: &[u32; 8], b: &[u32; 8]) -> u32 {
    let (fa, fb) = (Fe::from_limbs(*a), Fe::from_limbs(*b));
    let cases = [
        ("mul", fa.mul(&fb).to_limbs(), model_mul(a, b)),
        ("square", fa.square().to_limbs(), model_mul(a, a)),
        ("add", fa.add(&fb).to_limbs(), model_add(a, b)),
        ("sub", fa.sub(&fb).to_limbs(), model_sub(a, b)),
        ("mul121666", fa.mul121666().to_limbs(), model_mul121666(a)),
    ];
    for (name, got, want) in cases {
        if Some(got) != want {
            g.check(
                false,
                format_args!("{name}({a:08x?}, {b:08x?}) = {got:08x?}, model {want:08x?}"),
            );
        }
    }
    cases.len() as u32
}

fn field_against_model() {
    let mut g = group("fe25519 field (cortex-m4 assembly) against a 16-bit-digit model");
    g.check(
        wireseal_fe25519::ASSEMBLY,
        format_args!("wireseal-fe25519 built without its assembly: the tests below check Rust"),
    );
    let mut inputs = 0u32;
    let e = edges();
    for a in &e {
        for b in &e {
            inputs += check_ops(&mut g, a, b);
        }
    }
    let mut rng = test_rng(25);
    for _ in 0..RANDOM_INPUTS {
        let mut a = [0u32; 8];
        let mut b = [0u32; 8];
        for l in a.iter_mut().chain(b.iter_mut()) {
            *l = rng.next_u32();
            // A quarter of the limbs pinned to 0 or 2^32 − 1.
            match *l >> 29 {
                0 => *l = u32::MAX,
                1 => *l = 0,
                _ => {}
            }
        }
        inputs += check_ops(&mut g, &a, &b);
    }
    g.check(
        inputs >= 1_000_000,
        format_args!("{inputs} inputs checked, want at least 1,000,000"),
    );
    wireseal_mcu::hprintln!("fe25519: {} field inputs checked against the model", inputs);
    g.end();
}

fn rfc7748() {
    let mut g = group("fe25519 x25519: rfc 7748 (5.2, iterated 1 and 1,000 times, 6.1)");
    let cases: [([u8; 32], [u8; 32], [u8; 32]); 2] = [
        (
            hex("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4"),
            hex("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c"),
            hex("c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"),
        ),
        (
            hex("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d"),
            hex("e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493"),
            hex("95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"),
        ),
    ];
    for (i, (k, u, out)) in cases.iter().enumerate() {
        g.check_bytes(format_args!("5.2 case {}", i + 1), &x25519(k, u), out);
    }
    let mut k = x25519_dalek::X25519_BASEPOINT_BYTES;
    let mut u = k;
    for i in 1..=1000 {
        let out = x25519(&k, &u);
        u = k;
        k = out;
        if i == 1 {
            let want = hex("422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079");
            g.check_bytes(format_args!("iterated once"), &k, &want);
        }
    }
    let want = hex("684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51");
    g.check_bytes(format_args!("iterated 1,000 times"), &k, &want);
    let a = hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    let b = hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
    let a_pub = hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
    let b_pub = hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
    let shared = hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
    g.check_bytes(format_args!("6.1 alice public"), &x25519_base(&a), &a_pub);
    g.check_bytes(format_args!("6.1 bob public"), &x25519_base(&b), &b_pub);
    g.check_bytes(
        format_args!("6.1 alice shared"),
        &x25519(&a, &b_pub),
        &shared,
    );
    g.check_bytes(format_args!("6.1 bob shared"), &x25519(&b, &a_pub), &shared);
    g.end();
}

fn wycheproof() {
    let mut g = group("fe25519 x25519: every wycheproof case (valid and acceptable)");
    for v in WYCHEPROOF_X25519 {
        g.check_bytes(
            format_args!("tc {}", v.tc),
            &x25519(&v.private, &v.public),
            &v.shared,
        );
    }
    g.check(
        WYCHEPROOF_X25519.len() == 518,
        format_args!("{} cases, want 518", WYCHEPROOF_X25519.len()),
    );
    g.end();
}

fn random_pairs() {
    let mut g = group("fe25519 x25519: random (scalar, point) pairs against x25519-dalek");
    let mut rng = test_rng(26);
    for i in 0..RANDOM_PAIRS {
        let mut k = [0u8; 32];
        let mut u = [0u8; 32];
        rng.fill_bytes(&mut k);
        rng.fill_bytes(&mut u);
        g.check_bytes(
            format_args!("pair {i}"),
            &x25519(&k, &u),
            &x25519_dalek::x25519(k, u),
        );
    }
    wireseal_mcu::hprintln!("fe25519: {} random pairs checked", RANDOM_PAIRS);
    g.end();
}

/// 32 bytes from 64 hex digits (constants of this file only).
fn hex(s: &str) -> [u8; 32] {
    let b = s.as_bytes();
    let nibble = |c: u8| match c {
        b'0'..=b'9' => c - b'0',
        _ => c - b'a' + 10,
    };
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = (nibble(b[2 * i]) << 4) | nibble(b[2 * i + 1]);
    }
    out
}

pub fn run() {
    field_against_model();
    rfc7748();
    wycheproof();
    random_pairs();
}
