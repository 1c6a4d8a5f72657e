//! AES Crypt: bulk encrypt / decrypt next to a plain copy, the raw
//! primitives on every implementation kept ([`ceilings`]) and pyAesCrypt
//! (alternately, in the Python worker), many small v2 files, and per-file IV
//! and key generation; then the Python package against the library path
//! ([`python_rows`]), throughput by file size ([`sizes`]), the backup
//! scenario ([`backup`]) and restoring version 3 files ([`restore`]).

mod backup;
mod ceilings;
mod python_rows;
mod restore;
mod sizes;
mod worker;

use crate::peers::Skip;
use crate::{Better, Ctx, Row};
use std::hint::black_box;
use std::io::Write;
use wireseal::aescrypt::{self, EncryptOptions, Limits, SessionMaterial};
use wireseal::batch::Batch;

pub(super) const S: &str = "aescrypt";
pub(super) const PW: &str = "correct horse battery staple";
/// pyAesCrypt's figures, measured by `interop/aescrypt/pyaescrypt_peer.py`
/// ([`crate::peers::pyaescrypt`]).
#[derive(serde::Deserialize)]
struct Peer {
    small_file_s: f64,
    iv_key_gen_s: f64,
}

fn peer(small: usize) -> Result<Peer, Skip> {
    let o = crate::peers::pyaescrypt()?
        .command(["bench".to_string(), small.to_string()])
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
    let peer = peer(if ctx.full { 200 } else { 40 });

    // The no-encryption bound, and the raw primitives on every
    // implementation (alternately, with OpenSSL in the Python worker).
    let mut rows = vec![copy_row(ctx, &data, samples)];
    let mut worker = worker::Worker::start();
    let (raw, fastest) = ceilings::rows(ctx, &data, &mut worker);
    rows.extend(raw);

    // Encrypt (v2) into a reused buffer, and decrypt in one pass into a
    // sink (the CLI's file path) or verify first (the seekable reader),
    // each alternated with pyAesCrypt's encryptStream / decryptStream on
    // `BytesIO` in the worker.
    let mut vs = VsPyaes::new(&mut worker, size, samples);
    let (encrypted, ct) = encrypt_rows(&data, &fastest, &mut vs);
    rows.extend(encrypted);
    rows.extend(decrypt_rows(&data, &ct, &mut vs));
    drop((ct, data, worker));

    rows.extend(per_file_rows(ctx, peer.as_ref().ok()));
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
    restore::rows(ctx, &mut rows);
    rows
}

/// A plain copy of `data`: the bound no encryption can beat.
fn copy_row(ctx: &Ctx, data: &[u8], samples: usize) -> Row {
    let mut dst = vec![0u8; data.len()];
    let copy = ctx.time_job(samples, || dst.copy_from_slice(data));
    Row::new(
        S,
        format!("plain copy {} MiB (no-encryption bound)", data.len() >> 20),
        "MB/s",
        Better::Higher,
        mbps(data.len(), copy),
        "-",
        None,
    )
}

/// pyAesCrypt's `encryptStream` / `decryptStream` on `BytesIO` in the
/// worker, sampled alternately with the library's calls on the same bytes.
struct VsPyaes<'w> {
    /// The worker, with the bytes prepared, or why pyAesCrypt cannot run.
    worker: Result<&'w mut worker::Worker, Skip>,
    size: usize,
    samples: usize,
}

impl<'w> VsPyaes<'w> {
    /// Prepares `size` bytes in the worker, when pyAesCrypt can run there.
    fn new(worker: &'w mut Result<worker::Worker, Skip>, size: usize, samples: usize) -> Self {
        let worker = match worker {
            Ok(w) => w.pyaes.clone().and_then(|()| w.data(size)).map(|()| w),
            Err(why) => Err(why.clone()),
        };
        Self {
            worker,
            size,
            samples,
        }
    }

    /// MB/s of `ours` and of the worker's `op`, alternately; pyAesCrypt's
    /// figure, or why it has none.
    fn pair(&mut self, op: &str, ours: &mut dyn FnMut()) -> (f64, Result<f64, Skip>) {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let mut why = None;
        for _ in 0..self.samples.max(5) {
            let t = std::time::Instant::now();
            ours();
            a.push(t.elapsed().as_secs_f64());
            match &mut self.worker {
                Ok(w) if why.is_none() => {
                    match w.time(serde_json::json!({"op": op, "size": self.size})) {
                        Ok(s) => b.push(s),
                        Err(e) => why = Some(e),
                    }
                }
                Ok(_) => {}
                Err(e) => why = Some(e.clone()),
            }
        }
        let theirs = match why {
            Some(e) => Err(e),
            None => Ok(mbps(self.size, worker::median(&mut b))),
        };
        (mbps(self.size, worker::median(&mut a)), theirs)
    }
}

/// Encrypt v2 into a reused buffer, against the fastest raw AES-256-CBC
/// encryption and against pyAesCrypt; the rows and the ciphertext.
fn encrypt_rows(data: &[u8], fastest: &ceilings::Fastest, vs: &mut VsPyaes) -> (Vec<Row>, Vec<u8>) {
    let mib = data.len() >> 20;
    let opts = EncryptOptions::v2();
    let batch = Batch::all_cores();
    let mut out: Vec<u8> = Vec::with_capacity(aescrypt::encrypted_len(&opts, data.len()));
    let (enc_mb, py_enc) = vs.pair("pyaes_enc_stream", &mut || {
        out.clear();
        let mut e =
            aescrypt::io::EncryptWriter::new(&batch, &mut out, PW, &opts).expect("encryptor");
        e.write_all(data).expect("write");
        e.finish().expect("finish");
    });
    let rows = vec![
        Row::new(
            S,
            format!("encrypt v2 {mib} MiB vs the fastest raw AES-256-CBC encrypt"),
            "MB/s",
            Better::Higher,
            enc_mb,
            format!("raw AES-256-CBC encrypt, {} (same run)", fastest.name),
            Some(fastest.mb_s),
        ),
        Row::with_peer(
            S,
            format!("encrypt v2 {mib} MiB"),
            "MB/s",
            Better::Higher,
            enc_mb,
            "pyAesCrypt 6.1.1 encryptStream (same run)",
            py_enc.as_ref().copied(),
        )
        .seed("target >= 2x pyAesCrypt"),
    ];
    (rows, out)
}

/// Decrypt `ct` in one pass into a sink, and verifying first then reading,
/// each against pyAesCrypt.
fn decrypt_rows(data: &[u8], ct: &[u8], vs: &mut VsPyaes) -> Vec<Row> {
    let mib = data.len() >> 20;
    let batch = Batch::all_cores();
    let mut plain: Vec<u8> = Vec::with_capacity(data.len());
    let lim = Limits::default();
    let (dec_mb, py_dec) = vs.pair("pyaes_dec_stream", &mut || {
        plain.clear();
        aescrypt::io::decrypt_into_sink(&batch, PW, ct, &mut plain, &lim).expect("decrypt");
    });
    assert!(plain == data, "decryption mismatch");
    let (dec2_mb, py_dec2) = vs.pair("pyaes_dec_stream", &mut || {
        plain.clear();
        let mut r = aescrypt::io::SeekDecryptor::new(&batch, std::io::Cursor::new(ct), PW, &lim)
            .expect("verify");
        std::io::copy(&mut r, &mut plain).expect("read");
    });
    let pname = "pyAesCrypt 6.1.1 decryptStream (same run)";
    vec![
        Row::with_peer(
            S,
            format!("decrypt v2 {mib} MiB (one pass, sink)"),
            "MB/s",
            Better::Higher,
            dec_mb,
            pname,
            py_dec.as_ref().copied(),
        )
        .seed("target >= 2.5x pyAesCrypt"),
        Row::with_peer(
            S,
            format!("decrypt v2 {mib} MiB (verify, then read)"),
            "MB/s",
            Better::Higher,
            dec2_mb,
            pname,
            py_dec2.as_ref().copied(),
        ),
    ]
}

/// Per file: many small files (1 KiB, v2, dominated by the format's
/// 8192-round KDF), and IV + key generation, against pyAesCrypt's figures.
fn per_file_rows(ctx: &Ctx, p: Option<&Peer>) -> Vec<Row> {
    let opts = EncryptOptions::v2();
    let batch = Batch::all_cores();
    let pname = "pyAesCrypt (same run)".to_string();
    let kib = [0x5au8; 1024];
    let small = ctx.time_per_op(|| aescrypt::encrypt_to_vec(&batch, PW, black_box(&kib), &opts));
    let ivgen = ctx.time_per_op(SessionMaterial::generate);
    vec![
        Row::new(
            S,
            "small files: 1 KiB v2 encrypt",
            "files/s",
            Better::Higher,
            1.0 / small,
            pname.clone(),
            p.map(|p| 1.0 / p.small_file_s),
        ),
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
    ]
}
