//! The sans-IO two-pass reader: [`VerifyPass`] then [`ReleasePass`] over
//! pieces of every size, an input changed between the passes, damaged
//! streams and wrong passwords.

use super::*;

/// Pass one over `ct` in pieces of `one`, pass two over `again` in pieces
/// of `two`; the plaintext released.
fn two_passes(ct: &[u8], again: &[u8], one: usize, two: usize) -> Result<Vec<u8>, Error> {
    let mut v = VerifyPass::new("pw", &Limits::default());
    for p in ct.chunks(one) {
        v.update(b(), p)?;
    }
    let mut r = v.finish()?;
    let mut out = Vec::new();
    for p in again.chunks(two) {
        r.update(b(), p, &mut out)?;
    }
    let d = r.finish()?;
    assert_eq!(d.plaintext_len, out.len() as u64);
    Ok(out)
}

fn v3() -> EncryptOptions {
    EncryptOptions::v3(5).unwrap()
}

/// Every plaintext length around the block and chunk edges, both versions
/// written, each pass fed in pieces of 1, 15, 16, 17, CHUNK - 1 and
/// CHUNK + 1 bytes (the two passes split differently).
#[test]
fn any_split_releases_the_plaintext() {
    let sizes = [
        0,
        1,
        15,
        16,
        17,
        CHUNK - 1,
        CHUNK,
        CHUNK + 1,
        2 * CHUNK + 17,
    ];
    let pieces = [1, 15, 16, 17, CHUNK - 1, CHUNK + 1];
    for opts in [EncryptOptions::v2(), v3()] {
        for n in sizes {
            let pt = pattern(n);
            let ct = encrypt_to_vec(b(), "pw", &pt, &opts).unwrap();
            for (i, &one) in pieces.iter().enumerate() {
                // Byte by byte costs a few seconds a MiB: on the short
                // streams and one long one only.
                if one == 1 && n > CHUNK + 1 {
                    continue;
                }
                let two = pieces[(i + 1) % pieces.len()];
                let got = two_passes(&ct, &ct, one, two).unwrap();
                assert!(got == pt, "{n} bytes, pieces of {one} then {two}");
            }
        }
    }
}

/// Plaintext comes out a whole chunk at a time, only once the chunk is
/// complete; reading `next_len` bytes at a time releases one chunk per
/// read of the body.
#[test]
fn release_is_per_chunk_and_next_len_lines_up() {
    let pt = pattern(2 * CHUNK + 100);
    let ct = encrypt_to_vec(b(), "pw", &pt, &EncryptOptions::v2()).unwrap();
    let prefix = EncryptOptions::v2().prefix_len();
    let mut v = VerifyPass::new("pw", &Limits::default());
    v.update(b(), &ct).unwrap();
    assert_eq!(v.header().map(|h| h.version), Some(Version::V2));
    let mut r = v.finish().unwrap();
    assert_eq!(r.plaintext_len(), pt.len() as u64);
    assert_eq!(r.stream_len(), ct.len() as u64);
    let mut out = Vec::new();
    // All but the chunk's last byte: nothing yet.
    r.update(b(), &ct[..prefix + CHUNK - 1], &mut out).unwrap();
    assert!(out.is_empty());
    assert_eq!(r.next_len(), 1);
    r.update(b(), &ct[prefix + CHUNK - 1..prefix + CHUNK], &mut out)
        .unwrap();
    assert!(out[..] == pt[..CHUNK]);

    // Fed exactly what `next_len` asks for: header and session block, one
    // chunk per read, the trailer.
    let mut v = VerifyPass::new("pw", &Limits::default());
    v.update(b(), &ct).unwrap();
    let mut r = v.finish().unwrap();
    let mut at = 0;
    let mut reads = Vec::new();
    let mut out = Vec::new();
    while r.next_len() > 0 {
        let n = r.next_len();
        let before = out.len();
        r.update(b(), &ct[at..at + n], &mut out).unwrap();
        reads.push((n, out.len() - before));
        at += n;
    }
    assert_eq!(at, ct.len());
    assert_eq!(
        reads,
        [
            (prefix, 0),
            (CHUNK, CHUNK),
            (CHUNK, CHUNK),
            (112, 100),
            (33, 0)
        ]
    );
    assert!(out == pt);
    r.finish().unwrap();
}

/// A byte changed between the passes: in the header, the session block, a
/// chunk, the last chunk's final block or the trailer. Chunks before the
/// change are released (they match), the changed chunk never is, and the
/// pass is poisoned.
#[test]
fn changed_input_releases_nothing_changed() {
    let pt = pattern(3 * CHUNK + 100);
    let ct = encrypt_to_vec(b(), "pw", &pt, &EncryptOptions::v2()).unwrap();
    let body = EncryptOptions::v2().prefix_len();
    for (at, released) in [
        (10, 0),
        (body - 1, 0),
        (body, 0),
        (body + CHUNK + 5, CHUNK),
        (body + 3 * CHUNK + 3, 3 * CHUNK),
        (ct.len() - 34, 3 * CHUNK),
        (ct.len() - 1, pt.len()),
    ] {
        for piece in [17, CHUNK + 1] {
            let mut again = ct.clone();
            again[at] ^= 1;
            let mut v = VerifyPass::new("pw", &Limits::default());
            v.update(b(), &ct).unwrap();
            let mut r = v.finish().unwrap();
            let mut out = Vec::new();
            let mut err = None;
            for p in again.chunks(piece) {
                if let Err(e) = r.update(b(), p, &mut out) {
                    err = Some(e);
                    break;
                }
            }
            assert_eq!(err, Some(Error::InputChanged), "flip at {at}");
            assert_eq!(out.len(), released, "flip at {at}, pieces of {piece}");
            assert!(out[..] == pt[..released], "released bytes are the original");
            assert_eq!(r.update(b(), b"x", &mut out), Err(Error::Poisoned));
            assert!(matches!(r.finish(), Err(Error::Poisoned)));
        }
    }
}

/// Fewer or more bytes the second time: the plaintext that matched is
/// released, the end is refused.
#[test]
fn shorter_or_longer_input_is_changed_input() {
    let pt = pattern(CHUNK + 40);
    let ct = encrypt_to_vec(b(), "pw", &pt, &v3()).unwrap();
    let prefix = v3().prefix_len();
    let mut v = VerifyPass::new("pw", &Limits::default());
    v.update(b(), &ct).unwrap();
    let mut r = v.finish().unwrap();
    let mut out = Vec::new();
    r.update(b(), &ct[..ct.len() - 1], &mut out).unwrap();
    assert!(out == pt, "the body matched");
    assert!(matches!(r.finish(), Err(Error::InputChanged)));

    let mut v = VerifyPass::new("pw", &Limits::default());
    v.update(b(), &ct).unwrap();
    let mut r = v.finish().unwrap();
    let mut out = Vec::new();
    r.update(b(), &ct[..prefix + CHUNK], &mut out).unwrap();
    assert_eq!(out.len(), CHUNK);
    assert!(matches!(r.finish(), Err(Error::InputChanged)));

    let mut longer = ct.clone();
    longer.push(0);
    assert_eq!(
        two_passes(&ct, &longer, 4096, 4096),
        Err(Error::InputChanged)
    );
    assert_eq!(
        two_passes(&ct, &longer, 4096, longer.len()),
        Err(Error::InputChanged)
    );
}

/// Pass one refuses what [`Decryptor`] refuses, with the same error: a
/// tampered HMAC or body, a wrong password, a stream cut anywhere.
#[test]
fn verify_pass_refuses_as_the_decryptor_does() {
    let pt = pattern(CHUNK + 33);
    for opts in [EncryptOptions::v2(), v3()] {
        let ct = encrypt_to_vec(b(), "pw", &pt, &opts).unwrap();
        let lim = Limits::default();
        let verify = |data: &[u8], pw: &str, piece: usize| -> Result<u64, Error> {
            let mut v = VerifyPass::new(pw, &lim);
            for p in data.chunks(piece) {
                v.update(b(), p)?;
            }
            v.finish().map(|r| r.plaintext_len())
        };
        assert_eq!(verify(&ct, "pw", 1000), Ok(pt.len() as u64));
        for at in [
            ct.len() - 1,
            ct.len() - 32,
            ct.len() - 40,
            opts.prefix_len() + 3,
        ] {
            let mut bad = ct.clone();
            bad[at] ^= 0x80;
            assert_eq!(verify(&bad, "pw", 4097), Err(Error::Auth), "flip at {at}");
        }
        let mut v = VerifyPass::new("wrong", &lim);
        assert_eq!(v.update(b(), &ct), Err(Error::WrongPassword));
        assert_eq!(v.update(b(), &ct), Err(Error::Poisoned));
        assert!(matches!(v.finish(), Err(Error::Poisoned)));
        // Cut in the header, the session block, the body (on and off a
        // block edge) and the trailer.
        let p = opts.prefix_len();
        for cut in [
            0,
            2,
            5,
            p - 81,
            p - 1,
            p,
            p + 16,
            p + 17,
            ct.len() - 33,
            ct.len() - 1,
        ] {
            let want = decrypt_to_vec(b(), "pw", &ct[..cut], &lim).unwrap_err();
            assert!(matches!(
                want,
                Error::Truncated { .. } | Error::PartialBlock | Error::Auth
            ));
            assert_eq!(verify(&ct[..cut], "pw", 15), Err(want), "cut at {cut}");
        }
        assert_eq!(verify(b"PK\x03\x04", "pw", 1), Err(Error::NotAesCrypt));
    }
}
