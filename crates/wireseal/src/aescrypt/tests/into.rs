//! The `*_into` shapes of the encryptor and the streams of one
//! [`PasswordKey`].

use super::*;

/// `update_into` / `finish_into` write exactly `update_len` / `finish_len`
/// bytes, and together the same stream as `update` / `finish`, for pieces
/// that cross chunk boundaries in every way.
#[test]
fn update_into_writes_what_update_len_says() {
    let pt = pattern(3 * CHUNK + 777);
    let material =
        || SessionMaterial::from_parts([4; 16], [5; 16], crate::secret::Secret::new([6; 32]));
    for opts in [EncryptOptions::v2(), EncryptOptions::v3(7).unwrap()] {
        let mut reference = Vec::new();
        let mut e = Encryptor::from_material("pw", &opts, material()).unwrap();
        e.update(b(), &pt, &mut reference);
        e.finish(&mut reference);
        assert_eq!(reference.len(), encrypted_len(&opts, pt.len()));
        for piece in [1000, CHUNK - 1, CHUNK, CHUNK + 3, 3 * CHUNK + 777] {
            let mut e = Encryptor::from_material("pw", &opts, material()).unwrap();
            let mut out = Vec::new();
            for p in pt.chunks(piece) {
                let need = e.update_len(p.len());
                let mut buf = vec![0u8; need + 5];
                assert_eq!(e.update_into(b(), p, &mut buf).unwrap(), need);
                out.extend_from_slice(&buf[..need]);
            }
            let need = e.finish_len();
            let mut buf = vec![0u8; need];
            assert_eq!(e.finish_into(&mut buf).unwrap(), need);
            out.extend_from_slice(&buf);
            assert!(out == reference, "pieces of {piece}");
        }
        // Too small: refused before anything is consumed.
        let mut e = Encryptor::from_material("pw", &opts, material()).unwrap();
        let need = e.update_len(CHUNK * 2);
        let mut small = vec![0u8; need - 1];
        assert_eq!(
            e.update_into(b(), &pt[..2 * CHUNK], &mut small),
            Err(Error::BufferTooSmall { required: need })
        );
        assert_eq!(e.update_len(CHUNK * 2), need, "nothing consumed");
        let mut tiny = [0u8; 3];
        assert!(matches!(
            e.finish_into(&mut tiny),
            Err(Error::BufferTooSmall { .. })
        ));
    }
}

/// Streams of one `PasswordKey` decrypt with the password, share the
/// public IV and nothing else, and cost no key derivation each.
#[test]
fn streams_of_one_password_key() {
    let lim = Limits::default();
    for opts in [EncryptOptions::v2(), EncryptOptions::v3(1000).unwrap()] {
        let key = PasswordKey::derive("pw", &opts).unwrap();
        let mut streams = Vec::new();
        for n in [0, 1, 100, CHUNK + 9] {
            let pt = pattern(n);
            let mut ct = Vec::new();
            let mut e = Encryptor::from_key(&key);
            e.update(b(), &pt, &mut ct);
            e.finish(&mut ct);
            assert_eq!(ct.len(), encrypted_len(&opts, n));
            assert_eq!(decrypt_to_vec(b(), "pw", &ct, &lim).unwrap(), pt);
            assert_eq!(
                decrypt_to_vec(b(), "other", &ct, &lim),
                Err(Error::WrongPassword)
            );
            streams.push(ct);
        }
        let prefix = |ct: &[u8]| match parse_header(ct, &lim).unwrap() {
            Parse::Done(h) => (h.public_iv, ct[h.len..h.len + 80].to_vec()),
            Parse::NeedMore(_) => panic!("short"),
        };
        let (iv0, block0) = prefix(&streams[0]);
        for ct in &streams[1..] {
            let (iv, block) = prefix(ct);
            assert_eq!(iv, iv0, "one salt");
            assert_ne!(block, block0, "fresh session IV and key");
        }
        let other = PasswordKey::derive("pw", &opts).unwrap();
        let mut ct = Vec::new();
        let e = Encryptor::from_key(&other);
        e.finish(&mut ct);
        assert_ne!(prefix(&ct).0, iv0, "each key its own salt");
    }
    assert!(matches!(
        PasswordKey::derive(
            "pw",
            &EncryptOptions::v2()
                .with_extensions(vec![Extension::new("B", &[0u8; 65_000]).unwrap(); 17])
        ),
        Err(Error::InvalidExtension(_))
    ));
}

/// A reader that hands out at most `step` bytes per call.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// `io::encrypt_stream` writes the same stream as the encryptor fed by
/// hand, whatever the reader's pieces and the input's length.
#[test]
fn encrypt_stream_equals_the_encryptor() {
    let material =
        || SessionMaterial::from_parts([7; 16], [8; 16], crate::secret::Secret::new([9; 32]));
    let opts = EncryptOptions::v2();
    for n in [0, 5, CHUNK, 2 * CHUNK + 3] {
        let pt = pattern(n);
        let mut reference = Vec::new();
        let mut e = Encryptor::from_material("pw", &opts, material()).unwrap();
        e.update(b(), &pt, &mut reference);
        e.finish(&mut reference);
        for step in [usize::MAX, 100_000] {
            let e = Encryptor::from_material("pw", &opts, material()).unwrap();
            let input = Trickle { data: &pt, step };
            let out = io::encrypt_stream(b(), e, input, Vec::new()).unwrap();
            assert!(out == reference, "{n} bytes, reads of {step}");
        }
    }
}

/// A reader that records how much each call asked for, and where.
struct Asked<'a> {
    data: &'a [u8],
    at: usize,
    asked: Vec<(usize, usize)>,
}

impl<'a> Asked<'a> {
    fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            at: 0,
            asked: Vec::new(),
        }
    }

    /// Every call that started past the first chunk, and before the end,
    /// asked for the rest of a whole chunk (all of it, unless the input
    /// ended inside it).
    fn whole_chunks_after_the_first(&self, what: &str) {
        let later: Vec<_> = (self.asked.iter())
            .filter(|(at, _)| (CHUNK..self.data.len()).contains(at))
            .collect();
        assert!(later.len() >= 3, "{what}: {later:?}");
        assert!(
            later.iter().all(|(at, n)| at % CHUNK + n == CHUNK),
            "{what}: {later:?}"
        );
    }
}

impl std::io::Read for Asked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.asked.push((self.at, buf.len()));
        let n = buf.len().min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl std::io::Seek for Asked<'_> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        let std::io::SeekFrom::Start(at) = to else {
            return Ok(self.at as u64);
        };
        self.at = usize::try_from(at).unwrap().min(self.data.len());
        Ok(self.at as u64)
    }
}

/// Past its first chunk a long input is read a whole chunk per call (one
/// call into Python per chunk for a Python stream), by the one-pass
/// decryption, the seekable reader's verifying pass and the encryption.
#[test]
fn a_long_input_is_read_a_chunk_per_call() {
    let pt = pattern(4 * CHUNK + 100);
    let ct = encrypt_to_vec(b(), "pw", &pt, &EncryptOptions::v2()).unwrap();
    let lim = Limits::default();

    let mut r = Asked::new(&ct);
    let mut out = Vec::new();
    io::decrypt_into_sink(b(), "pw", &mut r, &mut out, &lim).unwrap();
    assert!(out == pt);
    r.whole_chunks_after_the_first("decrypt_into_sink");

    let mut r = Asked::new(&ct);
    drop(io::SeekDecryptor::new(b(), &mut r, "pw", &lim).unwrap());
    r.whole_chunks_after_the_first("SeekDecryptor's verifying pass");

    let e = Encryptor::new("pw", &EncryptOptions::v2()).unwrap();
    let mut r = Asked::new(&pt);
    io::encrypt_stream(b(), e, &mut r, Vec::new()).unwrap();
    r.whole_chunks_after_the_first("encrypt_stream");
}
