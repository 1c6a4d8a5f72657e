//! Wycheproof through wireseal's own hash-based wrappers (`wireseal::hazmat`):
//! HKDF-SHA256 (extract-once `HkdfSha256` and the one-shot helper),
//! HMAC-SHA256 (one-shot and streaming, full and truncated tags compared in
//! constant time), PBKDF2-HMAC-SHA512 (AES Crypt v3's KDF) and
//! PBKDF2-HMAC-SHA256 built on the HMAC-SHA256 wrapper.

use crate::wycheproof_common;

use wireseal::hazmat::hkdf::HkdfSha256;
use wireseal::hazmat::hmac_stream::HmacSha256Stream;
use wireseal::hazmat::pbkdf2::pbkdf2_hmac_sha512;
use wireseal::hazmat::sha::{self, ct_eq};
use wycheproof_common::{Case, Suite};

/// Both HKDF wrappers at output length `N`.
fn hkdf_both<const N: usize>(ikm: &[u8], salt: &[u8], info: &[u8]) -> Vec<u8> {
    let once = HkdfSha256::extract(salt, ikm).expand::<N>(info);
    let shot = sha::hkdf_sha256::<N>(salt, ikm, info);
    assert_eq!(once.expose(), shot.expose());
    once.expose().to_vec()
}

#[test]
fn hkdf_sha256() {
    let mut suite = Suite::load("hkdf_sha256_test.json");
    suite.run(|c| {
        let (ikm, salt, info) = (c.hex("ikm"), c.hex("salt"), c.hex("info"));
        let size = c.test["size"].as_u64().expect("size") as usize;
        let run = || match size {
            20 => hkdf_both::<20>(&ikm, &salt, &info),
            32 => hkdf_both::<32>(&ikm, &salt, &info),
            42 => hkdf_both::<42>(&ikm, &salt, &info),
            56 => hkdf_both::<56>(&ikm, &salt, &info),
            64 => hkdf_both::<64>(&ikm, &salt, &info),
            80 => hkdf_both::<80>(&ikm, &salt, &info),
            82 => hkdf_both::<82>(&ikm, &salt, &info),
            128 => hkdf_both::<128>(&ikm, &salt, &info),
            8160 => hkdf_both::<8160>(&ikm, &salt, &info),
            8161 => hkdf_both::<8161>(&ikm, &salt, &info),
            other => panic!("tc {}: add output size {other}", c.id()),
        };
        if c.result() == "valid" {
            assert_eq!(run(), c.hex("okm"), "tc {}", c.id());
        } else {
            // Longer than 255 * 32 bytes: the output length is a compile-time
            // constant, and an impossible one panics rather than truncating.
            assert!(c.has_flag("SizeTooLarge"), "tc {}", c.id());
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run));
            assert!(r.is_err(), "tc {}: {size}-byte output produced", c.id());
        }
        None
    });
    suite.finish(&[]);
}

#[test]
fn hmac_sha256() {
    let mut suite = Suite::load("hmac_sha256_test.json");
    suite.run(|c| {
        let (key, msg, tag) = (c.hex("key"), c.hex("msg"), c.hex("tag"));
        let n = c.group_u64("tagSize") as usize / 8;
        assert_eq!(tag.len(), n, "tc {}", c.id());
        let full = sha::hmac_sha256(&key, &[&msg]);
        let half = msg.len() / 2;
        let mut stream = HmacSha256Stream::new(&key);
        stream.update(&msg[..half]);
        stream.update(&msg[half..]);
        assert_eq!(stream.finalize(), full, "tc {}: stream", c.id());
        let split = sha::hmac_sha256(&key, &[&msg[..half], &msg[half..]]);
        assert_eq!(split, full, "tc {}: parts", c.id());
        let ok = ct_eq(&full[..n], &tag);
        assert_eq!(ok, c.result() == "valid", "tc {} ({})", c.id(), c.result());
        None
    });
    suite.finish(&[]);
}

const NO_HMAC_SHA512: &str = "no HMAC-SHA512 wrapper: no format MACs with SHA-512 (AES Crypt v3 uses it only inside PBKDF2, see pbkdf2_hmacsha512)";

#[test]
fn hmac_sha512() {
    let mut suite = Suite::load("hmac_sha512_test.json");
    suite.run(|c| {
        assert!(["valid", "invalid"].contains(&c.result()), "tc {}", c.id());
        Some(NO_HMAC_SHA512)
    });
    suite.finish(&[(NO_HMAC_SHA512, 174)]);
}

fn pbkdf2_case(c: &Case, derive: impl Fn(&[u8], &[u8], u32, usize) -> Vec<u8>) {
    assert_eq!(
        c.result(),
        "valid",
        "tc {}: the files hold valid cases only",
        c.id()
    );
    let (password, salt, dk) = (c.hex("password"), c.hex("salt"), c.hex("dk"));
    let iterations = c.test["iterationCount"].as_u64().expect("iterationCount") as u32;
    let len = c.test["dkLen"].as_u64().expect("dkLen") as usize;
    assert_eq!(
        derive(&password, &salt, iterations, len),
        dk,
        "tc {}",
        c.id()
    );
}

#[test]
fn pbkdf2_hmacsha512() {
    let mut suite = Suite::load("pbkdf2_hmacsha512_test.json");
    suite.run(|c| {
        pbkdf2_case(c, |p, s, i, len| match len {
            16 => pbkdf2_hmac_sha512::<16>(p, s, i).expose().to_vec(),
            32 => pbkdf2_hmac_sha512::<32>(p, s, i).expose().to_vec(),
            42 => pbkdf2_hmac_sha512::<42>(p, s, i).expose().to_vec(),
            65 => pbkdf2_hmac_sha512::<65>(p, s, i).expose().to_vec(),
            other => panic!("add output size {other}"),
        });
        None
    });
    suite.finish(&[]);
}

/// PBKDF2 (RFC 8018 §5.2) written from the RFC over the HMAC-SHA256
/// wrapper: wireseal has no PBKDF2-SHA256 because no format uses it, so
/// these cases exercise the HMAC wrapper with passwords as keys (including
/// keys longer than a block, which HMAC hashes first).
fn pbkdf2_sha256_over_wrapper(
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    len: usize,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    for block in 1u32.. {
        if out.len() >= len {
            break;
        }
        let mut u = sha::hmac_sha256(password, &[salt, &block.to_be_bytes()]);
        let mut t = u;
        for _ in 1..iterations {
            u = sha::hmac_sha256(password, &[&u]);
            t.iter_mut().zip(u).for_each(|(a, b)| *a ^= b);
        }
        out.extend_from_slice(&t);
    }
    out.truncate(len);
    out
}

#[test]
fn pbkdf2_hmacsha256() {
    let mut suite = Suite::load("pbkdf2_hmacsha256_test.json");
    suite.run(|c| {
        pbkdf2_case(c, pbkdf2_sha256_over_wrapper);
        None
    });
    suite.finish(&[]);
}
