//! Unit tests: round trips across chunk boundaries, both versions, and the
//! one-shot helpers. Interop with real peers lives in `tests/aescrypt_*.rs`.

use super::*;
use crate::batch::Batch;
use std::io::{Cursor, Write};

mod header;
mod into;
mod owned;
mod stretched;
mod two_pass;

/// The format error inside an `io` result (an I/O error fails the test).
fn fmt<T>(r: Result<T, io::Error>) -> Result<T, Error> {
    r.map_err(|e| e.format().unwrap_or_else(|| panic!("I/O error: {e}")))
}

/// The batch every test shares (all cores).
fn b() -> &'static Batch {
    static B: std::sync::OnceLock<Batch> = std::sync::OnceLock::new();
    B.get_or_init(Batch::all_cores)
}

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
            let ct = encrypt_to_vec(b(), "pw", &pt, &opts).unwrap();
            assert_eq!(ct.len(), encrypted_len(&opts, n), "len {n}");
            assert_eq!(decrypt_to_vec(b(), "pw", &ct, &lim).unwrap(), pt, "vec {n}");
            let mut r = io::SeekDecryptor::new(b(), Cursor::new(&ct), "pw", &lim).unwrap();
            assert_eq!(r.plaintext_len(), n as u64);
            let mut got = Vec::new();
            std::io::Read::read_to_end(&mut r, &mut got).unwrap();
            assert_eq!(got, pt, "seek {n}");
            let mut buf = vec![0u8; ct.len() + 3];
            assert_eq!(
                encrypt_into(b(), "pw", &pt, &opts, &mut buf).unwrap(),
                ct.len()
            );
            assert_eq!(
                decrypt_to_vec(b(), "pw", &buf[..ct.len()], &lim).unwrap(),
                pt
            );
        }
    }
}

#[test]
fn small_writes_equal_one_big_write() {
    let pt = pattern(CHUNK + 5000);
    let mut e = io::EncryptWriter::new(b(), Vec::new(), "pw", &EncryptOptions::v2()).unwrap();
    for piece in pt.chunks(777) {
        e.write_all(piece).unwrap();
    }
    let ct = e.finish().unwrap();
    assert_eq!(
        decrypt_to_vec(b(), "pw", &ct, &Limits::default()).unwrap(),
        pt
    );
}

#[test]
fn buffer_too_small_and_bad_options() {
    let opts = EncryptOptions::v2();
    let mut buf = vec![0u8; 10];
    assert!(matches!(
        encrypt_into(b(), "pw", b"x", &opts, &mut buf),
        Err(Error::BufferTooSmall { .. })
    ));
    assert!(EncryptOptions::v3(0).is_err());
    assert!(matches!(
        EncryptOptions::v2().with_version(Version::V1),
        Err(Error::CannotWriteVersion(1))
    ));
}

#[test]
fn wrong_password_is_distinct_from_corruption() {
    let ct = encrypt_to_vec(b(), "right", &pattern(100), &EncryptOptions::v2()).unwrap();
    let lim = Limits::default();
    assert!(matches!(
        decrypt_to_vec(b(), "wrong", &ct, &lim),
        Err(Error::WrongPassword)
    ));
    let mut bad = ct.clone();
    let i = bad.len() - 40;
    bad[i] ^= 1;
    assert!(matches!(
        decrypt_to_vec(b(), "right", &bad, &lim),
        Err(Error::Auth)
    ));
    assert!(matches!(
        fmt(io::SeekDecryptor::new(
            b(),
            Cursor::new(&bad),
            "right",
            &lim
        )),
        Err(Error::Auth)
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
    let ct = encrypt_to_vec(b(), "pw", &pt, &EncryptOptions::v2()).unwrap();
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
        let mut r = io::SeekDecryptor::new(b(), input, "pw", &Limits::default()).unwrap();
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

/// A sink that records what it was told.
#[derive(Default)]
struct Recorder {
    data: Vec<u8>,
    writes: usize,
    committed: usize,
    discarded: usize,
    fail_commit: bool,
}

impl ProvisionalSink for Recorder {
    type Error = io::Error;

    fn write_unverified(&mut self, plaintext: &[u8]) -> Result<(), io::Error> {
        assert_eq!(self.committed + self.discarded, 0, "write after the end");
        self.writes += 1;
        self.data.extend_from_slice(plaintext);
        Ok(())
    }
    fn commit(&mut self) -> Result<(), io::Error> {
        self.committed += 1;
        if self.fail_commit {
            Err(std::io::Error::other("disk full").into())
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
    let ct = encrypt_to_vec(b(), "pw", &pt, &EncryptOptions::v2()).unwrap();
    let lim = Limits::default();
    let mut ok = Recorder::default();
    let d = io::decrypt_into_sink(b(), "pw", &ct[..], &mut ok, &lim).unwrap();
    assert_eq!((ok.committed, ok.discarded), (1, 0));
    assert_eq!(d.plaintext_len, pt.len() as u64);
    assert!(ok.data == pt);

    let mut bad = ct.clone();
    let i = bad.len() - 40;
    bad[i] ^= 1;
    let mut s = Recorder::default();
    assert!(matches!(
        fmt(io::decrypt_into_sink(b(), "pw", &bad[..], &mut s, &lim)),
        Err(Error::Auth)
    ));
    assert_eq!((s.committed, s.discarded), (0, 1));
    assert_eq!(
        s.data.len(),
        2 * CHUNK + 32,
        "the final block was held back"
    );

    let mut s = Recorder::default();
    assert!(matches!(
        fmt(io::decrypt_into_sink(b(), "wrong", &ct[..], &mut s, &lim)),
        Err(Error::WrongPassword)
    ));
    assert_eq!((s.committed, s.discarded, s.data.len()), (0, 1, 0));

    let mut s = Recorder {
        fail_commit: true,
        ..Recorder::default()
    };
    assert!(matches!(
        io::decrypt_into_sink(b(), "pw", &ct[..], &mut s, &lim),
        Err(io::Error::Io(_))
    ));
    assert_eq!((s.committed, s.discarded), (1, 1));

    // The Vec sink wipes everything on failure, including what it held.
    let mut v = b"earlier".to_vec();
    assert!(io::decrypt_into_sink(b(), "pw", &bad[..], &mut v, &lim).is_err());
    assert!(v.is_empty());
    let mut v = Vec::new();
    io::decrypt_into_sink(b(), "pw", &ct[..], &mut v, &lim).unwrap();
    assert!(v == pt);
}

/// The blocks held back from one piece go out with the next piece's
/// plaintext, so a piece of up to one chunk costs the sink at most one
/// write (a Python `write` call, a system call), whatever its alignment.
#[test]
fn a_piece_of_up_to_a_chunk_is_one_write() {
    let pt = pattern(5 * CHUNK + 1001);
    for opts in [EncryptOptions::v2(), EncryptOptions::v3(10).unwrap()] {
        let ct = encrypt_to_vec(b(), "pw", &pt, &opts).unwrap();
        let mut dec = Decryptor::new("pw", &Limits::default());
        let mut s = Recorder::default();
        let mut rest = &ct[..];
        for size in [CHUNK, 5, CHUNK - 3, 777, CHUNK, 40, CHUNK - 1]
            .iter()
            .cycle()
        {
            if rest.is_empty() {
                break;
            }
            let (piece, after) = rest.split_at((*size).min(rest.len()));
            let before = s.writes;
            dec.update(b(), piece, &mut s).unwrap();
            assert!(
                s.writes - before <= 1,
                "{} writes for {size} bytes",
                s.writes - before
            );
            rest = after;
        }
        dec.finish(&mut s).unwrap();
        assert!(s.data == pt);
    }
}

#[test]
fn extension_count_round_trips_up_to_the_reader_limit() {
    let ext = |n| -> Vec<Extension> {
        (0..n)
            .map(|i| Extension::new("N", &[i as u8]).unwrap())
            .collect()
    };
    let opts = EncryptOptions::v2().with_extensions(ext(1024));
    let ct = encrypt_to_vec(b(), "pw", b"data", &opts).unwrap();
    assert_eq!(
        decrypt_to_vec(b(), "pw", &ct, &Limits::default()).unwrap(),
        b"data"
    );
    let too_many = EncryptOptions::v2().with_extensions(ext(1025));
    assert!(matches!(
        encrypt_to_vec(b(), "pw", b"data", &too_many),
        Err(Error::InvalidExtension(_))
    ));
    let too_long = EncryptOptions::v2().with_extensions(
        (0..17)
            .map(|_| Extension::new("B", &[0u8; 65_000]).unwrap())
            .collect(),
    );
    assert!(matches!(
        encrypt_to_vec(b(), "pw", b"data", &too_long),
        Err(Error::InvalidExtension(_))
    ));
}

/// The sans-IO cores give the same bytes whatever the piece sizes they are
/// fed and whatever the batch: one thread, two, or all cores.
#[test]
fn cores_equal_one_at_a_time_for_any_split() {
    let pt = pattern(2 * CHUNK + 1234);
    let lim = Limits::default();
    let one = Batch::with_threads(1);
    let two = Batch::with_threads(2);
    let m = || SessionMaterial::from_parts([1; 16], [2; 16], crate::secret::Secret::new([3; 32]));
    let opts = EncryptOptions::v2();
    let mut reference = Vec::new();
    let mut e = Encryptor::from_material("pw", &opts, m()).unwrap();
    e.update(&one, &pt, &mut reference);
    e.finish(&mut reference);
    for (batch, piece) in [(&two, 1), (&two, 4093), (b(), CHUNK + 1), (&one, 70_000)] {
        if piece == 1 {
            // Byte by byte is slow; a prefix of the stream is enough.
            let mut d = Decryptor::new("pw", &lim);
            let mut sink = Vec::new();
            for byte in reference[..200_000].chunks(1) {
                d.update(batch, byte, &mut sink).unwrap();
            }
            assert!(sink[..] == pt[..sink.len()] && sink.len() > 190_000);
            continue;
        }
        let mut out = Vec::new();
        let mut e = Encryptor::from_material("pw", &opts, m()).unwrap();
        for p in pt.chunks(piece) {
            e.update(batch, p, &mut out);
        }
        e.finish(&mut out);
        assert!(out == reference, "encrypt, pieces of {piece}");
        let mut d = Decryptor::new("pw", &lim);
        let mut sink = Vec::new();
        for p in reference.chunks(piece) {
            d.update(batch, p, &mut sink).unwrap();
        }
        let got = d.finish(&mut sink).unwrap();
        assert_eq!(got.plaintext_len, pt.len() as u64);
        assert!(sink == pt, "decrypt, pieces of {piece}");
    }
    let mut buf = vec![0u8; decrypted_len(reference.len()).unwrap()];
    let n = decrypt_into(&two, "pw", &reference, &lim, &mut buf).unwrap();
    assert!(buf[..n] == pt[..]);
    assert!(matches!(
        decrypt_into(&two, "pw", &reference, &lim, &mut buf[..pt.len()]),
        Err(Error::BufferTooSmall { .. })
    ));
    assert!(matches!(
        decrypted_len(52),
        Err(Error::Truncated { len: 52, min: 53 })
    ));
    // After an error, the decryptor is poisoned.
    let mut d = Decryptor::new("pw", &lim);
    let mut sink = Vec::new();
    assert!(matches!(
        d.update(&one, b"XYZ", &mut sink),
        Err(Error::NotAesCrypt)
    ));
    assert!(matches!(
        d.update(&one, b"AES", &mut sink),
        Err(Error::Poisoned)
    ));
}
