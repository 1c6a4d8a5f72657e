//! Any bytes as an AES Crypt stream: decryption never panics, the one-pass
//! path (`decrypt_into_sink`) and the verify-then-read path (`SeekDecryptor`)
//! agree on the plaintext or the error, and a failed one-pass run discards
//! its sink and never commits it. Iterations are capped low to keep runs fast.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::io::{Cursor, Read};
use wireseal::aescrypt::{decrypt_into_sink, Limits, ProvisionalSink, SeekDecryptor};

#[derive(Default)]
struct Sink {
    data: Vec<u8>,
    committed: bool,
    discarded: bool,
}

impl ProvisionalSink for Sink {
    fn write_unverified(&mut self, plaintext: &[u8]) -> std::io::Result<()> {
        assert!(!self.committed && !self.discarded);
        self.data.extend_from_slice(plaintext);
        Ok(())
    }
    fn commit(&mut self) -> std::io::Result<()> {
        self.committed = true;
        Ok(())
    }
    fn discard(&mut self) {
        self.discarded = true;
    }
}

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_iterations: 16,
        ..Limits::default()
    };
    let mut sink = Sink::default();
    let one = decrypt_into_sink("pw", data, &mut sink, &limits);
    assert_eq!(sink.committed, one.is_ok());
    assert_eq!(sink.discarded, one.is_err());
    let seek = SeekDecryptor::new(Cursor::new(data), "pw", &limits).map(|mut r| {
        let mut v = Vec::new();
        r.read_to_end(&mut v).expect("an unchanged input reads back");
        v
    });
    match (&one, &seek) {
        (Ok(d), Ok(v)) => {
            assert_eq!(&sink.data, v);
            assert_eq!(d.plaintext_len, v.len() as u64);
        }
        (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
        _ => panic!("paths disagree: {one:?} vs {:?}", seek.as_ref().map(Vec::len)),
    }
});
