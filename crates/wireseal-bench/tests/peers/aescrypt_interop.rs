//! AES Crypt interop with real peers, both ways:
//! - version 2 with pyAesCrypt (PyPI) through `interop/aescrypt/pyaescrypt_peer.py`
//!   ([`wireseal_bench::peers::pyaescrypt`])
//!   (skipped with a note when python3 or pyAesCrypt is missing; CI installs them);
//! - version 3 (and 0-2 for reading) with the `aescry` crate.
//!
//! Edge sizes 0, 1, 15, 16, 17, pyAesCrypt's 64 KiB buffer and our chunk
//! boundaries; ASCII and non-ASCII passwords.

use std::io::{Cursor, Read, Write};
use std::path::Path;
use wireseal::aescrypt::io::SeekDecryptor;
use wireseal::aescrypt::*;
use wireseal::batch::Batch;
use wireseal_bench::peers::{pyaescrypt, skip_or_fail, PyAesCrypt};

const PASSWORDS: [&str; 2] = ["correct horse battery staple", "pässwörd ✓ 🔑 пароль"];

fn sizes() -> Vec<usize> {
    vec![
        0,
        1,
        15,
        16,
        17,
        65535,
        65536,
        65537,
        CHUNK - 1,
        CHUNK,
        CHUNK + 1,
        CHUNK + 16,
        2 * CHUNK + 33,
    ]
}

fn data(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u32).wrapping_mul(2654435761).to_le_bytes()[1] ^ seed)
        .collect()
}

/// The pyAesCrypt peer; a missing one fails the test (None after
/// `skipped: WHY` only under `WIRESEAL_ALLOW_MISSING_PEERS=1`).
fn python_peer() -> Option<PyAesCrypt> {
    match pyaescrypt() {
        Ok(p) => Some(p),
        Err(why) => {
            skip_or_fail(&why);
            None
        }
    }
}

fn run_peer(peer: &PyAesCrypt, cmd: &str, dir: &Path, pw: &str) {
    let o = peer
        .command([std::ffi::OsStr::new(cmd), dir.as_os_str()])
        .env("WIRESEAL_PW", pw)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "pyAesCrypt {cmd} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn open_all_ways(pw: &str, ct: &[u8]) -> Vec<u8> {
    let lim = Limits::default();
    let a = decrypt_to_vec(&Batch::all_cores(), pw, ct, &lim).unwrap();
    let mut b = Vec::new();
    SeekDecryptor::new(&Batch::all_cores(), Cursor::new(ct), pw, &lim)
        .unwrap()
        .read_to_end(&mut b)
        .unwrap();
    assert_eq!(a, b);
    a
}

#[test]
fn pyaescrypt_v2_both_ways() {
    let Some(peer) = python_peer() else {
        return;
    };
    for (k, pw) in PASSWORDS.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        for n in sizes() {
            let pt = data(n, k as u8);
            std::fs::write(dir.path().join(format!("{n}.plain")), &pt).unwrap();
            let ct = encrypt_to_vec(&Batch::all_cores(), pw, &pt, &EncryptOptions::v2()).unwrap();
            std::fs::write(dir.path().join(format!("{n}.ws.aes")), &ct).unwrap();
        }
        // A tampered body and a wrong password must be refused by pyAesCrypt too.
        let mut bad = encrypt_to_vec(
            &Batch::all_cores(),
            pw,
            b"sixteen bytes!!!",
            &EncryptOptions::v2(),
        )
        .unwrap();
        let i = bad.len() - 40;
        bad[i] ^= 4;
        std::fs::write(dir.path().join("tampered.ws.aes"), &bad).unwrap();
        let other = encrypt_to_vec(
            &Batch::all_cores(),
            "not the password",
            b"x",
            &EncryptOptions::v2(),
        )
        .unwrap();
        std::fs::write(dir.path().join("otherpw.ws.aes"), other).unwrap();

        run_peer(&peer, "encrypt", dir.path(), pw);
        run_peer(&peer, "decrypt", dir.path(), pw);
        for n in sizes() {
            let pt = data(n, k as u8);
            // ours -> pyAesCrypt
            let back = std::fs::read(dir.path().join(format!("{n}.ws.aes.py.out")))
                .unwrap_or_else(|e| panic!("pyAesCrypt did not decrypt {n} bytes: {e}"));
            // pyAesCrypt 6.1.1 quirk: when the padded body is a whole number of
            // its 64 KiB buffers, it forgets to strip the padding (it does the
            // same to its own files); the plaintext is still a prefix.
            let body = n.div_ceil(16) * 16;
            if n % 16 != 0 && body % 65536 == 0 {
                assert!(
                    back.len() == body && back[..n] == pt[..],
                    "pyAesCrypt decrypting ours, {n} bytes (padding quirk case)"
                );
            } else {
                assert!(
                    back == pt,
                    "pyAesCrypt decrypting ours, {n} bytes, pw #{k}: got {} bytes",
                    back.len()
                );
            }
            // pyAesCrypt -> ours
            let theirs = std::fs::read(dir.path().join(format!("{n}.plain.py.aes"))).unwrap();
            assert_eq!(
                open_all_ways(pw, &theirs),
                pt,
                "ours decrypting pyAesCrypt, {n} bytes"
            );
            assert!(matches!(
                decrypt_to_vec(&Batch::all_cores(), "wrong", &theirs, &Limits::default()),
                Err(Error::WrongPassword)
            ));
        }
        assert!(dir.path().join("tampered.ws.aes.py.err").exists());
        assert!(dir.path().join("otherpw.ws.aes.py.err").exists());
    }
}

#[test]
fn aescry_v3_both_ways() {
    use aescry::aescrypt::{Decryptor, Encryptor as PeerEncryptor, Iterations};
    for pw in PASSWORDS {
        for n in sizes() {
            let pt = data(n, 7);
            // peer -> ours
            let theirs = PeerEncryptor::new(pw)
                .unwrap()
                .iterations(Iterations::new(1000).unwrap())
                .encrypt(&pt)
                .unwrap();
            assert!(open_all_ways(pw, &theirs) == pt, "{n} bytes from aescry");
            // ours -> peer, streamed in odd-sized writes
            let batch = Batch::all_cores();
            let mut e =
                io::EncryptWriter::new(&batch, Vec::new(), pw, &EncryptOptions::v3(1000).unwrap())
                    .unwrap();
            for piece in pt.chunks(100_003) {
                e.write_all(piece).unwrap();
            }
            let ours = e.finish().unwrap();
            let back = Decryptor::new(pw).unwrap().decrypt(&ours).unwrap();
            assert!(back == pt, "{n} bytes to aescry");
        }
    }
    // aescry rejects our stream under a wrong password, and we reject its.
    let ours = encrypt_to_vec(
        &Batch::all_cores(),
        "a",
        b"data",
        &EncryptOptions::v3(10).unwrap(),
    )
    .unwrap();
    assert!(Decryptor::new("b").unwrap().decrypt(&ours).is_err());
    assert_eq!(
        Decryptor::new("a").unwrap().decrypt(&ours).unwrap(),
        b"data"
    );
    let theirs = PeerEncryptor::new("a")
        .unwrap()
        .iterations(Iterations::new(10).unwrap())
        .encrypt(b"data")
        .unwrap();
    let lim = Limits::default();
    assert!(matches!(
        decrypt_to_vec(&Batch::all_cores(), "b", &theirs, &lim),
        Err(Error::WrongPassword)
    ));
    assert!(matches!(
        SeekDecryptor::new(&Batch::all_cores(), Cursor::new(&theirs), "b", &lim)
            .map_err(|e| e.format()),
        Err(Some(Error::WrongPassword))
    ));
    assert_eq!(
        decrypt_to_vec(&Batch::all_cores(), "a", &theirs, &lim).unwrap(),
        b"data"
    );
}

#[test]
fn aescry_v2_both_ways_and_legacy_versions_read() {
    use aescry::security::{EncryptKey, RawEncryptor};
    use aescry::Version as PV;
    for pw in PASSWORDS {
        for n in [0usize, 1, 15, 16, 17, 4096, CHUNK + 1] {
            let pt = data(n, 3);
            for (pv, ours_v) in [
                (PV::V0, Version::V0),
                (PV::V1, Version::V1),
                (PV::V2, Version::V2),
            ] {
                let theirs = RawEncryptor::new(EncryptKey::password(pw).unwrap())
                    .version(pv)
                    .encrypt(&pt)
                    .unwrap();
                let Parse::Done(h) = parse_header(&theirs, &Limits::default()).unwrap() else {
                    panic!()
                };
                assert_eq!(h.version, ours_v);
                assert!(open_all_ways(pw, &theirs) == pt, "{ours_v:?} {n}");
            }
            let ours = encrypt_to_vec(&Batch::all_cores(), pw, &pt, &EncryptOptions::v2()).unwrap();
            let back = aescry::aescrypt::Decryptor::new(pw)
                .unwrap()
                .decrypt(&ours)
                .unwrap();
            assert!(back == pt, "v2 {n} bytes to aescry");
        }
    }
}
