//! Unit tests: round trips across chunk boundaries, both versions, and the
//! one-shot helpers. Interop with real peers lives in `tests/aescrypt_*.rs`.

use super::*;
use std::io::{Cursor, Write};

fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 31 + i / 251) as u8).collect()
}

#[test]
fn round_trip_sizes_and_paths() {
    let v3 = EncryptOptions::v3(10).unwrap();
    let lim = Limits::default();
    for opts in [EncryptOptions::v2(), v3] {
        for n in [
            0,
            1,
            15,
            16,
            17,
            1000,
            CHUNK - 1,
            CHUNK,
            CHUNK + 1,
            2 * CHUNK + 17,
        ] {
            let pt = pattern(n);
            let ct = encrypt_to_vec("pw", &pt, &opts).unwrap();
            assert_eq!(ct.len() as u64, opts.encrypted_len(n as u64), "len {n}");
            assert_eq!(decrypt_to_vec("pw", &ct, &lim).unwrap(), pt, "vec {n}");
            let mut r = SeekDecryptor::new(Cursor::new(&ct), "pw", &lim).unwrap();
            assert_eq!(r.plaintext_len(), n as u64);
            let mut got = Vec::new();
            std::io::Read::read_to_end(&mut r, &mut got).unwrap();
            assert_eq!(got, pt, "seek {n}");
            let mut buf = vec![0u8; ct.len() + 3];
            assert_eq!(encrypt_into("pw", &pt, &opts, &mut buf).unwrap(), ct.len());
            assert_eq!(decrypt_to_vec("pw", &buf[..ct.len()], &lim).unwrap(), pt);
        }
    }
}

#[test]
fn small_writes_equal_one_big_write() {
    let pt = pattern(CHUNK + 5000);
    let mut e = Encryptor::new(Vec::new(), "pw", &EncryptOptions::v2()).unwrap();
    for piece in pt.chunks(777) {
        e.write_all(piece).unwrap();
    }
    let ct = e.finish().unwrap();
    assert_eq!(decrypt_to_vec("pw", &ct, &Limits::default()).unwrap(), pt);
}

#[test]
fn buffer_too_small_and_bad_options() {
    let opts = EncryptOptions::v2();
    let mut buf = vec![0u8; 10];
    assert!(matches!(
        encrypt_into("pw", b"x", &opts, &mut buf),
        Err(Error::BufferTooSmall { .. })
    ));
    assert!(EncryptOptions::v3(0).is_err());
    assert!(matches!(
        EncryptOptions::v2().version(Version::V1),
        Err(Error::CannotWriteVersion(1))
    ));
}

#[test]
fn wrong_password_is_distinct_from_corruption() {
    let ct = encrypt_to_vec("right", &pattern(100), &EncryptOptions::v2()).unwrap();
    let lim = Limits::default();
    assert!(matches!(
        decrypt_to_vec("wrong", &ct, &lim),
        Err(Error::WrongPassword)
    ));
    let mut bad = ct.clone();
    let i = bad.len() - 40;
    bad[i] ^= 1;
    assert!(matches!(
        decrypt_to_vec("right", &bad, &lim),
        Err(Error::Corrupted)
    ));
    assert!(matches!(
        SeekDecryptor::new(Cursor::new(&bad), "right", &lim),
        Err(Error::Corrupted)
    ));
}

/// An input that changes between the verification pass and the read pass is
/// reported at the end of the read pass.
#[test]
fn seek_decryptor_detects_input_changed_between_passes() {
    use std::io::{Read, Seek, SeekFrom};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    struct Changing {
        inner: Cursor<Vec<u8>>,
        flip: Arc<AtomicBool>,
        at: usize,
    }
    impl Read for Changing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.flip.swap(false, Ordering::SeqCst) {
                self.inner.get_mut()[self.at] ^= 1;
            }
            self.inner.read(buf)
        }
    }
    impl Seek for Changing {
        fn seek(&mut self, p: SeekFrom) -> std::io::Result<u64> {
            self.inner.seek(p)
        }
    }

    let pt = pattern(3 * CHUNK);
    let ct = encrypt_to_vec("pw", &pt, &EncryptOptions::v2()).unwrap();
    let flip = Arc::new(AtomicBool::new(false));
    let input = Changing {
        at: ct.len() - 100,
        inner: Cursor::new(ct),
        flip: flip.clone(),
    };
    let mut r = SeekDecryptor::new(input, "pw", &Limits::default()).unwrap();
    flip.store(true, Ordering::SeqCst);
    let mut out = Vec::new();
    let e = r.read_to_end(&mut out).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
}
