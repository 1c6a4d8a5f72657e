//! AES Crypt's `SeekDecryptor` over a real file that another writer changes
//! between its verification pass and its read pass (the library's own tests
//! use in-memory streams; files are the drivers' business).

use std::io::Read;
use wireseal::aescrypt::io::SeekDecryptor;
use wireseal::aescrypt::{encrypt_to_vec, EncryptOptions, Error, Limits, CHUNK};
use wireseal::batch::Batch;

/// The real case: a file on disk rewritten (same length, other content)
/// after `SeekDecryptor::new` verified it.
#[test]
fn seek_decryptor_on_a_file_rewritten_between_passes() {
    let batch = Batch::with_threads(2);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.aes");
    let pt: Vec<u8> = (0..2 * CHUNK + 7).map(|i| (i * 31) as u8).collect();
    let ct = encrypt_to_vec(&batch, "pw", &pt, &EncryptOptions::v2()).unwrap();
    std::fs::write(&path, &ct).unwrap();
    let f = std::fs::File::open(&path).unwrap();
    let mut r = SeekDecryptor::new(&batch, f, "pw", &Limits::default()).unwrap();
    // Another writer replaces the first chunk's ciphertext in place.
    let mut other = ct.clone();
    let body = EncryptOptions::v2().prefix_len();
    for x in &mut other[body..body + 64] {
        *x ^= 0x5a;
    }
    std::fs::write(&path, &other).unwrap();
    let mut out = Vec::new();
    let e = r.read_to_end(&mut out).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{e:?}");
    assert!(
        matches!(
            e.get_ref().and_then(|i| i.downcast_ref::<Error>()),
            Some(Error::InputChanged)
        ),
        "{e:?}"
    );
    assert!(out.is_empty(), "nothing from the changed chunk");
    // Truncating the file between the passes is an error too.
    std::fs::write(&path, &ct).unwrap();
    let f = std::fs::File::open(&path).unwrap();
    let mut r = SeekDecryptor::new(&batch, f, "pw", &Limits::default()).unwrap();
    std::fs::write(&path, &ct[..body + 100]).unwrap();
    let mut out = Vec::new();
    assert!(r.read_to_end(&mut out).is_err());
    assert!(out.is_empty());
}
