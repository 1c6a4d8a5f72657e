//! Wycheproof through wireseal's own key-agreement wrappers
//! (`wireseal::hazmat`): X25519 (Meshtastic, peat) and secp256k1 (Sphinx's
//! ECDH and point tweaks), valid points, twist and low-order points, points
//! off the curve.

use crate::wycheproof_common;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use wireseal::error::KeyError;
use wireseal::hazmat::secp256k1::{PrivateKey, PublicKey};
use wireseal::hazmat::sha::sha256;
use wireseal::hazmat::x25519::StaticSecret;
use wycheproof_common::Suite;

/// The backend under test is the one the build was asked for
/// (`WIRESEAL_BACKEND`, which `scripts/test` sets for its portable run): a
/// choice that did not reach the build fails here instead of testing the
/// other backend twice.
#[test]
fn backend_is_the_one_asked_for() {
    let asked = std::env::var("WIRESEAL_BACKEND").unwrap_or_default();
    let expected = if asked == "portable" {
        "portable"
    } else {
        "aws-lc"
    };
    assert_eq!(wireseal::hazmat::BACKEND, expected);
}

/// X25519: every case reaches the wrapper. Cases whose shared secret is all
/// zero (low-order peer points, "acceptable" in Wycheproof) must be refused
/// (RFC 7748 §6.1 check); every other case, twist and non-canonical points
/// included, must give Wycheproof's shared secret.
#[test]
fn x25519() {
    let mut suite = Suite::load("x25519_test.json");
    let mut zero = 0;
    suite.run(|c| {
        let private: [u8; 32] = c.hex("private").try_into().expect("32-byte private");
        let public: [u8; 32] = c.hex("public").try_into().expect("32-byte public");
        let shared = c.hex("shared");
        let ours = StaticSecret::from_bytes(&private)
            .expect("any 32 bytes are an X25519 private key")
            .diffie_hellman(&public);
        if shared.iter().all(|&b| b == 0) {
            assert!(c.has_flag("ZeroSharedSecret"), "tc {}", c.id());
            assert_eq!(ours.err(), Some(KeyError::WeakPublicKey), "tc {}", c.id());
            zero += 1;
        } else {
            assert_ne!(c.result(), "invalid", "tc {}", c.id());
            let ours = ours.unwrap_or_else(|e| panic!("tc {}: {e}", c.id()));
            assert_eq!(ours.expose()[..], shared[..], "tc {}", c.id());
        }
        None
    });
    println!("x25519: {zero} all-zero shared secrets refused (InvalidKey)");
    assert_eq!(zero, 31);
    suite.finish(&[]);
}

/// A Wycheproof private-key integer (big-endian, maybe with a leading zero
/// byte or shorter than 32 bytes) as 32 bytes.
fn scalar32(raw: &[u8]) -> [u8; 32] {
    let trimmed: Vec<u8> = raw.iter().copied().skip_while(|&b| b == 0).collect();
    assert!(trimmed.len() <= 32, "private key longer than 32 bytes");
    let mut out = [0u8; 32];
    out[32 - trimmed.len()..].copy_from_slice(&trimmed);
    out
}

/// Checks one secp256k1 agreement through both wrapper paths: the
/// ECDH (`SHA-256(compressed(priv·pub))`, BOLT #4's) and the variable-base
/// tweak, whose x-coordinate is Wycheproof's raw shared secret. `None` when
/// the wrapper refuses the point.
fn secp_agree(private: &[u8], point: &[u8]) -> Option<Vec<u8>> {
    let scalar = scalar32(private);
    let key = PrivateKey::from_bytes(&scalar).expect("valid private key");
    let public = match PublicKey::from_slice(point) {
        Ok(p) => p,
        Err(e) => {
            assert_eq!(e, KeyError::WeakPublicKey);
            return None;
        }
    };
    let product = public.mul_tweak_vartime(&scalar).expect("non-zero product");
    let compressed = product.serialize();
    assert_eq!(key.ecdh_sha256(&public).expose(), &sha256(&compressed));
    Some(compressed[1..].to_vec())
}

/// The only SubjectPublicKeyInfo shapes that carry a bare secp256k1 point:
/// named curve secp256k1, uncompressed (65 bytes) or compressed (33 bytes).
const SPKI_UNCOMPRESSED: &str = "3056301006072a8648ce3d020106052b8104000a034200";
const SPKI_COMPRESSED: &str = "3036301006072a8648ce3d020106052b8104000a032200";

const NOT_PLAIN_SPKI: &str = "public key is not a DER SubjectPublicKeyInfo naming secp256k1 around a bare point: wireseal takes raw SEC1 points and parses no ASN.1 (the protocols fix the curve), so encodings, explicit or other curves never reach it";

/// The bare SEC1 point inside a canonical secp256k1 SPKI.
fn spki_point(spki: &[u8]) -> Option<&[u8]> {
    for (prefix, len) in [(SPKI_UNCOMPRESSED, 65), (SPKI_COMPRESSED, 33)] {
        let prefix = hex::decode(prefix).expect("hex");
        if spki.len() == prefix.len() + len && spki.starts_with(&prefix) {
            return Some(&spki[prefix.len()..]);
        }
    }
    None
}

#[test]
fn ecdh_secp256k1() {
    let mut suite = Suite::load("ecdh_secp256k1_test.json");
    let mut acceptable_refused = 0;
    suite.run(|c| {
        let spki = c.hex("public");
        let Some(point) = spki_point(&spki) else {
            assert_ne!(
                c.result(),
                "valid",
                "tc {}: a valid case was refused",
                c.id()
            );
            return Some(NOT_PLAIN_SPKI);
        };
        match (c.result(), secp_agree(&c.hex("private"), point)) {
            ("invalid", got) => assert_eq!(got, None, "tc {}: invalid point accepted", c.id()),
            // Acceptable: refusing is the stricter answer (tc 745, a point
            // whose last byte was changed, is off the curve); accepting must
            // give Wycheproof's secret.
            ("acceptable", None) => acceptable_refused += 1,
            (_, got) => assert_eq!(got, Some(c.hex("shared")), "tc {}", c.id()),
        }
        None
    });
    println!("ecdh_secp256k1: {acceptable_refused} acceptable cases refused (off-curve points)");
    assert_eq!(acceptable_refused, 1);
    suite.finish(&[(NOT_PLAIN_SPKI, 256)]);
}

const OTHER_CURVE: &str = "JWK names another curve: wireseal's secp256k1 keys are bare points with no curve name, so a P-256/P-384/P-521 label never reaches it";

#[test]
fn ecdh_secp256k1_webcrypto() {
    let mut suite = Suite::load("ecdh_secp256k1_webcrypto_test.json");
    suite.run(|c| {
        let jwk = |v: &serde_json::Value, k: &str| {
            URL_SAFE_NO_PAD
                .decode(v[k].as_str().expect("JWK field"))
                .expect("base64url")
        };
        let public = &c.test["public"];
        if public["crv"] != "P-256K" {
            assert_eq!(c.result(), "invalid", "tc {}", c.id());
            return Some(OTHER_CURVE);
        }
        let mut point = vec![4u8];
        point.extend(jwk(public, "x"));
        point.extend(jwk(public, "y"));
        let private = jwk(&c.test["private"], "d");
        match (c.result(), secp_agree(&private, &point)) {
            ("invalid", got) => assert_eq!(got, None, "tc {}: invalid point accepted", c.id()),
            (_, got) => assert_eq!(got, Some(c.hex("shared")), "tc {}", c.id()),
        }
        None
    });
    suite.finish(&[(OTHER_CURVE, 5)]);
}
