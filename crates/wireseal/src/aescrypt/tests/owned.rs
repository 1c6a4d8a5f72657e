//! [`OwnedDecryptor`]: pieces of every size (block and span edges inside
//! and across pieces), the plaintext against the one-pass decryptor's,
//! the buffer's length, and refusals with the one-pass decryptor's errors.

use super::*;

/// `ct` fed in pieces whose lengths cycle through `sizes`, decrypted into a
/// buffer of exactly the plaintext's length.
fn owned(ct: &[u8], pw: &str, sizes: &[usize]) -> Result<Vec<u8>, Error> {
    let mut d = OwnedDecryptor::new(pw, &Limits::default());
    let (mut at, mut k) = (0, 0);
    while at < ct.len() {
        let n = sizes[k % sizes.len()].min(ct.len() - at);
        d.update(ct[at..at + n].to_vec())?;
        at += n;
        k += 1;
    }
    let v = d.finish()?;
    let mut out = vec![0u8; v.plaintext_len()];
    let done = v.decrypt_into(b(), &mut out)?;
    assert_eq!(done.plaintext_len, out.len() as u64);
    Ok(out)
}

/// Plaintext lengths around the block, span and chunk edges, both versions
/// written, in pieces that cut blocks (1, 7, 15, 17 bytes, a span and a
/// byte), that keep to blocks (16, 4096), and a whole stream at once.
#[test]
fn any_split_decrypts_as_the_decryptor_does() {
    let sizes = [
        0,
        1,
        15,
        16,
        17,
        1000,
        256 * 1024 + 3,
        CHUNK + 17,
        3 * CHUNK - 5,
    ];
    let splits: [&[usize]; 6] = [
        &[1, 7, 15, 17],
        &[16],
        &[4096],
        &[256 * 1024 + 1, 5],
        &[usize::MAX],
        &[3, CHUNK, 29],
    ];
    for opts in [EncryptOptions::v2(), EncryptOptions::v3(5).unwrap()] {
        for n in sizes {
            let pt = pattern(n);
            let ct = encrypt_to_vec(b(), "pw", &pt, &opts).unwrap();
            for split in splits {
                // Pieces this short cost a call per few bytes: short
                // streams only.
                if split[0] < 16 && n > 300_000 {
                    continue;
                }
                let got = owned(&ct, "pw", split).unwrap();
                assert!(got == pt, "{n} bytes, pieces {split:?}");
            }
        }
    }
}

#[test]
fn the_buffer_holds_the_plaintext_and_nothing_past_it_is_written() {
    let pt = pattern(40_000);
    let ct = encrypt_to_vec(b(), "pw", &pt, &EncryptOptions::v2()).unwrap();
    let verified = || {
        let mut d = OwnedDecryptor::new("pw", &Limits::default());
        d.update(&ct[..]).unwrap();
        d.finish().unwrap()
    };
    let v = verified();
    assert_eq!(v.plaintext_len(), pt.len());
    assert_eq!(v.header().version, Version::V2);
    let mut short = vec![0u8; pt.len() - 1];
    assert_eq!(
        v.decrypt_into(b(), &mut short).unwrap_err(),
        Error::BufferTooSmall { required: pt.len() }
    );
    assert!(short.iter().all(|&x| x == 0));
    let mut long = vec![0xeeu8; pt.len() + 20];
    verified().decrypt_into(b(), &mut long).unwrap();
    assert_eq!(&long[..pt.len()], &pt[..]);
    assert!(long[pt.len()..].iter().all(|&x| x == 0xee));
}

/// A tampered body or trailer, a wrong password and a stream cut anywhere
/// fail as the one-pass decryptor fails on the same bytes; after an error
/// every later call fails with [`Error::Poisoned`].
#[test]
fn refusals_are_the_decryptors() {
    let pt = pattern(CHUNK + 33);
    let lim = Limits::default();
    for opts in [EncryptOptions::v2(), EncryptOptions::v3(5).unwrap()] {
        let ct = encrypt_to_vec(b(), "pw", &pt, &opts).unwrap();
        let p = opts.prefix_len();
        let mut cases: Vec<Vec<u8>> = [p + 3, p + 700_000, ct.len() - 40, ct.len() - 1]
            .iter()
            .map(|&at| {
                let mut bad = ct.clone();
                bad[at] ^= 0x80;
                bad
            })
            .collect();
        for cut in [
            0,
            2,
            5,
            p - 1,
            p,
            p + 16,
            p + 17,
            ct.len() - 33,
            ct.len() - 1,
        ] {
            cases.push(ct[..cut].to_vec());
        }
        let mut longer = ct.clone();
        longer.extend_from_slice(&[0u8; 16]);
        cases.push(longer);
        for (i, case) in cases.iter().enumerate() {
            let want = decrypt_to_vec(b(), "pw", case, &lim).unwrap_err();
            assert_eq!(owned(case, "pw", &[4097]), Err(want), "case {i}");
        }
        let mut d = OwnedDecryptor::new("wrong", &lim);
        assert_eq!(d.update(&ct[..]), Err(Error::WrongPassword));
        assert_eq!(d.update(&ct[..]), Err(Error::Poisoned));
        assert!(matches!(d.finish(), Err(Error::Poisoned)));
    }
}
