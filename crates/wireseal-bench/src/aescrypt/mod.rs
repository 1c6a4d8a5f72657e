//! AES Crypt: bulk encrypt / decrypt next to a plain copy and the raw
//! single-core AES-256-CBC ceiling (all measured here, now), pyAesCrypt
//! when python3 can import it, many small v2 files, and per-file IV + key
//! generation; then the Python package against the library path
//! ([`python_rows`]), throughput by file size ([`sizes`]) and the backup
//! scenario ([`backup`]).

mod backup;
mod python_rows;
mod sizes;
mod worker;

use super::{Better, Ctx, Row};
use crate::peers::Skip;
use std::hint::black_box;
use std::io::Write;
use wireseal::aescrypt::{self, EncryptOptions, Limits, SessionMaterial};
use wireseal::batch::Batch;
use wireseal::hazmat::aes_cbc::Aes256CbcEnc;
use wireseal::hazmat::hmac_stream::HmacSha256Stream;

pub(super) const S: &str = "aescrypt";
pub(super) const PW: &str = "correct horse battery staple";
/// pyAesCrypt's figures, measured by `interop/aescrypt/pyaescrypt_peer.py`
/// ([`crate::peers::pyaescrypt`]).
#[derive(serde::Deserialize)]
struct Peer {
    encrypt_bytes_per_s: f64,
    decrypt_bytes_per_s: f64,
    small_file_s: f64,
    iv_key_gen_s: f64,
    openssl_cbc_bytes_per_s: f64,
}

fn peer(size: usize, small: usize) -> Result<Peer, Skip> {
    let o = crate::peers::pyaescrypt()?
        .command(["bench".to_string(), size.to_string(), small.to_string()])
        .output()
        .map_err(|e| Skip::new(format!("python3 not runnable: {e}")))?;
    if !o.status.success() {
        return Err(Skip::new(format!(
            "pyAesCrypt bench failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )));
    }
    serde_json::from_slice(&o.stdout).map_err(|e| Skip::new(format!("bad peer output: {e}")))
}

pub(super) fn mbps(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / secs / 1e6
}

/// The section.
pub fn run(ctx: &Ctx) -> Vec<Row> {
    let mib = if ctx.full { 256 } else { 64 };
    let size = mib << 20;
    let samples = if ctx.full { 5 } else { 3 };
    let mut data = vec![0u8; size];
    wireseal::entropy::fill_random(&mut data);
    let mut dst = vec![0u8; size];
    let peer = peer(size, if ctx.full { 200 } else { 40 });
    let pname = "pyAesCrypt (same run)".to_string();
    let p = peer.as_ref().ok();
    let mut rows = Vec::new();

    // Lower bound and ceiling, measured now.
    let copy = ctx.time_job(samples, || dst.copy_from_slice(&data));
    let ceiling = ctx.time_job(samples, || {
        Aes256CbcEnc::new(&[7u8; 32], &[9u8; 16]).encrypt_b2b(&data, &mut dst)
    });
    let hmac = ctx.time_job(samples, || {
        let mut m = HmacSha256Stream::new(&[1u8; 32]);
        m.update(&data);
        m.finalize()
    });
    let copy_mb = mbps(size, copy);
    let ceil_mb = mbps(size, ceiling);
    rows.push(Row::new(
        S,
        format!("plain copy {mib} MiB (no-encryption bound)"),
        "MB/s",
        Better::Higher,
        copy_mb,
        "-",
        None,
    ));
    rows.push(
        Row::new(
            S,
            format!("raw AES-256-CBC encrypt {mib} MiB, 1 core"),
            "MB/s",
            Better::Higher,
            ceil_mb,
            "-",
            None,
        )
        .seed("~1100 MB/s per core (seed)"),
    );
    rows.push(Row::new(
        S,
        format!("raw AES-256-CBC {mib} MiB: RustCrypto vs OpenSSL"),
        "MB/s",
        Better::Higher,
        ceil_mb,
        "OpenSSL via pyca (same run)",
        p.map(|p| p.openssl_cbc_bytes_per_s / 1e6),
    ));
    rows.push(
        Row::new(
            S,
            format!("raw HMAC-SHA256 {mib} MiB, 1 core"),
            "MB/s",
            Better::Higher,
            mbps(size, hmac),
            "-",
            None,
        )
        .seed("~1950 MB/s (seed)"),
    );

    // Encrypt (v2), into a reused buffer.
    let opts = EncryptOptions::v2();
    let batch = Batch::all_cores();
    let mut out: Vec<u8> = Vec::with_capacity(aescrypt::encrypted_len(&opts, size));
    let enc = ctx.time_job(samples, || {
        out.clear();
        let mut e =
            aescrypt::io::EncryptWriter::new(&batch, &mut out, PW, &opts).expect("encryptor");
        e.write_all(&data).expect("write");
        e.finish().expect("finish");
    });
    let enc_mb = mbps(size, enc);
    rows.push(Row::new(
        S,
        format!("encrypt v2 {mib} MiB vs AES-CBC ceiling"),
        "MB/s",
        Better::Higher,
        enc_mb,
        "raw AES-256-CBC (same run)",
        Some(ceil_mb),
    ));
    rows.push(
        Row::new(
            S,
            format!("encrypt v2 {mib} MiB"),
            "MB/s",
            Better::Higher,
            enc_mb,
            pname.clone(),
            p.map(|p| p.encrypt_bytes_per_s / 1e6),
        )
        .seed("pyAesCrypt ~475 MB/s (seed)"),
    );

    // Decrypt: one pass into a sink (the CLI's file path), and the
    // verify-then-decrypt seekable reader.
    let ct = std::mem::take(&mut out);
    let mut plain: Vec<u8> = Vec::with_capacity(size);
    let lim = Limits::default();
    let dec = ctx.time_job(samples, || {
        plain.clear();
        aescrypt::io::decrypt_into_sink(&batch, PW, &ct[..], &mut plain, &lim).expect("decrypt")
    });
    assert!(plain == data, "decryption mismatch");
    rows.push(
        Row::new(
            S,
            format!("decrypt v2 {mib} MiB (one pass, sink)"),
            "MB/s",
            Better::Higher,
            mbps(size, dec),
            pname.clone(),
            p.map(|p| p.decrypt_bytes_per_s / 1e6),
        )
        .seed("pyAesCrypt ~704 MB/s (seed)"),
    );
    let dec2 = ctx.time_job(samples, || {
        plain.clear();
        let mut r =
            aescrypt::io::SeekDecryptor::new(&batch, std::io::Cursor::new(&ct[..]), PW, &lim)
                .expect("verify");
        std::io::copy(&mut r, &mut plain).expect("read")
    });
    rows.push(Row::new(
        S,
        format!("decrypt v2 {mib} MiB (verify, then read)"),
        "MB/s",
        Better::Higher,
        mbps(size, dec2),
        pname.clone(),
        p.map(|p| p.decrypt_bytes_per_s / 1e6),
    ));
    drop((ct, plain, data, dst));

    // Many small files: 1 KiB, v2 (dominated by the format's 8192-round KDF).
    let kib = [0x5au8; 1024];
    let small = ctx.time_per_op(|| aescrypt::encrypt_to_vec(&batch, PW, black_box(&kib), &opts));
    rows.push(Row::new(
        S,
        "small files: 1 KiB v2 encrypt",
        "files/s",
        Better::Higher,
        1.0 / small,
        pname.clone(),
        p.map(|p| 1.0 / p.small_file_s),
    ));

    // Per-file IV + key generation.
    let ivgen = ctx.time_per_op(SessionMaterial::generate);
    rows.push(
        Row::new(
            S,
            "IV + key generation per file (target <= 2 us)",
            "us",
            Better::Lower,
            ivgen * 1e6,
            pname,
            p.map(|p| p.iv_key_gen_s * 1e6),
        )
        .seed("Duplicati: uncached lookup was 35% of backup time"),
    );
    // Every row without a baseline is one the Python peer would have given.
    let mut rows: Vec<Row> = match &peer {
        Ok(_) => rows,
        Err(why) => rows
            .into_iter()
            .map(|r| {
                if r.baseline.is_none() {
                    r.skipped(why)
                } else {
                    r
                }
            })
            .collect(),
    };
    python_rows::rows(ctx, &mut rows);
    sizes::rows(ctx, &mut rows);
    backup::rows(ctx, &mut rows);
    rows
}
