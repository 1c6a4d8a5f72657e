//! AES Crypt against every stored vector: pyAesCrypt 6.1.1 samples (v2),
//! the aescrypt-rs crate's v0-v3 sets (v2 from AES Crypt 3.16, v3 from AES
//! Crypt 4.0), byte-exact re-encryption, and negative tests over every
//! region of a stream.

use crate::common;

use serde::Deserialize;
use std::io::{Cursor, Read};
use std::sync::OnceLock;
use wireseal::aescrypt::io::SeekDecryptor;
use wireseal::aescrypt::*;
use wireseal::batch::Batch;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/aescrypt");

/// The batch every test shares (all cores).
fn b() -> &'static Batch {
    static B: OnceLock<Batch> = OnceLock::new();
    B.get_or_init(Batch::all_cores)
}

#[derive(Deserialize)]
struct Vector {
    plaintext: String,
    ciphertext_hex: String,
}

#[derive(Deserialize)]
struct DetVector {
    plaintext: String,
    ciphertext_hex: String,
    kdf_iterations: u32,
    public_iv: String,
    session_iv: String,
    session_key: String,
}

fn load<T: serde::de::DeserializeOwned>(name: &str) -> Vec<T> {
    common::load_as(&format!("aescrypt/aescrypt-rs/{name}"))
}

fn arr16(h: &str) -> [u8; 16] {
    common::unhex(h).try_into().unwrap()
}

/// Decrypts through the one-pass path, and (when `seek`) also through the
/// verify-then-read path and the kept-pieces path, asserting all agree.
fn decrypt_all_ways(pw: &str, ct: &[u8]) -> Result<Vec<u8>, Error> {
    decrypt_checked(pw, ct, true)
}

/// Negative tests run the v2 key derivation (8192 SHA-256) per case, so the
/// second path runs on every fourth case only, to keep the suite fast.
fn decrypt_some_ways(pw: &str, ct: &[u8], i: usize) -> Result<Vec<u8>, Error> {
    decrypt_checked(pw, ct, i % 4 == 0)
}

/// The format error inside an `io` result (an I/O error fails the test).
fn fmt<T>(r: Result<T, io::Error>) -> Result<T, Error> {
    r.map_err(|e| e.format().unwrap_or_else(|| panic!("I/O error: {e}")))
}

fn decrypt_checked(pw: &str, ct: &[u8], seek: bool) -> Result<Vec<u8>, Error> {
    let lim = Limits::default();
    if !seek {
        return decrypt_to_vec(b(), pw, ct, &lim);
    }
    let a = decrypt_to_vec(b(), pw, ct, &lim);
    let seek = fmt(SeekDecryptor::new(b(), Cursor::new(ct), pw, &lim)).map(|mut r| {
        let mut v = Vec::new();
        r.read_to_end(&mut v).unwrap();
        v
    });
    match (&a, &seek) {
        (Ok(x), Ok(y)) => assert_eq!(x, y),
        (Err(x), Err(y)) => assert_eq!(format!("{x:?}"), format!("{y:?}")),
        _ => panic!("paths disagree: {a:?} vs {seek:?}"),
    }
    // The decryptor that keeps its pieces (7 bytes each) and decrypts them
    // once verified.
    let kept = (|| -> Result<Vec<u8>, Error> {
        let mut d = OwnedDecryptor::new(pw, &lim);
        for p in ct.chunks(7) {
            d.update(p)?;
        }
        let v = d.finish()?;
        let mut out = vec![0u8; v.plaintext_len()];
        v.decrypt_into(b(), &mut out)?;
        Ok(out)
    })();
    assert_eq!(format!("{a:?}"), format!("{kept:?}"), "kept pieces");
    a
}

#[test]
fn pyaescrypt_samples_decrypt() {
    let mut n = 0;
    for entry in std::fs::read_dir(DIR).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_owned();
        let Some(stem) = name.strip_suffix(".aes") else {
            continue;
        };
        let ct = std::fs::read(&p).unwrap();
        let want = std::fs::read(format!("{DIR}/{stem}")).unwrap();
        let got = decrypt_all_ways("correct horse battery staple", &ct).unwrap();
        assert_eq!(got, want, "{name}");
        let Parse::Done(h) = parse_header(&ct, &Limits::default()).unwrap() else {
            panic!()
        };
        assert_eq!(h.version, Version::V2);
        assert_eq!(h.extension("CREATED_BY"), Some(&b"pyAesCrypt 6.1.1"[..]));
        assert!(matches!(
            decrypt_all_ways("correct horse battery stapl", &ct),
            Err(Error::WrongPassword)
        ));
        n += 1;
    }
    assert_eq!(n, 6, "all six pyAesCrypt samples");
}

#[test]
fn aescrypt_rs_sets_all_versions_decrypt() {
    for (v, file) in [
        (Version::V0, "test_vectors_v0.json"),
        (Version::V1, "test_vectors_v1.json"),
        (Version::V2, "test_vectors_v2.json"),
        (Version::V3, "test_vectors_v3.json"),
        (Version::V3, "deterministic_test_vectors_v3.json"),
    ] {
        let set: Vec<Vector> = load(file);
        assert_eq!(set.len(), 21, "{file}");
        for (i, t) in set.iter().enumerate() {
            let ct = common::unhex(&t.ciphertext_hex);
            let Parse::Done(h) = parse_header(&ct, &Limits::default()).unwrap() else {
                panic!()
            };
            assert_eq!(h.version, v);
            let got = decrypt_all_ways("Hello", &ct).unwrap();
            assert_eq!(got, t.plaintext.as_bytes(), "{file} #{i}");
            let wrong = decrypt_all_ways("hello", &ct).unwrap_err();
            if v == Version::V0 {
                assert!(matches!(wrong, Error::Auth), "{wrong:?}");
            } else {
                assert!(matches!(wrong, Error::WrongPassword), "{wrong:?}");
            }
        }
    }
}

/// Version 3 encryption reproduces AES Crypt 4.0's bytes exactly when given
/// the same per-file values.
#[test]
fn v3_encryption_is_byte_exact() {
    let set: Vec<DetVector> = load("deterministic_test_vectors_v3.json");
    assert_eq!(set.len(), 21);
    for t in &set {
        let m = SessionMaterial::from_parts(
            arr16(&t.public_iv),
            arr16(&t.session_iv),
            wireseal::secret::Secret::from_slice(&common::unhex(&t.session_key)).unwrap(),
        );
        let opts = EncryptOptions::v3(t.kdf_iterations)
            .unwrap()
            .with_extensions(vec![
                Extension::new("CREATED_BY", b"aescrypt 4.0.0.0").unwrap()
            ]);
        let mut out = Vec::new();
        let mut e = Encryptor::from_material("Hello", &opts, m).unwrap();
        e.update(b(), t.plaintext.as_bytes(), &mut out);
        e.finish(&mut out);
        assert_eq!(hex::encode(out), t.ciphertext_hex);
    }
}

/// Version 2 encryption reproduces AES Crypt 3.16's bytes: the per-file
/// values are recovered from each official stream (with the password), then
/// the stream is re-encrypted and compared. AES Crypt 3.16 fills the padding
/// of a partial final block with random bytes, so those streams are compared
/// up to the final block; block-aligned ones (0, 16, 32, ... bytes) whole.
#[test]
fn v2_encryption_is_byte_exact() {
    use wireseal::hazmat::aes_cbc::aes256_cbc_decrypt_in_place;
    let set: Vec<Vector> = load("test_vectors_v2.json");
    let mut aligned = 0;
    for t in &set {
        let ct = common::unhex(&t.ciphertext_hex);
        let Parse::Done(h) = parse_header(&ct, &Limits::default()).unwrap() else {
            panic!()
        };
        let k = legacy_key("Hello", &h.public_iv);
        let mut blk = ct[h.len..h.len + 48].to_vec();
        aes256_cbc_decrypt_in_place(k.expose(), &h.public_iv, &mut blk);
        let m = SessionMaterial::from_parts(
            h.public_iv,
            blk[..16].try_into().unwrap(),
            wireseal::secret::Secret::from_slice(&blk[16..]).unwrap(),
        );
        let opts = EncryptOptions::v2().with_extensions(h.extensions.clone());
        let mut e = io::EncryptWriter::from_material(b(), Vec::new(), "Hello", &opts, m).unwrap();
        std::io::Write::write_all(&mut e, t.plaintext.as_bytes()).unwrap();
        let ours = e.finish().unwrap();
        assert_eq!(ours.len(), ct.len());
        if t.plaintext.len() % 16 == 0 {
            assert_eq!(ours, ct);
            aligned += 1;
        } else {
            let body_end = ct.len() - 33;
            assert_eq!(ours[..body_end - 16], ct[..body_end - 16]);
            assert_eq!(ours[ct.len() - 33], ct[ct.len() - 33], "size octet");
        }
    }
    assert!(aligned >= 5, "{aligned}");
}

/// The parts of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Region {
    Header,
    SessionBlock,
    Body,
    Trailer,
}

/// Regions of a stream: (region, start, end).
fn regions(ct: &[u8]) -> [(Region, usize, usize); 4] {
    let Parse::Done(h) = parse_header(ct, &Limits::default()).unwrap() else {
        panic!()
    };
    let tl = h.version.trailer_len();
    let sb = if h.version == Version::V0 { 0 } else { 80 };
    [
        (Region::Header, 0, h.len),
        (Region::SessionBlock, h.len, h.len + sb),
        (Region::Body, h.len + sb, ct.len() - tl),
        (Region::Trailer, ct.len() - tl, ct.len()),
    ]
}

fn streams() -> Vec<(&'static str, Vec<u8>)> {
    let pt: Vec<u8> = (0..100u8).collect();
    vec![
        (
            "pw",
            encrypt_to_vec(
                b(),
                "pw",
                &pt[..40],
                &EncryptOptions::v2().with_extensions(vec![]),
            )
            .unwrap(),
        ),
        (
            "pw",
            encrypt_to_vec(b(), "pw", &pt, &EncryptOptions::v3(3).unwrap()).unwrap(),
        ),
        (
            "correct horse battery staple",
            std::fs::read(format!("{DIR}/hello_txt.plain.aes")).unwrap(),
        ),
    ]
}

/// A bit flip anywhere authenticated is rejected with the right error. Not
/// authenticated by the format (see docs/aescrypt.md): the reserved octet,
/// extension contents, and the v2 size octet (whose high-nibble flips are
/// still caught).
#[test]
fn flipped_bits_in_every_region_are_rejected() {
    for (pw, ct) in streams() {
        let r = regions(&ct);
        let Parse::Done(h) = parse_header(&ct, &Limits::default()).unwrap() else {
            panic!()
        };
        let it_len = if h.version == Version::V3 { 4 } else { 0 };
        let ext_end = h.len - 16 - it_len - 2;
        for i in 0..ct.len() {
            let in_ext = (5..ext_end).contains(&i);
            let size_octet = h.version == Version::V2 && i == r[3].1;
            if i == 4 || in_ext || size_octet {
                continue;
            }
            // One flip per byte (alternating low and high bit) keeps this fast.
            let bit = if i % 2 == 0 { 0x01u8 } else { 0x80 };
            let mut bad = ct.clone();
            bad[i] ^= bit;
            let e = decrypt_some_ways(pw, &bad, i).unwrap_err();
            let region = r.iter().find(|(_, s, e)| i >= *s && i < *e).unwrap().0;
            match region {
                Region::SessionBlock => {
                    assert!(matches!(e, Error::WrongPassword), "{i}: {e:?}")
                }
                Region::Body | Region::Trailer => {
                    assert!(matches!(e, Error::Auth), "{i}: {e:?}")
                }
                // Magic, version, extension lengths, iteration count and
                // public IV: a structural error or a different key.
                _ => assert!(
                    matches!(
                        e,
                        Error::WrongPassword
                            | Error::NotAesCrypt
                            | Error::UnsupportedVersion(_)
                            | Error::TooManyIterations { .. }
                            | Error::Truncated { .. }
                            | Error::Auth
                            | Error::Malformed(_)
                            | Error::TooLong { .. }
                    ),
                    "{i}: {e:?}"
                ),
            }
        }
        if h.version == Version::V2 {
            let mut bad = ct.clone();
            bad[r[3].1] ^= 0x40;
            assert!(matches!(
                decrypt_all_ways(pw, &bad),
                Err(Error::Malformed(_))
            ));
        }
    }
}

/// What a stream cut to `len` bytes (or extended to it) must report, from
/// its length alone: too short for the trailer is truncation, naming the
/// least length the part it ended in needs (the header: at most its
/// length; the session block: all of it; the trailer: the body so far
/// and the trailer; a v3 body: one block and the trailer); a body that is
/// not whole blocks is `PartialBlock` (cut or appended, we can't tell);
/// otherwise the HMAC fails.
fn expected_for_length(ct: &[u8], len: usize) -> String {
    let r = regions(ct);
    let Parse::Done(h) = parse_header(ct, &Limits::default()).unwrap() else {
        panic!()
    };
    if len < r[1].1 {
        return "Truncated(in the header)".into();
    }
    if len < r[2].1 {
        return format!("Truncated(min {})", r[2].1);
    }
    let tl = h.version.trailer_len();
    let rest = len - r[2].1;
    if rest < tl {
        format!("Truncated(min {})", r[2].1 + tl)
    } else if (rest - tl) % 16 != 0 {
        "PartialBlock".into()
    } else if rest == tl && h.version == Version::V3 {
        format!("Truncated(min {})", r[2].1 + tl + 16)
    } else {
        "Auth".into()
    }
}

/// The error's name, with the least length for truncation (whose `len`
/// must be the stream's length); a cut inside the header names a least
/// length inside the header.
fn kind(e: &Error, len: usize, ct: &[u8]) -> String {
    match e {
        Error::Truncated { len: l, min } => {
            assert_eq!(*l, len, "{e:?}");
            assert!(*min > len, "{e:?}");
            if *min <= regions(ct)[0].2 {
                "Truncated(in the header)".into()
            } else {
                format!("Truncated(min {min})")
            }
        }
        _ => format!("{e:?}"),
    }
}

#[test]
fn truncation_anywhere_and_extra_bytes_are_rejected() {
    for (pw, ct) in streams() {
        for cut in 0..ct.len() {
            let e = decrypt_some_ways(pw, &ct[..cut], cut).unwrap_err();
            assert_eq!(
                kind(&e, cut, &ct),
                expected_for_length(&ct, cut),
                "cut {cut}"
            );
        }
        for extra in [1usize, 15, 16, 17, 33, 48, 1000] {
            let mut long = ct.clone();
            long.extend(std::iter::repeat_n(0xa5, extra));
            let e = decrypt_all_ways(pw, &long).unwrap_err();
            let want = if extra % 16 == 0 {
                "Auth"
            } else {
                "PartialBlock"
            };
            assert_eq!(format!("{e:?}"), want, "+{extra}");
        }
    }
}

/// A truncated version 3 stream is reported as such before the key
/// derivation runs: the session block is read first. (With the derivation
/// first, the 4 billion PBKDF2 iterations asked for here would take hours.)
#[test]
fn truncated_v3_fails_before_key_derivation() {
    let ct = encrypt_to_vec(b(), "pw", b"data", &EncryptOptions::v3(5).unwrap()).unwrap();
    let Parse::Done(h) = parse_header(&ct, &Limits::default()).unwrap() else {
        panic!()
    };
    let mut v = ct[..h.len].to_vec();
    v[h.len - 20..h.len - 16].copy_from_slice(&u32::MAX.to_be_bytes());
    let lim = Limits {
        max_iterations: u32::MAX,
        ..Limits::default()
    };
    for extra in [0usize, 1, 79] {
        let mut t = v.clone();
        t.extend_from_slice(&ct[h.len..h.len + extra]);
        let session_block = Err(Error::Truncated {
            len: t.len(),
            min: h.len + 80,
        });
        assert_eq!(decrypt_to_vec(b(), "pw", &t, &lim), session_block);
        assert_eq!(
            fmt(SeekDecryptor::new(b(), Cursor::new(&t), "pw", &lim)).map(|_| Vec::new()),
            session_block
        );
    }
}

#[test]
fn hostile_headers_are_bounded() {
    // A version 3 header asking for 4 billion iterations is refused before
    // any key derivation.
    let mut v = b"AES\x03\x00\x00\x00".to_vec();
    v.extend_from_slice(&u32::MAX.to_be_bytes());
    v.extend_from_slice(&[0u8; 200]);
    assert!(matches!(
        decrypt_to_vec(b(), "pw", &v, &Limits::default()),
        Err(Error::TooManyIterations { .. })
    ));
    // Endless extensions hit the header limit.
    let mut v = b"AES\x02\x00".to_vec();
    for _ in 0..100 {
        v.extend_from_slice(&[0xff, 0xff]);
        v.extend_from_slice(&[1u8; 0xffff]);
    }
    let lim = Limits {
        max_header_len: 1 << 16,
        ..Limits::default()
    };
    assert!(matches!(
        decrypt_to_vec(b(), "pw", &v, &lim),
        Err(Error::TooLong { .. })
    ));
    assert!(matches!(
        decrypt_to_vec(b(), "pw", b"PK\x03\x04", &lim),
        Err(Error::NotAesCrypt)
    ));
    // 350,000 one-byte extensions: refused after the 1024th, by both readers.
    let mut v = b"AES\x02\x00".to_vec();
    for _ in 0..350_000 {
        v.extend_from_slice(&[0, 1, 7]);
    }
    v.extend_from_slice(&[0u8; 2 + 16 + 80 + 33]);
    assert!(matches!(
        decrypt_to_vec(b(), "pw", &v, &Limits::default()),
        Err(Error::TooManyExtensions { limit: 1024 })
    ));
    assert!(matches!(
        fmt(SeekDecryptor::new(
            b(),
            Cursor::new(&v),
            "pw",
            &Limits::default()
        )),
        Err(Error::TooManyExtensions { limit: 1024 })
    ));
}
