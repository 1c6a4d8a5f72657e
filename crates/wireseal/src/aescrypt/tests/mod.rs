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

/// A seekable input whose byte `at` is flipped on the first read after
/// `flip` is set (i.e. at the start of the second pass).
struct Changing {
    inner: Cursor<Vec<u8>>,
    flip: std::sync::Arc<std::sync::atomic::AtomicBool>,
    at: usize,
}

impl std::io::Read for Changing {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.flip.swap(false, std::sync::atomic::Ordering::SeqCst) {
            self.inner.get_mut()[self.at] ^= 1;
        }
        self.inner.read(buf)
    }
}

impl std::io::Seek for Changing {
    fn seek(&mut self, p: std::io::SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(p)
    }
}

fn is_input_changed(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::InvalidData
        && matches!(
            e.get_ref().and_then(|i| i.downcast_ref::<Error>()),
            Some(Error::InputChanged)
        )
}

/// An input changed between the verification pass and the read pass: the
/// chunks before the change are released (they still match), the changed
/// chunk never is, and every later read fails.
#[test]
fn seek_decryptor_releases_no_plaintext_from_a_changed_chunk() {
    use std::io::Read;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    let pt = pattern(3 * CHUNK + 100);
    let ct = encrypt_to_vec("pw", &pt, &EncryptOptions::v2()).unwrap();
    let body = EncryptOptions::v2().prefix_len();
    // In the second chunk, in the last (short) chunk, and in its final block.
    for (at, released) in [
        (body + CHUNK + 5, CHUNK),
        (body + 3 * CHUNK + 3, 3 * CHUNK),
        (ct.len() - 34, 3 * CHUNK),
    ] {
        let flip = Arc::new(AtomicBool::new(false));
        let input = Changing {
            at,
            inner: Cursor::new(ct.clone()),
            flip: flip.clone(),
        };
        let mut r = SeekDecryptor::new(input, "pw", &Limits::default()).unwrap();
        flip.store(true, Ordering::SeqCst);
        let mut out = Vec::new();
        let e = r.read_to_end(&mut out).unwrap_err();
        assert!(is_input_changed(&e), "{e:?}");
        assert_eq!(out.len(), released, "flip at {at}");
        assert!(out[..] == pt[..released], "released bytes are the original");
        let mut more = [0u8; 16];
        assert!(r.read(&mut more).is_err(), "poisoned after an error");
    }
}

/// The real case: a file on disk rewritten (same length, other content)
/// after `SeekDecryptor::new` verified it.
#[test]
fn seek_decryptor_on_a_file_rewritten_between_passes() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.aes");
    let pt = pattern(2 * CHUNK + 7);
    let ct = encrypt_to_vec("pw", &pt, &EncryptOptions::v2()).unwrap();
    std::fs::write(&path, &ct).unwrap();
    let f = std::fs::File::open(&path).unwrap();
    let mut r = SeekDecryptor::new(f, "pw", &Limits::default()).unwrap();
    // Another writer replaces the first chunk's ciphertext in place.
    let mut other = ct.clone();
    let body = EncryptOptions::v2().prefix_len();
    for b in &mut other[body..body + 64] {
        *b ^= 0x5a;
    }
    std::fs::write(&path, &other).unwrap();
    let mut out = Vec::new();
    let e = r.read_to_end(&mut out).unwrap_err();
    assert!(is_input_changed(&e), "{e:?}");
    assert!(out.is_empty(), "nothing from the changed chunk");
    // Truncating the file between the passes is an error too.
    std::fs::write(&path, &ct).unwrap();
    let f = std::fs::File::open(&path).unwrap();
    let mut r = SeekDecryptor::new(f, "pw", &Limits::default()).unwrap();
    std::fs::write(&path, &ct[..body + 100]).unwrap();
    let mut out = Vec::new();
    assert!(r.read_to_end(&mut out).is_err());
    assert!(out.is_empty());
}

/// A sink that records what it was told.
#[derive(Default)]
struct Recorder {
    data: Vec<u8>,
    committed: usize,
    discarded: usize,
    fail_commit: bool,
}

impl ProvisionalSink for Recorder {
    fn write_unverified(&mut self, plaintext: &[u8]) -> std::io::Result<()> {
        assert_eq!(self.committed + self.discarded, 0, "write after the end");
        self.data.extend_from_slice(plaintext);
        Ok(())
    }
    fn commit(&mut self) -> std::io::Result<()> {
        self.committed += 1;
        if self.fail_commit {
            Err(std::io::Error::other("disk full"))
        } else {
            Ok(())
        }
    }
    fn discard(&mut self) {
        self.discarded += 1;
    }
}

/// One pass: commit exactly once after the HMAC matched; on any failure
/// (even after megabytes were written) discard exactly once, never commit.
#[test]
fn provisional_sink_is_committed_only_after_verification() {
    let pt = pattern(2 * CHUNK + 33);
    let ct = encrypt_to_vec("pw", &pt, &EncryptOptions::v2()).unwrap();
    let lim = Limits::default();
    let mut ok = Recorder::default();
    let d = decrypt_into_sink("pw", &ct[..], &mut ok, &lim).unwrap();
    assert_eq!((ok.committed, ok.discarded), (1, 0));
    assert_eq!(d.plaintext_len, pt.len() as u64);
    assert!(ok.data == pt);

    let mut bad = ct.clone();
    let i = bad.len() - 40;
    bad[i] ^= 1;
    let mut s = Recorder::default();
    assert!(matches!(
        decrypt_into_sink("pw", &bad[..], &mut s, &lim),
        Err(Error::Corrupted)
    ));
    assert_eq!((s.committed, s.discarded), (0, 1));
    assert_eq!(s.data.len(), 2 * CHUNK, "the final chunk was held back");

    let mut s = Recorder::default();
    assert!(matches!(
        decrypt_into_sink("wrong", &ct[..], &mut s, &lim),
        Err(Error::WrongPassword)
    ));
    assert_eq!((s.committed, s.discarded, s.data.len()), (0, 1, 0));

    let mut s = Recorder {
        fail_commit: true,
        ..Recorder::default()
    };
    assert!(matches!(
        decrypt_into_sink("pw", &ct[..], &mut s, &lim),
        Err(Error::Io(_))
    ));
    assert_eq!((s.committed, s.discarded), (1, 1));

    // The Vec sink wipes everything on failure, including what it held.
    let mut v = b"earlier".to_vec();
    assert!(decrypt_into_sink("pw", &bad[..], &mut v, &lim).is_err());
    assert!(v.is_empty());
    let mut v = Vec::new();
    decrypt_into_sink("pw", &ct[..], &mut v, &lim).unwrap();
    assert!(v == pt);
}

#[test]
fn extension_count_round_trips_up_to_the_reader_limit() {
    let ext = |n| -> Vec<Extension> {
        (0..n)
            .map(|i| Extension::new("N", &[i as u8]).unwrap())
            .collect()
    };
    let opts = EncryptOptions::v2().extensions(ext(1024));
    let ct = encrypt_to_vec("pw", b"data", &opts).unwrap();
    assert_eq!(
        decrypt_to_vec("pw", &ct, &Limits::default()).unwrap(),
        b"data"
    );
    let too_many = EncryptOptions::v2().extensions(ext(1025));
    assert!(matches!(
        encrypt_to_vec("pw", b"data", &too_many),
        Err(Error::InvalidExtension(_))
    ));
    let too_long = EncryptOptions::v2().extensions(
        (0..17)
            .map(|_| Extension::new("B", &[0u8; 65_000]).unwrap())
            .collect(),
    );
    assert!(matches!(
        encrypt_to_vec("pw", b"data", &too_long),
        Err(Error::InvalidExtension(_))
    ));
}
