//! The raw primitives under AES Crypt, each on every implementation kept,
//! sampled alternately in the same run: AES-256-CBC encryption and
//! decryption through aws-lc-rs, RustCrypto (`cbc` over `aes`) and OpenSSL
//! (pyca `cryptography`, what pyAesCrypt runs on, in the Python worker), and
//! HMAC-SHA256 through RustCrypto and aws-lc-rs. The library uses the
//! fastest of each (`wireseal::hazmat::aes_cbc`, `hmac_stream`); its file
//! encryption is compared with the fastest raw encryption measured here.

use super::worker::{median, Worker};
use super::{mbps, S};
use crate::peers::Skip;
use crate::{Better, Ctx, Row};
use aws_lc_rs::cipher::{
    DecryptingKey, DecryptionContext, EncryptingKey, EncryptionContext, UnboundCipherKey, AES_256,
};
use cbc::cipher::{BlockEncryptMut, KeyIvInit};
use serde_json::json;
use std::time::Instant;
use wireseal::hazmat::aes_cbc::{aes256_cbc_decrypt_b2b, Aes256CbcEnc};
use wireseal::hazmat::hmac_stream::HmacSha256Stream;

const KEY: [u8; 32] = [7; 32];
const IV: [u8; 16] = [9; 16];
/// Pieces the in-place candidates are fed: the library's chunk size.
const PIECE: usize = wireseal::aescrypt::CHUNK;

/// The fastest raw AES-256-CBC encryption of the run: its MB/s and name.
pub(super) struct Fastest {
    pub(super) mb_s: f64,
    pub(super) name: String,
}

/// A named implementation: one timed call, in seconds.
type Candidate<'a> = (&'a str, &'a mut dyn FnMut() -> Result<f64, Skip>);

/// Medians (MB/s) of each candidate, sampled in turn `n` times; a candidate
/// that fails is dropped with its reason.
fn round_robin(
    n: usize,
    size: usize,
    candidates: &mut [Candidate<'_>],
) -> Vec<(String, Result<f64, Skip>)> {
    let mut times: Vec<Result<Vec<f64>, Skip>> = candidates.iter().map(|_| Ok(vec![])).collect();
    for _ in 0..n.max(3) {
        for ((_, f), t) in candidates.iter_mut().zip(times.iter_mut()) {
            if let Ok(v) = t {
                match f() {
                    Ok(s) => v.push(s),
                    Err(why) => *t = Err(why),
                }
            }
        }
    }
    candidates
        .iter()
        .zip(times)
        .map(|((name, _), t)| {
            (
                (*name).to_owned(),
                t.map(|mut v| mbps(size, median(&mut v))),
            )
        })
        .collect()
}

/// Seconds of one call of `f`.
fn secs(f: impl FnOnce()) -> Result<f64, Skip> {
    let t = Instant::now();
    f();
    Ok(t.elapsed().as_secs_f64())
}

/// A set of candidates' medians, in MB/s (the first is the library's), or
/// why one has none.
type Set = Vec<(String, Result<f64, Skip>)>;

/// The rows; returns the fastest encryption for the file rows.
pub(super) fn rows(
    ctx: &Ctx,
    data: &[u8],
    worker: &mut Result<Worker, Skip>,
) -> (Vec<Row>, Fastest) {
    let n = if ctx.full { 9 } else { 5 };
    let enc = encryption(n, data, worker);
    let dec = decryption(n, data, worker);
    let mac = hmac(n, data);
    let mib = data.len() >> 20;
    let mut rows = compare(mib, "AES-256-CBC encrypt", &enc);
    rows.extend(compare(mib, "AES-256-CBC decrypt", &dec));
    rows.extend(compare(mib, "HMAC-SHA256", &mac));
    (rows, fastest(&enc))
}

/// OpenSSL's AES-256-CBC `op` on `size` bytes in the worker: seconds.
fn openssl(worker: &mut Result<Worker, Skip>, op: &str, size: usize) -> Result<f64, Skip> {
    let w = worker.as_mut().map_err(|e| e.clone())?;
    w.time(json!({"op": op, "size": size}))
}

/// Encryption: in place on a buffer holding the plaintext (aws-lc-rs has
/// no separate output), out of place for the others.
fn encryption(n: usize, data: &[u8], worker: &mut Result<Worker, Skip>) -> Set {
    let size = data.len();
    let enc_key =
        EncryptingKey::cbc(UnboundCipherKey::new(&AES_256, &KEY).expect("key")).expect("cbc");
    let mut dst = data.to_vec();
    let mut aws_enc = || {
        secs(|| {
            let mut chain = IV;
            for piece in dst.chunks_mut(PIECE) {
                let _ = enc_key.less_safe_encrypt(piece, EncryptionContext::Iv128(chain.into()));
                chain.copy_from_slice(&piece[piece.len() - 16..]);
            }
        })
    };
    let mut rc_dst = vec![0u8; size];
    let mut rc_enc = || {
        secs(|| {
            let mut e = cbc::Encryptor::<aes::Aes256>::new(&KEY.into(), &IV.into());
            for (i, o) in data.chunks(PIECE).zip(rc_dst.chunks_mut(PIECE)) {
                let (blocks, _) = cbc::cipher::inout::InOutBuf::new(i, o)
                    .expect("same length")
                    .into_chunks();
                e.encrypt_blocks_inout_mut(blocks);
            }
        })
    };
    let mut ossl_enc = || openssl(worker, "openssl_cbc_enc", size);
    round_robin(
        n,
        size,
        &mut [
            ("aws-lc-rs", &mut aws_enc),
            ("RustCrypto", &mut rc_enc),
            ("OpenSSL via pyca", &mut ossl_enc),
        ],
    )
}

/// Decryption: the library's (RustCrypto, out of place), aws-lc-rs in
/// place on a copy, OpenSSL; both outputs checked against `data`.
fn decryption(n: usize, data: &[u8], worker: &mut Result<Worker, Skip>) -> Set {
    let size = data.len();
    let mut ct = data.to_vec();
    Aes256CbcEnc::new(&KEY, &IV).encrypt_in_place(&mut ct);
    let dec_key =
        DecryptingKey::cbc(UnboundCipherKey::new(&AES_256, &KEY).expect("key")).expect("cbc");
    let mut dst = vec![0u8; size];
    let mut lib_dec = || {
        secs(|| {
            let mut chain = IV;
            for (i, o) in ct.chunks(PIECE).zip(dst.chunks_mut(PIECE)) {
                aes256_cbc_decrypt_b2b(&KEY, &chain, i, o);
                chain.copy_from_slice(&i[i.len() - 16..]);
            }
        })
    };
    let mut aws_dst = vec![0u8; size];
    let mut aws_dec = || {
        secs(|| {
            let mut chain = IV;
            for (i, o) in ct.chunks(PIECE).zip(aws_dst.chunks_mut(PIECE)) {
                o.copy_from_slice(i);
                let _ = dec_key.decrypt(o, DecryptionContext::Iv128(chain.into()));
                chain.copy_from_slice(&i[i.len() - 16..]);
            }
        })
    };
    let mut ossl_dec = || openssl(worker, "openssl_cbc_dec", size);
    let dec = round_robin(
        n,
        size,
        &mut [
            ("RustCrypto", &mut lib_dec),
            ("aws-lc-rs", &mut aws_dec),
            ("OpenSSL via pyca", &mut ossl_dec),
        ],
    );
    assert!(dst == data && aws_dst == data, "CBC decryption mismatch");
    dec
}

/// HMAC-SHA256 through RustCrypto (the library's) and aws-lc-rs.
fn hmac(n: usize, data: &[u8]) -> Set {
    let mut rc_mac = || {
        secs(|| {
            let mut m = HmacSha256Stream::new(&KEY);
            m.update(data);
            std::hint::black_box(m.finalize());
        })
    };
    let mut aws_mac = || {
        secs(|| {
            let k = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, &KEY);
            std::hint::black_box(aws_lc_rs::hmac::sign(&k, data));
        })
    };
    round_robin(
        n,
        data.len(),
        &mut [("RustCrypto", &mut rc_mac), ("aws-lc-rs", &mut aws_mac)],
    )
}

/// The first candidate of `set` against each of the others.
fn compare(mib: usize, what: &str, set: &Set) -> Vec<Row> {
    let (ours_name, ours) = (&set[0].0, set[0].1.as_ref().copied().unwrap_or(0.0));
    set[1..]
        .iter()
        .map(|(name, theirs)| {
            Row::with_peer(
                S,
                format!("raw {what} {mib} MiB, 1 core: {ours_name} vs {name}"),
                "MB/s",
                Better::Higher,
                ours,
                format!("{name} (same run)"),
                theirs.as_ref().copied(),
            )
        })
        .collect()
}

/// The fastest encryption measured (the first of equals), or none.
fn fastest(enc: &Set) -> Fastest {
    enc.iter()
        .filter_map(|(name, r)| r.as_ref().ok().map(|v| (name.clone(), *v)))
        .fold(None::<(String, f64)>, |best, (name, v)| match best {
            Some((_, b)) if b >= v => best,
            _ => Some((name, v)),
        })
        .map_or(
            Fastest {
                mb_s: 0.0,
                name: "-".into(),
            },
            |(name, mb_s)| Fastest { mb_s, name },
        )
}
