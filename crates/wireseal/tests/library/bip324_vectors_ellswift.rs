//! BIP324 ElligatorSwift: `ellswift_decode_test_vectors.csv` and
//! `xswiftec_inv_test_vectors.csv`, every row (the inverse through a
//! test-only reference written from the BIP's `reference.py`, and forward
//! through libsecp256k1), and the initiator's re-encoding of a key whose
//! encoding looks like a v1 message.

use crate::bip324_vectors_support;

use bip324_vectors_support::{csv, h32, h64};
use wireseal::bip324::handshake::Handshake;
use wireseal::bip324::{classify_first_bytes, Network, PeerKind};
use wireseal::hazmat::ellswift::{ellswift_decode_x, is_valid_x_vartime, EllSwiftKeypair};

#[test]
fn ellswift_decode_vectors() {
    let rows = csv("ellswift_decode_test_vectors.csv");
    assert_eq!(rows.len(), 76);
    for r in &rows {
        assert_eq!(
            hex::encode(ellswift_decode_x(&h64(&r["ellswift"]))),
            r["x"],
            "{}",
            r["comment"]
        );
    }
}

const P: [u64; 4] = [
    0xFFFF_FFFE_FFFF_FC2F,
    0xFFFF_FFFF_FFFF_FFFF,
    0xFFFF_FFFF_FFFF_FFFF,
    0xFFFF_FFFF_FFFF_FFFF,
];
/// 2^256 mod p.
const TWO_256_MOD_P: u64 = 0x1_0000_03D1;

// Test-only arithmetic modulo p = 2^256 - 2^32 - 977 on little-endian u64
// limbs, written to follow the BIP324 reference Python (`reference.py`) for
// checking the xswiftec_inv vectors. Variable time and slow; never used by
// the library (which gets every curve operation from libsecp256k1).

fn limbs(b: &[u8; 32]) -> [u64; 4] {
    core::array::from_fn(|i| u64::from_be_bytes(b[24 - 8 * i..32 - 8 * i].try_into().unwrap()))
}
fn bytes(l: [u64; 4]) -> [u8; 32] {
    let mut b = [0u8; 32];
    for i in 0..4 {
        b[24 - 8 * i..32 - 8 * i].copy_from_slice(&l[i].to_be_bytes());
    }
    b
}
fn ge(a: [u64; 4], b: [u64; 4]) -> bool {
    for i in (0..4).rev() {
        if a[i] != b[i] {
            return a[i] > b[i];
        }
    }
    true
}
fn sub(a: [u64; 4], b: [u64; 4]) -> [u64; 4] {
    let mut out = [0u64; 4];
    let mut borrow = 0u64;
    for i in 0..4 {
        let (d1, b1) = a[i].overflowing_sub(b[i]);
        let (d2, b2) = d1.overflowing_sub(borrow);
        out[i] = d2;
        borrow = (b1 || b2) as u64;
    }
    out
}
/// Any value below 2^256 (< 2p) to its residue below p.
fn reduce(a: [u64; 4]) -> [u64; 4] {
    if ge(a, P) {
        sub(a, P)
    } else {
        a
    }
}

/// A field element, always reduced below p.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Fe([u64; 4]);

impl Fe {
    const ZERO: Fe = Fe([0; 4]);

    fn new(v: u64) -> Fe {
        Fe([v, 0, 0, 0])
    }
    /// 32 big-endian bytes, reduced mod p (like the reference's `FE(int)`).
    fn from_bytes(b: &[u8; 32]) -> Fe {
        Fe(reduce(limbs(b)))
    }
    fn to_bytes(self) -> [u8; 32] {
        bytes(self.0)
    }
    fn add(self, o: Fe) -> Fe {
        let mut out = [0u64; 4];
        let mut carry = 0u64;
        for ((r, a), b) in out.iter_mut().zip(self.0).zip(o.0) {
            let (s1, c1) = a.overflowing_add(b);
            let (s2, c2) = s1.overflowing_add(carry);
            *r = s2;
            carry = (c1 || c2) as u64;
        }
        if carry == 1 || ge(out, P) {
            out = sub(out, P);
        }
        Fe(out)
    }
    fn neg(self) -> Fe {
        if self == Fe::ZERO {
            self
        } else {
            Fe(sub(P, self.0))
        }
    }
    fn sub(self, o: Fe) -> Fe {
        self.add(o.neg())
    }
    fn mul(self, o: Fe) -> Fe {
        // Schoolbook product into 8 limbs.
        let mut t = [0u64; 8];
        for i in 0..4 {
            let mut carry = 0u128;
            for j in 0..4 {
                let cur = t[i + j] as u128 + self.0[i] as u128 * o.0[j] as u128 + carry;
                t[i + j] = cur as u64;
                carry = cur >> 64;
            }
            t[i + 4] = carry as u64;
        }
        // hi * 2^256 = hi * (2^32 + 977) mod p, folded twice.
        let mut r = [0u64; 5];
        let mut carry = 0u128;
        for i in 0..4 {
            let cur = t[i] as u128 + t[i + 4] as u128 * TWO_256_MOD_P as u128 + carry;
            r[i] = cur as u64;
            carry = cur >> 64;
        }
        r[4] = carry as u64;
        let mut out = [0u64; 4];
        let mut carry = r[4] as u128 * TWO_256_MOD_P as u128;
        for i in 0..4 {
            let cur = r[i] as u128 + carry;
            out[i] = cur as u64;
            carry = cur >> 64;
        }
        if carry != 0 {
            // Wrapped past 2^256 once: out is tiny now, add 2^256 mod p.
            let mut c = TWO_256_MOD_P as u128;
            for limb in out.iter_mut() {
                let cur = *limb as u128 + c;
                *limb = cur as u64;
                c = cur >> 64;
            }
        }
        Fe(reduce(out))
    }
    fn pow(self, e: [u64; 4]) -> Fe {
        let mut r = Fe::new(1);
        for i in (0..256).rev() {
            r = r.mul(r);
            if (e[i / 64] >> (i % 64)) & 1 == 1 {
                r = r.mul(self);
            }
        }
        r
    }
    /// Division; the reference asserts a non-zero denominator, so do we.
    fn div(self, o: Fe) -> Fe {
        assert_ne!(o, Fe::ZERO, "division by zero");
        let mut pm2 = P;
        pm2[0] -= 2;
        self.mul(o.pow(pm2))
    }
    /// The reference's `FE.sqrt`: `v^((p+1)/4)` if that squares back to `v`.
    fn sqrt(self) -> Option<Fe> {
        // (p + 1) / 4: p + 1 does not carry out of the low limb.
        let mut e = P;
        e[0] += 1;
        for i in 0..4 {
            e[i] = (e[i] >> 2) | if i < 3 { e[i + 1] << 62 } else { 0 };
        }
        let s = self.pow(e);
        (s.mul(s) == self).then_some(s)
    }
}

/// `GE.is_valid_x`: x^3 + 7 is a square.
fn is_valid_x(x: Fe) -> bool {
    x.mul(x).mul(x).add(Fe::new(7)).sqrt().is_some()
}

fn minus_3_sqrt() -> Fe {
    Fe::new(3).neg().sqrt().expect("-3 is a square mod p")
}

/// `xswiftec_inv(x, u, case)` of the BIP324 reference, line for line: the
/// t with xswiftec(u, t) = x selected by `case` (0..8), or None.
fn xswiftec_inv(x: Fe, u: Fe, case: u8) -> Option<Fe> {
    let u3_plus_7 = u.mul(u).mul(u).add(Fe::new(7));
    let (s, v);
    if case & 2 == 0 {
        if is_valid_x(x.neg().sub(u)) {
            return None;
        }
        v = if case & 1 == 0 { x } else { x.neg().sub(u) };
        s = u3_plus_7.neg().div(u.mul(u).add(u.mul(v)).add(v.mul(v)));
    } else {
        s = x.sub(u);
        if s == Fe::ZERO {
            return None;
        }
        let q = s.neg().mul(
            Fe::new(4)
                .mul(u3_plus_7)
                .add(Fe::new(3).mul(s).mul(u).mul(u)),
        );
        let mut r = q.sqrt()?;
        if case & 1 != 0 {
            if r == Fe::ZERO {
                return None;
            }
            r = r.neg();
        }
        v = u.neg().add(r.div(s)).div(Fe::new(2));
    }
    let mut w = s.sqrt()?;
    if case & 4 != 0 {
        w = w.neg();
    }
    Some(w.mul(u.mul(minus_3_sqrt().sub(Fe::new(1)).div(Fe::new(2))).sub(v)))
}

/// The test-only field arithmetic agrees with known constants and identities.
#[test]
fn reference_field_arithmetic_is_sound() {
    let m3 = minus_3_sqrt();
    assert_eq!(m3.mul(m3), Fe::new(3).neg());
    // libsecp256k1's c1 = (sqrt(-3) - 1) / 2 (ellswift main_impl.h): the
    // reference and libsecp256k1 pick the same square root.
    assert_eq!(
        hex::encode(m3.sub(Fe::new(1)).div(Fe::new(2)).to_bytes()),
        "851695d49a83f8ef919bb86153cbcb16630fb68aed0a766a3ec693d68e6afa40"
    );
    let a = Fe::from_bytes(&[0xff; 32]); // 2^256 - 1 reduces to 2^32 + 976
    assert_eq!(a, Fe::new(0x1_0000_03D0));
    let b = Fe(sub(P, [1, 0, 0, 0])); // p - 1 = -1
    assert_eq!(b.mul(b), Fe::new(1));
    assert_eq!(b.add(Fe::new(1)), Fe::ZERO);
    let g = Fe::from_bytes(&h32(
        "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",
    ));
    assert!(is_valid_x(g));
    assert_eq!(g.div(g), Fe::new(1));
    assert_eq!(g.mul(b).div(g), b);
    let gy = Fe::from_bytes(&h32(
        "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8",
    ));
    assert_eq!(gy.mul(gy), g.mul(g).mul(g).add(Fe::new(7)));
    for x in 0u64..64 {
        assert_eq!(
            is_valid_x(Fe::new(x)),
            is_valid_x_vartime(&Fe::new(x).to_bytes()),
            "x = {x}"
        );
    }
}

/// Every row, every case: the reference inverse gives exactly the listed t,
/// and None where the row lists none.
#[test]
fn xswiftec_inv_vectors_all_cases() {
    let rows = csv("xswiftec_inv_test_vectors.csv");
    assert_eq!(rows.len(), 32);
    let (mut some, mut none) = (0, 0);
    for r in &rows {
        let u = Fe::from_bytes(&h32(&r["u"]));
        let x = Fe::from_bytes(&h32(&r["x"]));
        assert_eq!(u.to_bytes(), h32(&r["u"]), "u below p");
        for case in 0..8u8 {
            let want = &r[&format!("case{case}_t")];
            let got = xswiftec_inv(x, u, case).map(|t| hex::encode(t.to_bytes()));
            if want.is_empty() {
                assert_eq!(got, None, "row u={} case {case}", r["u"]);
                none += 1;
            } else {
                assert_eq!(
                    got.as_deref(),
                    Some(want.as_str()),
                    "row u={} case {case}",
                    r["u"]
                );
                some += 1;
            }
        }
    }
    assert_eq!(some + none, 32 * 8);
    assert!(some > 50 && none > 50, "{some} {none}");
}

/// Forward direction through libsecp256k1: every listed t decodes, with that
/// u, to the listed x; the listed cases are exactly those the comment marks
/// `ok`; and every case the comment rules out because `-x-u` is a valid x has
/// indeed a valid `-x-u`.
#[test]
fn xswiftec_inv_vectors_forward() {
    let rows = csv("xswiftec_inv_test_vectors.csv");
    assert_eq!(rows.len(), 32);
    let mut checked_t = 0;
    let mut checked_bad = 0;
    for r in &rows {
        let u = h32(&r["u"]);
        let comment = &r["comment"];
        let cases: Vec<&str> = comment.split(';').collect();
        assert_eq!(cases.len(), 8, "{comment}");
        for (i, case) in cases.iter().enumerate() {
            assert!(case.starts_with(&format!("case{i}:")), "{comment}");
            let t = &r[&format!("case{i}_t")];
            let ok = case.ends_with(":ok") || case.ends_with("&ok");
            assert_eq!(ok, !t.is_empty(), "row u={} case {i}", r["u"]);
            if ok {
                let mut enc = [0u8; 64];
                enc[..32].copy_from_slice(&u);
                enc[32..].copy_from_slice(&h32(t));
                assert_eq!(hex::encode(ellswift_decode_x(&enc)), r["x"]);
                checked_t += 1;
            }
            if case.contains("bad[valid_x(-x-u)]") {
                let m = Fe::from_bytes(&h32(&r["x"])).add(Fe::from_bytes(&u)).neg();
                assert!(
                    is_valid_x_vartime(&m.to_bytes()),
                    "row u={} case {i}",
                    r["u"]
                );
                checked_bad += 1;
            }
        }
    }
    assert!(
        checked_t > 50 && checked_bad > 20,
        "{checked_t} {checked_bad}"
    );
}

/// An initiator key whose encoding starts with the v1 prefix (probability
/// 2^-128 at random; built here with the reference inverse) is re-encoded
/// before it is sent, so a responder never takes a v2 initiator for v1.
#[test]
fn initiator_never_sends_an_encoding_that_looks_like_v1() {
    let net = Network::MAINNET;
    let prefix = net.v1_prefix();
    let mut sk = [0u8; 32];
    sk[31] = 1;
    let x_bytes = EllSwiftKeypair::from_secret_bytes(&sk)
        .unwrap()
        .x_only_public();
    let x = Fe::from_bytes(&x_bytes);
    // Deterministic search: u = prefix || 0.. || n, the first case with a t.
    let enc = (0u64..)
        .find_map(|n| {
            let mut ub = [0u8; 32];
            ub[..16].copy_from_slice(&prefix);
            ub[24..].copy_from_slice(&n.to_be_bytes());
            let u = Fe::from_bytes(&ub);
            (0..8).find_map(|c| xswiftec_inv(x, u, c)).map(|t| {
                let mut e = [0u8; 64];
                e[..32].copy_from_slice(&ub);
                e[32..].copy_from_slice(&t.to_bytes());
                e
            })
        })
        .unwrap();
    assert_eq!(ellswift_decode_x(&enc), x_bytes);
    assert_eq!(classify_first_bytes(net, &enc), PeerKind::V1);
    let kp = EllSwiftKeypair::from_secret_and_encoding_test_vectors_only(&sk, &enc).unwrap();
    let mut out = Vec::new();
    let _ = Handshake::initiator(net, kp, b"")
        .unwrap()
        .write_key(&mut out);
    assert_ne!(out[..16], prefix);
    assert_eq!(classify_first_bytes(net, &out), PeerKind::V2);
    assert_eq!(ellswift_decode_x(&out[..64].try_into().unwrap()), x_bytes);
    // On another network the prefix differs, and the encoding is kept.
    let kp = EllSwiftKeypair::from_secret_and_encoding_test_vectors_only(&sk, &enc).unwrap();
    let mut out = Vec::new();
    let _ = Handshake::initiator(Network::TESTNET, kp, b"")
        .unwrap()
        .write_key(&mut out);
    assert_eq!(out[..64], enc);
}
