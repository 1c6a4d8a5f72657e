//! Any bytes as an AES Crypt stream: decryption never panics, the one-pass
//! path (`io::decrypt_into_sink`), the sans-IO `Decryptor` fed in 7-byte
//! pieces, the verify-then-read path (`io::SeekDecryptor`), the
//! `OwnedDecryptor` kept in 5-byte pieces and a `Decryptor` whose keys come
//! from one `StretchedKeys` kept for the whole run (so keys stretched for
//! earlier inputs are reused) agree on the plaintext or the error, and a failed one-pass run discards its sink and never commits it.
//! Iterations are capped low (16) to keep runs fast.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::io::{Cursor, Read};
use std::sync::{Arc, OnceLock};
use wireseal::aescrypt::io::{decrypt_into_sink, decrypt_into_sink_with, SeekDecryptor};
use wireseal::aescrypt::{
    io, Decryptor, Error, Limits, OwnedDecryptor, ProvisionalSink, StretchedKeys,
};
use wireseal::batch::Batch;

/// The password of the aescrypt-rs vectors (`vectors/aescrypt/aescrypt-rs`),
/// whose version 3 streams use 5 PBKDF2 iterations: seeds cut from them
/// reach decryption and the HMAC checks, not only the KDF refusal.
const PASSWORD: &str = "Hello";

fn batch() -> &'static Batch {
    static B: OnceLock<Batch> = OnceLock::new();
    B.get_or_init(|| Batch::with_threads(2))
}

/// The password's keys, shared by every input of the run.
fn keys() -> Arc<StretchedKeys> {
    static K: OnceLock<Arc<StretchedKeys>> = OnceLock::new();
    Arc::clone(K.get_or_init(|| Arc::new(StretchedKeys::new(PASSWORD))))
}

#[derive(Default)]
struct Sink {
    data: Vec<u8>,
    committed: bool,
    discarded: bool,
}

impl ProvisionalSink for Sink {
    type Error = Error;

    fn write_unverified(&mut self, plaintext: &[u8]) -> Result<(), Error> {
        assert!(!self.committed && !self.discarded);
        self.data.extend_from_slice(plaintext);
        Ok(())
    }
    fn commit(&mut self) -> Result<(), Error> {
        self.committed = true;
        Ok(())
    }
    fn discard(&mut self) {
        self.discarded = true;
    }
}

/// The format error of an in-memory run (which has no I/O to fail).
fn format(e: io::Error) -> Error {
    e.format().expect("no I/O error reading memory")
}

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_iterations: 16,
        ..Limits::default()
    };
    let mut sink = Sink::default();
    let one = decrypt_into_sink(batch(), PASSWORD, data, &mut sink, &limits).map_err(format);
    assert_eq!(sink.committed, one.is_ok());
    assert_eq!(sink.discarded, one.is_err());
    let mut pieces = Vec::new();
    let mut d = Decryptor::new(PASSWORD, &limits);
    let fed = data
        .chunks(7)
        .try_for_each(|p| d.update(batch(), p, &mut pieces));
    let fed = fed.and_then(|()| d.finish(&mut pieces));
    match (&one, &fed) {
        (Ok(a), Ok(b)) => assert!(a.plaintext_len == b.plaintext_len && sink.data == pieces),
        (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
        _ => panic!("one pass and pieces disagree: {one:?} vs {fed:?}"),
    }
    let seek = SeekDecryptor::new(batch(), Cursor::new(data), PASSWORD, &limits)
        .map_err(format)
        .map(|mut r| {
            let mut v = Vec::new();
            r.read_to_end(&mut v)
                .expect("an unchanged input reads back");
            v
        });
    match (&one, &seek) {
        (Ok(d), Ok(v)) => {
            assert_eq!(&sink.data, v);
            assert_eq!(d.plaintext_len, v.len() as u64);
        }
        (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
        _ => panic!(
            "paths disagree: {one:?} vs {:?}",
            seek.as_ref().map(Vec::len)
        ),
    }
    let kept = (|| {
        let mut d = OwnedDecryptor::new(PASSWORD, &limits);
        for p in data.chunks(5) {
            d.update(p)?;
        }
        let v = d.finish()?;
        let mut out = vec![0u8; v.plaintext_len()];
        v.decrypt_into(batch(), &mut out)?;
        Ok::<_, Error>(out)
    })();
    match (&one, &kept) {
        (Ok(_), Ok(v)) => assert_eq!(&sink.data, v),
        (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
        _ => panic!("one pass and kept pieces disagree: {one:?} vs {kept:?}"),
    }
    let mut shared_sink = Sink::default();
    let d = Decryptor::with_keys(keys(), &limits);
    let shared = decrypt_into_sink_with(batch(), d, data, &mut shared_sink).map_err(format);
    match (&one, &shared) {
        (Ok(_), Ok(_)) => assert_eq!(sink.data, shared_sink.data),
        (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
        _ => panic!("password and shared keys disagree: {one:?} vs {shared:?}"),
    }
});
