//! [`StretchedKey`] offered to the three readers: used in place of the
//! password exactly when the stream's header names its public IV and
//! iterations, checked by the session block like a password, and ignored
//! (the password stretched as usual) for any other stream.

use super::*;
use crate::secret::Secret;
use std::sync::Arc;

/// Which reader opens the stream.
#[derive(Debug, Clone, Copy)]
enum Reader {
    Decryptor,
    VerifyPass,
    Owned,
}

const READERS: [Reader; 3] = [Reader::Decryptor, Reader::VerifyPass, Reader::Owned];

/// What a reader unlocks a stream with.
enum Unlock<'a> {
    /// The password, and a key offered first.
    Password(&'a str, Option<StretchedKey>),
    /// Shared keys.
    Keys(&'a Arc<StretchedKeys>),
}

/// `ct` opened by `reader` with `how`.
fn open_with(reader: Reader, how: Unlock<'_>, ct: &[u8]) -> Result<Vec<u8>, Error> {
    let lim = Limits::default();
    // `made`: the shared keys, or (as the error side) the password.
    let (offered, made) = match how {
        Unlock::Password(pw, key) => (key, Err(pw)),
        Unlock::Keys(k) => (None, Ok(Arc::clone(k))),
    };
    match reader {
        Reader::Decryptor => {
            let mut d = made.map_or_else(
                |pw| Decryptor::new(pw, &lim),
                |k| Decryptor::with_keys(k, &lim),
            );
            if let Some(k) = offered {
                d.offer_key(k);
            }
            let mut out = Vec::new();
            fmt(io::decrypt_into_sink_with(
                b(),
                d,
                Cursor::new(ct),
                &mut out,
            ))?;
            Ok(out)
        }
        Reader::VerifyPass => {
            let mut v = made.map_or_else(
                |pw| VerifyPass::new(pw, &lim),
                |k| VerifyPass::with_keys(k, &lim),
            );
            if let Some(k) = offered {
                v.offer_key(k);
            }
            v.update(b(), ct)?;
            let mut r = v.finish()?;
            let mut out = Vec::new();
            r.update(b(), ct, &mut out)?;
            r.finish()?;
            Ok(out)
        }
        Reader::Owned => {
            let mut d = made.map_or_else(
                |pw| OwnedDecryptor::new(pw, &lim),
                |k| OwnedDecryptor::with_keys(k, &lim),
            );
            if let Some(k) = offered {
                d.offer_key(k);
            }
            d.update(ct)?;
            let v = d.finish()?;
            let mut out = vec![0u8; v.plaintext_len()];
            v.decrypt_into(b(), &mut out)?;
            Ok(out)
        }
    }
}

/// `ct` opened by `reader` with password `pw` and `key` offered first.
fn open(reader: Reader, pw: &str, key: Option<StretchedKey>, ct: &[u8]) -> Result<Vec<u8>, Error> {
    open_with(reader, Unlock::Password(pw, key), ct)
}

/// Asserts that `reader` ignores `key()` for `ct`: the password is
/// stretched as usual, so the right one opens it and a wrong one fails.
fn ignored(reader: Reader, key: impl Fn() -> StretchedKey, ct: &[u8], pt: &[u8]) {
    let why = format!("{reader:?} {:?}", key());
    assert_eq!(open(reader, "right", Some(key()), ct).unwrap(), pt, "{why}");
    let wrong = open(reader, "wrong", Some(key()), ct);
    assert!(matches!(wrong, Err(Error::WrongPassword)), "{why}");
}

fn header_of(ct: &[u8]) -> Header {
    match parse_header(ct, &Limits::default()).unwrap() {
        Parse::Done(h) => h,
        Parse::NeedMore(_) => panic!("a whole stream has a whole header"),
    }
}

/// A key with the stream's salt and iterations but another key.
fn other_key(h: &Header) -> StretchedKey {
    StretchedKey::new(h.public_iv, h.iterations.unwrap(), Secret::new([7u8; 32]))
}

#[test]
fn a_fitting_key_is_used_in_place_of_the_password() {
    let pt = pattern(3 * CHUNK / 2 + 5);
    let ct = encrypt_to_vec(b(), "right", &pt, &EncryptOptions::v3(1000).unwrap()).unwrap();
    let h = header_of(&ct);
    for r in READERS {
        // The reader's password is wrong: only the key can open it.
        let key = StretchedKey::derive("right", &h).unwrap();
        assert_eq!(open(r, "wrong", Some(key), &ct).unwrap(), pt, "{r:?}");
        // The key made elsewhere, byte for byte the library's PBKDF2.
        let k = v3_key("right", &h.public_iv, 1000);
        let key = StretchedKey::new(h.public_iv, 1000, k);
        assert_eq!(open(r, "wrong", Some(key), &ct).unwrap(), pt, "{r:?}");
        // A fitting key that is not the password's fails as a wrong
        // password does, though the reader's password is right.
        assert!(
            matches!(
                open(r, "right", Some(other_key(&h)), &ct),
                Err(Error::WrongPassword)
            ),
            "{r:?}"
        );
    }
}

#[test]
fn a_key_for_another_stream_is_ignored() {
    let pt = pattern(100);
    let ct = encrypt_to_vec(b(), "right", &pt, &EncryptOptions::v3(1000).unwrap()).unwrap();
    let h = header_of(&ct);
    let mut iv = h.public_iv;
    iv[15] ^= 1;
    for r in READERS {
        let others = [
            StretchedKey::new(iv, 1000, v3_key("right", &iv, 1000)),
            StretchedKey::new(h.public_iv, 999, v3_key("right", &h.public_iv, 999)),
            StretchedKey::new(h.public_iv, 1001, Secret::new([7u8; 32])),
        ];
        for key in others {
            let (iv, n) = (*key.public_iv(), key.iterations());
            ignored(
                r,
                || StretchedKey::new(iv, n, Secret::new([7u8; 32])),
                &ct,
                &pt,
            );
            assert_eq!(open(r, "right", Some(key), &ct).unwrap(), pt, "{r:?}");
        }
    }
}

#[test]
fn version_2_streams_stretch_the_password() {
    let pt = pattern(100);
    let ct = encrypt_to_vec(b(), "right", &pt, &EncryptOptions::v2()).unwrap();
    let h = header_of(&ct);
    assert!(StretchedKey::derive("right", &h).is_none());
    for r in READERS {
        // Same salt, iterations as a v3 stream could name: still ignored.
        let key = || StretchedKey::new(h.public_iv, 1, v3_key("right", &h.public_iv, 1));
        ignored(r, key, &ct, &pt);
    }
}

#[test]
fn a_key_offered_after_the_header_counts_for_nothing() {
    let pt = pattern(5000);
    let ct = encrypt_to_vec(b(), "right", &pt, &EncryptOptions::v3(1000).unwrap()).unwrap();
    let h = header_of(&ct);
    let mut d = Decryptor::new("right", &Limits::default());
    let mut out = Vec::new();
    d.update(b(), &ct[..ct.len() / 2], &mut out).unwrap();
    d.offer_key(other_key(&h));
    d.update(b(), &ct[ct.len() / 2..], &mut out).unwrap();
    d.finish(&mut out).unwrap();
    assert_eq!(out, pt);
}

#[test]
fn the_key_never_prints() {
    let k = StretchedKey::new([1u8; 16], 5, Secret::new([0xab; 32]));
    let shown = format!("{k:?}");
    assert!(
        !shown.contains("171") && !shown.to_lowercase().contains("ab"),
        "{shown}"
    );
    assert!(shown.contains("iterations: 5"), "{shown}");
}

/// `ct` opened by `reader` with the shared `keys`.
fn open_shared(reader: Reader, keys: &Arc<StretchedKeys>, ct: &[u8]) -> Result<Vec<u8>, Error> {
    open_with(reader, Unlock::Keys(keys), ct)
}

fn stretches(keys: &StretchedKeys) -> usize {
    keys.stretches.load(std::sync::atomic::Ordering::Relaxed)
}

/// Streams written with one `PasswordKey` (one salt) and `n` plaintexts.
fn one_run(pw: &str, opts: &EncryptOptions, n: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    let key = PasswordKey::derive(pw, opts).unwrap();
    (0..n)
        .map(|i| {
            let pt = pattern(100 * i + 3);
            let mut e = Encryptor::from_key(&key);
            let mut ct = Vec::new();
            e.update(b(), &pt, &mut ct);
            e.finish(&mut ct);
            (pt, ct)
        })
        .collect()
}

#[test]
fn shared_keys_stretch_once_per_salt() {
    for opts in [EncryptOptions::v3(2000).unwrap(), EncryptOptions::v2()] {
        let runs = [one_run("pw", &opts, 5), one_run("pw", &opts, 4)];
        let keys = Arc::new(StretchedKeys::new("pw"));
        for (i, r) in READERS.into_iter().enumerate() {
            for run in &runs {
                for (pt, ct) in run {
                    assert_eq!(&open_shared(r, &keys, ct).unwrap(), pt, "{r:?}");
                }
            }
            // One stretch per run, whichever reader came first.
            assert_eq!(stretches(&keys), 2, "{r:?} after {i}");
        }
        // Files with salts of their own: one stretch each, as before.
        let own = encrypt_to_vec(b(), "pw", b"own salt", &opts).unwrap();
        assert_eq!(
            open_shared(Reader::Decryptor, &keys, &own).unwrap(),
            b"own salt"
        );
        assert_eq!(stretches(&keys), 3);
        assert_eq!(keys.kept(), 3);
        // The wrong password's keys fail every stream as a password does.
        let wrong = Arc::new(StretchedKeys::new("pW"));
        for r in READERS {
            for (_, ct) in &runs[0] {
                assert!(
                    matches!(open_shared(r, &wrong, ct), Err(Error::WrongPassword)),
                    "{r:?}"
                );
            }
        }
        assert_eq!(stretches(&wrong), 1);
    }
}

#[test]
fn shared_keys_tell_versions_iterations_and_salts_apart() {
    let iv = [5u8; 16];
    let material = || SessionMaterial::from_parts(iv, [6u8; 16], Secret::new([7u8; 32]));
    let keys = Arc::new(StretchedKeys::new("pw"));
    // One salt under v2, v3 at 1, 1000 and 1001 rounds: four keys.
    for opts in [
        EncryptOptions::v2(),
        EncryptOptions::v3(1).unwrap(),
        EncryptOptions::v3(1000).unwrap(),
        EncryptOptions::v3(1001).unwrap(),
    ] {
        let mut e = Encryptor::from_material("pw", &opts, material()).unwrap();
        let mut ct = Vec::new();
        e.update(b(), b"same salt", &mut ct);
        e.finish(&mut ct);
        assert_eq!(
            open_shared(Reader::Decryptor, &keys, &ct).unwrap(),
            b"same salt"
        );
    }
    assert_eq!(stretches(&keys), 4);
}

#[test]
fn shared_keys_are_bounded() {
    let keys = Arc::new(StretchedKeys::new("pw"));
    let opts = EncryptOptions::v3(1).unwrap();
    for i in 0..70u8 {
        let ct = encrypt_to_vec(b(), "pw", &[i], &opts).unwrap();
        assert_eq!(open_shared(Reader::Owned, &keys, &ct).unwrap(), [i]);
    }
    assert_eq!(keys.kept(), 64);
    assert_eq!(stretches(&keys), 70);
}

#[test]
fn threads_sharing_keys_wait_for_one_stretch() {
    let run = one_run("pw", &EncryptOptions::v3(20_000).unwrap(), 8);
    let keys = Arc::new(StretchedKeys::new("pw"));
    std::thread::scope(|s| {
        for (pt, ct) in &run {
            let keys = &keys;
            s.spawn(move || assert_eq!(&open_shared(Reader::Decryptor, keys, ct).unwrap(), pt));
        }
    });
    assert_eq!(stretches(&keys), 1);
}

#[test]
fn shared_keys_never_print() {
    let keys = StretchedKeys::new("hunter2");
    let ct = encrypt_to_vec(b(), "hunter2", b"x", &EncryptOptions::v2()).unwrap();
    let keys = Arc::new(keys);
    open_shared(Reader::Decryptor, &keys, &ct).unwrap();
    let shown = format!("{keys:?}");
    assert!(!shown.contains("hunter2"), "{shown}");
    assert!(shown.contains("kept: 1"), "{shown}");
}
