//! XEdDSA (Signal's specification, revision 1) on Curve25519:
//! Ed25519-style signatures made and checked with X25519 keys.
//!
//! - The Ed25519 public key of an X25519 key `u` is the RFC 7748 birational
//!   map `y = (u - 1) / (u + 1)` with the sign bit 0; the signer negates its
//!   scalar when `k·B` has sign bit 1 so that its key matches.
//! - Signing is hedged: `r = SHA-512(0xFE ‖ 0xFF×31 ‖ a ‖ M ‖ Z) mod q` with
//!   64 fresh random bytes `Z`, so a broken random source cannot leak the key
//!   through a repeated nonce.
//! - Verification is cofactorless: `s < q`, `h = SHA-512(R ‖ A ‖ M) mod q`,
//!   and the encoding of `s·B − h·A` must equal `R` byte for byte.
//!
//! Messages are passed as a list of parts that are hashed one after another,
//! so a caller never has to concatenate a signing buffer.
//!
//! The group operations run on curve25519-dalek's `EdwardsPoint`, or on
//! ARMv7E-M (cfg `wireseal_fe25519`) on `wireseal-fe25519`'s Edwards25519
//! over its assembly field; the scalar arithmetic is curve25519-dalek's
//! `Scalar` on both.

use crate::secret::Secret;
use curve25519_dalek::scalar::Scalar;
use sha2::{Digest, Sha512};
use zeroize::Zeroize;

/// The group operations XEdDSA needs, on curve25519-dalek.
#[cfg(not(wireseal_fe25519))]
mod group {
    use curve25519_dalek::edwards::EdwardsPoint;
    use curve25519_dalek::montgomery::MontgomeryPoint;
    use curve25519_dalek::scalar::Scalar;

    pub(super) type Point = EdwardsPoint;

    /// The Edwards point of a Montgomery u-coordinate, sign bit 0.
    pub(super) fn from_montgomery(u: &[u8; 32]) -> Option<Point> {
        MontgomeryPoint(*u).to_edwards(0)
    }

    pub(super) fn neg(p: &Point) -> Point {
        -p
    }

    /// Whether `8·p` is the identity (a point of order 1, 2, 4 or 8).
    pub(super) fn is_small_order(p: &Point) -> bool {
        p.is_small_order()
    }

    pub(super) fn compress(p: &Point) -> [u8; 32] {
        p.compress().to_bytes()
    }

    /// The encoding of `s·B` (constant time).
    pub(super) fn mul_base(s: &Scalar) -> [u8; 32] {
        EdwardsPoint::mul_base(s).compress().to_bytes()
    }

    /// The encoding of `a·A + b·B` (public inputs).
    pub(super) fn double_mul(a: &Scalar, point: &Point, b: &Scalar) -> [u8; 32] {
        EdwardsPoint::vartime_double_scalar_mul_basepoint(a, point, b)
            .compress()
            .to_bytes()
    }
}

/// The group operations XEdDSA needs, on `wireseal-fe25519`.
#[cfg(wireseal_fe25519)]
mod group {
    use curve25519_dalek::scalar::Scalar;
    use wireseal_fe25519::edwards::{self, EdwardsPoint};
    use zeroize::Zeroize;

    pub(super) type Point = EdwardsPoint;

    /// The Edwards point of a Montgomery u-coordinate, sign bit 0.
    pub(super) fn from_montgomery(u: &[u8; 32]) -> Option<Point> {
        EdwardsPoint::from_montgomery(u, 0)
    }

    pub(super) fn neg(p: &Point) -> Point {
        p.neg()
    }

    /// Whether `8·p` is the identity (a point of order 1, 2, 4 or 8).
    pub(super) fn is_small_order(p: &Point) -> bool {
        p.double().double().double() == EdwardsPoint::IDENTITY
    }

    pub(super) fn compress(p: &Point) -> [u8; 32] {
        p.compress()
    }

    /// The encoding of `s·B` (constant time).
    pub(super) fn mul_base(s: &Scalar) -> [u8; 32] {
        let mut bytes = s.to_bytes();
        let out = edwards::mul_base(&bytes).compress();
        bytes.zeroize();
        out
    }

    /// The encoding of `a·A + b·B` (public inputs).
    pub(super) fn double_mul(a: &Scalar, point: &Point, b: &Scalar) -> [u8; 32] {
        edwards::double_scalar_mul_vartime(a.as_bytes(), point, b.as_bytes()).compress()
    }
}

/// Signature length: `R ‖ s`.
pub const SIGNATURE_LEN: usize = 64;
/// Length of the random input `Z` of a hedged signature.
pub const Z_LEN: usize = 64;

/// `hash_1`'s domain prefix: the 32-byte little-endian encoding of `2^256 − 2`.
const HASH1_PREFIX: [u8; 32] = {
    let mut p = [0xffu8; 32];
    p[0] = 0xfe;
    p
};

/// `SHA-512(R ‖ A ‖ M)` over the message parts: through aws-lc-rs's
/// assembly SHA-512 on servers, RustCrypto's elsewhere.
fn challenge(r: &[u8], a: &[u8; 32], message_parts: &[&[u8]]) -> [u8; 64] {
    #[cfg(wireseal_aws_lc)]
    {
        let mut h = aws_lc_rs::digest::Context::new(&aws_lc_rs::digest::SHA512);
        h.update(r);
        h.update(a);
        for p in message_parts {
            h.update(p);
        }
        let mut out = [0u8; 64];
        out.copy_from_slice(h.finish().as_ref());
        out
    }
    #[cfg(not(wireseal_aws_lc))]
    {
        let mut h = Sha512::new();
        h.update(r);
        h.update(a);
        for p in message_parts {
            h.update(p);
        }
        h.finalize().into()
    }
}

/// An Ed25519 point ready for verification, made from an X25519 public key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XedVerifyingKey {
    /// `−A`, so verification is one double-scalar multiplication.
    minus_a: group::Point,
    /// The encoding of `A` (sign bit 0).
    a: [u8; 32],
}

impl XedVerifyingKey {
    /// Maps an X25519 public key to its Ed25519 key (sign bit 0). The top bit
    /// of `u` is ignored, as RFC 7748 prescribes. `None` when `u = −1`, when
    /// the resulting `y` is not on the curve, and when the point has small
    /// order (`u` = 0, 1 or one of the order-8 points, in any encoding):
    /// with such a key `h·A` takes at most 8 values, so anyone could make a
    /// signature that verifies (`R = B`, `s = 1` verifies under `u = 0` for
    /// every message whose `h` is even).
    pub fn from_x25519(u: &[u8; 32]) -> Option<Self> {
        let point = group::from_montgomery(u)?;
        if group::is_small_order(&point) {
            return None;
        }
        Some(Self {
            minus_a: group::neg(&point),
            a: group::compress(&point),
        })
    }

    /// The Ed25519 public key bytes.
    pub fn ed25519_bytes(&self) -> &[u8; 32] {
        &self.a
    }

    /// Whether `signature` is valid for the concatenation of `message_parts`.
    pub fn verify(&self, message_parts: &[&[u8]], signature: &[u8; SIGNATURE_LEN]) -> bool {
        let (r, s) = signature.split_at(32);
        let s: [u8; 32] = s.try_into().expect("32 bytes");
        let Some(s) = Option::<Scalar>::from(Scalar::from_canonical_bytes(s)) else {
            return false;
        };
        let h = Scalar::from_bytes_mod_order_wide(&challenge(r, &self.a, message_parts));
        group::double_mul(&h, &self.minus_a, &s) == r
    }
}

/// An XEdDSA signing key: the Ed25519 scalar `a` derived from an X25519
/// private key, and its public key `A`. Wiped on drop.
pub struct XedSigningKey {
    a: Scalar,
    public: [u8; 32],
}

impl core::fmt::Debug for XedSigningKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("XedSigningKey").finish_non_exhaustive()
    }
}

impl Drop for XedSigningKey {
    fn drop(&mut self) {
        self.a.zeroize();
    }
}

impl XedSigningKey {
    /// Derives the signing key of an X25519 private key (clamped first, as
    /// X25519 does, so the public key matches the X25519 public key).
    pub fn from_x25519(private: &[u8; 32]) -> Self {
        let mut k = Secret::new(*private);
        let b = k.expose_mut();
        b[0] &= 248;
        b[31] &= 127;
        b[31] |= 64;
        let mut a = Scalar::from_bytes_mod_order(*k.expose());
        let mut public = group::mul_base(&a);
        // The sign bit is the low bit of x, so it is set only when x ≠ 0,
        // and −(x, y) = (−x, y) encodes as the same y with the bit clear.
        if public[31] & 0x80 != 0 {
            a = -a;
            public[31] &= 0x7f;
        }
        Self { a, public }
    }

    /// The Ed25519 public key (sign bit 0).
    pub fn ed25519_bytes(&self) -> &[u8; 32] {
        &self.public
    }

    /// Signs the concatenation of `message_parts` with the random input `z`
    /// (64 fresh random bytes per signature).
    pub fn sign(&self, message_parts: &[&[u8]], z: &[u8; Z_LEN]) -> [u8; SIGNATURE_LEN] {
        let mut a_bytes = self.a.to_bytes();
        let mut h = Sha512::new();
        h.update(HASH1_PREFIX);
        h.update(a_bytes);
        for p in message_parts {
            h.update(p);
        }
        h.update(z);
        a_bytes.zeroize();
        let mut wide: [u8; 64] = h.finalize().into();
        let mut r = Scalar::from_bytes_mod_order_wide(&wide);
        wide.zeroize();
        let big_r = group::mul_base(&r);
        let mut h = Sha512::new();
        h.update(big_r);
        h.update(self.public);
        for p in message_parts {
            h.update(p);
        }
        let h = Scalar::from_bytes_mod_order_wide(&h.finalize().into());
        let s = r + h * self.a;
        r.zeroize();
        let mut sig = [0u8; SIGNATURE_LEN];
        sig[..32].copy_from_slice(&big_r);
        sig[32..].copy_from_slice(s.as_bytes());
        sig
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use curve25519_dalek::montgomery::MontgomeryPoint;

    #[test]
    fn sign_then_verify_and_tamper() {
        for seed in 0u8..8 {
            let private = [seed.wrapping_mul(37).wrapping_add(1); 32];
            let sk = XedSigningKey::from_x25519(&private);
            let u = MontgomeryPoint::mul_base_clamped(private).to_bytes();
            let vk = XedVerifyingKey::from_x25519(&u).unwrap();
            assert_eq!(vk.ed25519_bytes(), sk.ed25519_bytes());
            let sig = sk.sign(&[b"hello ", b"world"], &[seed; 64]);
            assert!(vk.verify(&[b"hello world"], &sig));
            assert!(!vk.verify(&[b"hello worle"], &sig));
            let mut bad = sig;
            bad[40] ^= 1;
            assert!(!vk.verify(&[b"hello world"], &bad));
        }
    }

    #[test]
    fn non_canonical_s_is_refused() {
        let private = [9u8; 32];
        let sk = XedSigningKey::from_x25519(&private);
        let u = MontgomeryPoint::mul_base_clamped(private).to_bytes();
        let vk = XedVerifyingKey::from_x25519(&u).unwrap();
        let mut sig = sk.sign(&[b"m"], &[0; 64]);
        // s + q is the same residue but not canonical.
        let s = Scalar::from_canonical_bytes(sig[32..].try_into().unwrap()).unwrap();
        let q_minus_1 = -Scalar::ONE;
        let mut wide = [0u8; 32];
        let mut carry = 1u16;
        for (i, w) in wide.iter_mut().enumerate() {
            let v = u16::from(s.as_bytes()[i]) + u16::from(q_minus_1.as_bytes()[i]) + carry;
            *w = v as u8;
            carry = v >> 8;
        }
        sig[32..].copy_from_slice(&wide);
        assert!(!vk.verify(&[b"m"], &sig));
    }

    /// The u-coordinates of the points of order 1, 2, 4 and 8 (libsodium's
    /// blocklist), each also as `u + p` where that fits and with bit 255 set.
    #[test]
    fn small_order_keys_are_refused_in_every_encoding() {
        fn hex(s: &str) -> [u8; 32] {
            let mut out = [0u8; 32];
            for (i, o) in out.iter_mut().enumerate() {
                *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
            }
            out
        }
        let small = [
            hex("0000000000000000000000000000000000000000000000000000000000000000"),
            hex("0100000000000000000000000000000000000000000000000000000000000000"),
            hex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
            hex("5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"),
            // p and p + 1: 0 and 1 again.
            hex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
            hex("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
        ];
        for u in small {
            let mut high = u;
            high[31] |= 0x80;
            assert!(XedVerifyingKey::from_x25519(&u).is_none(), "{u:02x?}");
            assert!(XedVerifyingKey::from_x25519(&high).is_none(), "{high:02x?}");
        }
        // The forgery the check stops: under u = 0 (A of order 2), R = B and
        // s = 1 satisfy s·B − h·A = R for every message whose h is even.
        let a = MontgomeryPoint([0; 32]).to_edwards(0).unwrap();
        assert!(a.is_small_order());
        assert_eq!(
            (Scalar::from(2u8) * a).compress(),
            curve25519_dalek::edwards::EdwardsPoint::default().compress()
        );
    }
}
