//! Restoring the version 3 files of a backup: the files one run wrote share
//! a salt (a `PasswordKey`, as `wireseal aescrypt encrypt --out-dir` does),
//! so the library's `StretchedKeys` stretches the password once for all of
//! them, where the `aescry` crate (what a Rust restore tool uses today)
//! stretches it for every file; and the same for files with a salt each,
//! where both stretch every file. One thread each, samples alternated,
//! every plaintext checked.

use super::{PW, S};
use crate::peers::Skip;
use crate::{Better, Ctx, Row};
use std::sync::Arc;
use std::time::Instant;
use wireseal::aescrypt::io::decrypt_into_sink_with;
use wireseal::aescrypt::{
    encrypt_to_vec, Decryptor, EncryptOptions, Encryptor, Limits, PasswordKey, StretchedKeys,
};
use wireseal::batch::Batch;

/// `n` files (2 KiB to 64 KiB), encrypted as v3 at AES Crypt 4's default
/// rounds, under one salt or a salt each; with their plaintexts.
fn files(n: usize, one_salt: bool, batch: &Batch) -> Vec<(Vec<u8>, Vec<u8>)> {
    let opts = EncryptOptions::v3(wireseal::aescrypt::DEFAULT_V3_ITERATIONS).expect("v3");
    let key = PasswordKey::derive(PW, &opts).expect("key");
    (0..n)
        .map(|i| {
            let mut pt = vec![0u8; 2048 << (i % 6)];
            wireseal::entropy::fill_random(&mut pt);
            let ct = if one_salt {
                let mut e = Encryptor::from_key(&key);
                let mut ct = Vec::new();
                e.update(batch, &pt, &mut ct);
                e.finish(&mut ct);
                ct
            } else {
                encrypt_to_vec(batch, PW, &pt, &opts).expect("encrypt")
            };
            (pt, ct)
        })
        .collect()
}

/// Seconds to open every file with one `StretchedKeys`, and whether every
/// plaintext came back.
fn ours(files: &[(Vec<u8>, Vec<u8>)], batch: &Batch) -> (f64, bool) {
    let t = Instant::now();
    let keys = Arc::new(StretchedKeys::new(PW));
    let lim = Limits::default();
    let ok = files.iter().all(|(pt, ct)| {
        let mut out = Vec::new();
        let d = Decryptor::with_keys(Arc::clone(&keys), &lim);
        decrypt_into_sink_with(batch, d, ct.as_slice(), &mut out).is_ok() && out == *pt
    });
    (t.elapsed().as_secs_f64(), ok)
}

/// Seconds for `aescry` to open every file, and whether every plaintext
/// came back; or why it was not measured.
fn theirs(files: &[(Vec<u8>, Vec<u8>)]) -> Result<(f64, bool), Skip> {
    #[cfg(feature = "rust-peers")]
    {
        let t = Instant::now();
        let ok = files.iter().all(|(pt, ct)| {
            aescry::aescrypt::Decryptor::new(PW)
                .and_then(|d| d.decrypt(ct))
                .is_ok_and(|back| back == *pt)
        });
        Ok((t.elapsed().as_secs_f64(), ok))
    }
    #[cfg(not(feature = "rust-peers"))]
    {
        let _ = files;
        Err(Skip::new("built without the rust-peers feature"))
    }
}

/// The rows: files of one run, and files with a salt each.
pub(super) fn rows(ctx: &Ctx, rows: &mut Vec<Row>) {
    let n = if ctx.full { 32 } else { 8 };
    let rounds = if ctx.full { 5 } else { 3 };
    let batch = Batch::with_threads(1);
    for (one_salt, what) in [(true, "one backup run (one salt)"), (false, "a salt each")] {
        let files = files(n, one_salt, &batch);
        let (mut mine, mut peer, mut all_ok) = (Vec::new(), Ok(Vec::new()), true);
        for _ in 0..rounds {
            let (s, ok) = ours(&files, &batch);
            mine.push(s);
            all_ok &= ok;
            if let Ok(samples) = &mut peer {
                match theirs(&files) {
                    Ok((s, ok)) => {
                        samples.push(s);
                        all_ok &= ok;
                    }
                    Err(why) => peer = Err(why),
                }
            }
        }
        let row = Row::with_peer(
            S,
            format!("restore {n} v3 files of {what}, 300,000 rounds, 1 thread"),
            "s",
            Better::Lower,
            crate::timing::median(&mut mine),
            "aescry 1.0.0 (a Decryptor per file)",
            peer.as_mut()
                .map(|p| crate::timing::median(p))
                .map_err(|e| &*e),
        )
        .seed("ours: one StretchedKeys for every file");
        rows.push(if all_ok {
            row
        } else {
            row.failed("a file did not decrypt to its plaintext")
        });
    }
}
