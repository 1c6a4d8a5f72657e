//! The backup scenario of the AES Crypt post, as a workload: a folder of
//! 547 files shaped like the post's "small" backup (547 volumes, 3.1 GB),
//! encrypted with `wireseal aescrypt encrypt --out-dir` (several inputs at
//! once, outputs fsynced and renamed into place), with pyAesCrypt
//! (`encryptFile` in a pool of one process per core, no fsync), and copied
//! without encryption with the command line's durability and parallelism
//! (the lower bound's I/O). Samples alternate.
//!
//! The mix: 246 index files (2-64 KiB, log-uniform), 55 file lists
//! (64 KiB-2 MiB) and 246 data volumes, whose sizes (log-uniform over a
//! 1:6 range) are scaled so the folder holds 256 MiB (quick) or 3.1 GB
//! (`--full`).
//!
//! The floor: the plain copy's wall time plus the single-core AES-256-CBC
//! and HMAC-SHA256 time of every byte divided over the cores, all measured
//! in this run.

use super::sizes::{cli, plain_copy};
use super::worker::{median, ScratchDir, Worker};
use super::{PW, S};
use crate::peers::Skip;
use crate::{Better, Ctx, Row};
use rand::{rngs::StdRng, Rng, SeedableRng};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use wireseal::batch::Batch;
use wireseal::hazmat::aes_cbc::Aes256CbcEnc;
use wireseal::hazmat::hmac_stream::HmacSha256Stream;

/// The report plot of these rows, and the series of the CLI's run.
const PLOT: &str = "aescrypt-backup";
const OURS: &str = "wireseal aescrypt encrypt --out-dir (fsync)";
/// Files in the folder (the post's count).
const FILES: usize = 547;

/// Sizes of the folder's files, seeded, summing to about `total` bytes.
fn mix(total: u64) -> Vec<u64> {
    let mut rng = StdRng::seed_from_u64(547);
    let mut log_uniform = |lo: f64, hi: f64| (lo.ln() + rng.gen::<f64>() * (hi / lo).ln()).exp();
    let mut small = Vec::new();
    for _ in 0..246 {
        small.push(log_uniform(2048.0, 65536.0) as u64);
    }
    for _ in 0..55 {
        small.push(log_uniform(65536.0, 2.0 * 1048576.0) as u64);
    }
    let volumes: Vec<f64> = (0..FILES - small.len())
        .map(|_| log_uniform(1.0, 6.0))
        .collect();
    let left = total.saturating_sub(small.iter().sum()) as f64;
    let scale = left / volumes.iter().sum::<f64>();
    small.extend(volumes.iter().map(|v| (v * scale) as u64));
    small
}

fn fresh(dir: &Path) -> Result<(), Skip> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| Skip::new(format!("{}: {e}", dir.display())))
}

/// The command line's default number of inputs in flight.
fn cli_jobs() -> usize {
    4 * Batch::all_cores().threads()
}

/// Copies every file into `out` on `jobs` threads, largest first.
fn copy_all(files: &[(PathBuf, u64)], out: &Path, jobs: usize) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                while let Some((f, _)) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                    plain_copy(f, &out.join(f.file_name().expect("a file name")));
                }
            });
        }
    });
}

/// Single-core seconds per byte of AES-256-CBC and of HMAC-SHA256.
fn crypto_per_byte() -> (f64, f64) {
    let mut buf = vec![7u8; 32 << 20];
    let t = Instant::now();
    Aes256CbcEnc::new(&[1; 32], &[2; 16]).encrypt_in_place(&mut buf);
    let cbc = t.elapsed().as_secs_f64() / buf.len() as f64;
    let t = Instant::now();
    let mut m = HmacSha256Stream::new(&[3; 32]);
    m.update(&buf);
    std::hint::black_box(m.finalize());
    let hmac = t.elapsed().as_secs_f64() / buf.len() as f64;
    buf.clear();
    (cbc, hmac)
}

/// The folder sizes measured: two, so the plot shows how each way scales
/// (the seed's "small" folder is the full run's 3.1 GB).
fn totals(ctx: &Ctx) -> [u64; 2] {
    if ctx.full {
        [256 << 20, 3_100_000_000]
    } else {
        [64 << 20, 256 << 20]
    }
}

/// A folder size in words.
fn total_name(total: u64) -> String {
    if total >= 1_000_000_000 {
        format!("{:.1} GB", total as f64 / 1e9)
    } else {
        format!("{} MiB", total >> 20)
    }
}

/// The rows.
pub(super) fn rows(ctx: &Ctx, rows: &mut Vec<Row>) {
    if let Some(why) = totals(ctx)
        .into_iter()
        .find_map(|total| measure(total, rows).err())
    {
        rows.push(Row::with_peer(
            S,
            "backup folder: wireseal aescrypt encrypt --out-dir",
            "s",
            Better::Lower,
            0.0,
            "-",
            Err(&why),
        ));
    }
}

fn measure(total: u64, rows: &mut Vec<Row>) -> Result<(), Skip> {
    let exe = cli()?;
    let dir = ScratchDir::new("backup")?;
    let files = folder(&dir.path().join("in"), total)?;
    let times = sample(3, &exe, dir.path(), &files)?;
    let bytes: u64 = files.iter().map(|(_, s)| s).sum();
    rows.extend(backup_rows(total, bytes, times));
    Ok(())
}

/// The folder's files in `input` (sizes from [`mix`], the bytes a rotated
/// random block), largest first.
fn folder(input: &Path, total: u64) -> Result<Vec<(PathBuf, u64)>, Skip> {
    fresh(input)?;
    let mut block = vec![0u8; 1 << 20];
    wireseal::entropy::fill_random(&mut block);
    let mut files: Vec<(PathBuf, u64)> = Vec::new();
    for (i, size) in mix(total).into_iter().enumerate() {
        let p = input.join(format!("vol-{i:04}.bin"));
        let mut data = Vec::with_capacity(size as usize);
        while (data.len() as u64) < size {
            let take = (size as usize - data.len()).min(block.len());
            data.extend_from_slice(&block[..take]);
            block.rotate_left(17);
        }
        std::fs::write(&p, &data).map_err(|e| Skip::new(format!("{}: {e}", p.display())))?;
        files.push((p, size));
    }
    files.sort_by_key(|(_, s)| std::cmp::Reverse(*s));
    Ok(files)
}

/// The samples of each way, in seconds: the CLI, pyAesCrypt (or why it has
/// none), the plain copy, and the crypto floor's single-core work.
struct Times {
    ws: Vec<f64>,
    py: Vec<f64>,
    py_why: Option<Skip>,
    copy: Vec<f64>,
    crypto: Vec<f64>,
}

/// `n` rounds, each encrypting the folder with the CLI, copying it, having
/// pyAesCrypt encrypt it, and measuring the crypto per byte; outputs under
/// `dir`, removed after each.
fn sample(n: usize, exe: &Path, dir: &Path, files: &[(PathBuf, u64)]) -> Result<Times, Skip> {
    let bytes: u64 = files.iter().map(|(_, s)| s).sum();
    let cores = Batch::all_cores().threads();
    let mut worker = Worker::start();
    let pyaes = match &worker {
        Ok(w) => w.pyaes.clone(),
        Err(why) => Err(why.clone()),
    };
    let (ws_out, py_out, copy_out) = (dir.join("ws"), dir.join("py"), dir.join("copy"));
    let names: Vec<String> = files.iter().map(|(p, _)| p.display().to_string()).collect();
    let mut t = Times {
        ws: vec![],
        py: vec![],
        py_why: pyaes.err(),
        copy: vec![],
        crypto: vec![],
    };
    for _ in 0..n {
        fresh(&ws_out)?;
        let s = Instant::now();
        let ok = Command::new(exe)
            .args(["aescrypt", "encrypt", "--format", "v2"])
            .args(["--password-env", "WIRESEAL_BENCH_PW", "--out-dir"])
            .arg(&ws_out)
            .args(&names)
            .env("WIRESEAL_BENCH_PW", PW)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        t.ws.push(s.elapsed().as_secs_f64());
        if !ok {
            return Err(Skip::new("wireseal aescrypt encrypt --out-dir failed"));
        }
        fresh(&ws_out)?;

        fresh(&copy_out)?;
        let s = Instant::now();
        copy_all(files, &copy_out, cli_jobs());
        t.copy.push(s.elapsed().as_secs_f64());
        fresh(&copy_out)?;

        if let (Ok(w), None) = (&mut worker, &t.py_why) {
            fresh(&py_out)?;
            let req = json!({"op": "backup_pyaes", "files": names,
                             "outdir": py_out.display().to_string(), "procs": cores});
            match w.time(req) {
                Ok(s) => t.py.push(s),
                Err(why) => t.py_why = Some(why),
            }
            fresh(&py_out)?;
        }

        let (cbc, hmac) = crypto_per_byte();
        t.crypto.push((cbc + hmac) * bytes as f64);
    }
    Ok(t)
}

/// The rows of a folder of `total` bytes (`bytes` written): the CLI
/// against the floor and against pyAesCrypt, and the plain copy.
fn backup_rows(total: u64, bytes: u64, mut t: Times) -> Vec<Row> {
    let cores = Batch::all_cores().threads();
    let ws = median(&mut t.ws);
    let copy = median(&mut t.copy);
    let crypto = median(&mut t.crypto);
    let floor = copy + crypto / cores as f64;
    let label = format!("backup {FILES} files / {}", total_name(total));
    let jobs = cli_jobs();
    let mib = bytes as f64 / (1u64 << 20) as f64;
    let peer = match (t.py_why, t.py.is_empty()) {
        (None, false) => Ok(median(&mut t.py)),
        (Some(why), _) => Err(why),
        (None, true) => Err(Skip::new("pyAesCrypt not measured")),
    };
    vec![
        Row::new(
            S,
            format!("{label}: wireseal CLI vs the {cores}-core floor"),
            "s",
            Better::Lower,
            ws,
            format!("copy + CBC/HMAC over {cores} cores"),
            Some(floor),
        )
        .seed(format!(
            "target <= 1.15x the floor; copy {copy:.3} s ({jobs} at once, fsync) + CBC+HMAC {crypto:.3} s / {cores}"
        ))
        .at(PLOT, OURS, mib),
        Row::with_peer(
            S,
            format!("{label}: wireseal CLI (fsync) vs pyAesCrypt"),
            "s",
            Better::Lower,
            ws,
            format!("pyAesCrypt, {cores} processes, no fsync"),
            peer.as_ref().map(|t| *t),
        )
        .seed("target >= 3x pyAesCrypt")
        .at(PLOT, OURS, mib),
        Row::new(
            S,
            format!("{label}: plain copy (fsync, {jobs} at once)"),
            "s",
            Better::Lower,
            copy,
            "-",
            None,
        )
        .at(PLOT, "plain copy (fsync), no encryption", mib),
    ]
}
