//! Throughput of encrypting one file (version 2) by its size, for a plot:
//! the library (file to file through `PartialFile`), the command line
//! (`wireseal aescrypt encrypt`, a process per file), the Python package
//! (`encryptFile`), pyAesCrypt (`encryptFile`) and a plain copy of the
//! file with the same durability. Everything but pyAesCrypt fsyncs the
//! output and renames it into place; pyAesCrypt writes it without fsync.
//! Samples of the five alternate. Rows: `file encrypt SIZE: SERIES` in
//! MB/s, against pyAesCrypt.

use super::worker::{median, ScratchDir, Worker};
use super::{mbps, PW, S};
use crate::peers::Skip;
use crate::{Better, Ctx, Row};
use serde_json::json;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;
use wireseal::aescrypt::io::encrypt_stream;
use wireseal::aescrypt::{EncryptOptions, Encryptor};
use wireseal::batch::Batch;
use wireseal_io::{PartialFile, Replace};

/// The report plot of these rows.
const PLOT: &str = "aescrypt-size";

/// A size in words (`1 KiB`, `64 MiB`).
pub(super) fn size_name(n: usize) -> String {
    if n >= 1 << 20 {
        format!("{} MiB", n >> 20)
    } else {
        format!("{} KiB", n >> 10)
    }
}

/// The `wireseal` binary the CLI series run
/// ([`crate::peers::wireseal_bin`]), when it is one (its `aescrypt encrypt
/// --help` names `--out-dir`).
pub(super) fn cli() -> Result<PathBuf, Skip> {
    let exe = crate::peers::wireseal_bin()?;
    let is_cli = Command::new(&exe)
        .args(["aescrypt", "encrypt", "--help"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout.windows(9).any(|w| w == b"--out-dir"));
    if is_cli {
        Ok(exe)
    } else {
        Err(Skip::new(format!(
            "{} is not a `wireseal` binary with `aescrypt encrypt --out-dir`",
            exe.display()
        )))
    }
}

/// Encrypts `src` into `dst` as the library's callers do: key derivation,
/// one pass, fsync and rename.
pub(super) fn library_file(batch: &Batch, src: &Path, dst: &Path) {
    let input = File::open(src).expect("input");
    let enc = Encryptor::new(PW, &EncryptOptions::v2()).expect("encryptor");
    let part = PartialFile::create(dst, Replace::Allow).expect("partial file");
    encrypt_stream(batch, enc, input, &part).expect("encrypt");
    part.persist().expect("persist");
}

/// Copies `src` to `dst` with the same durability: a partial file, fsync,
/// rename, folder fsync.
pub(super) fn plain_copy(src: &Path, dst: &Path) {
    let mut input = File::open(src).expect("input");
    let part = PartialFile::create(dst, Replace::Allow).expect("partial file");
    std::io::copy(&mut input, &mut &part).expect("copy");
    part.persist().expect("persist");
}

fn cli_file(exe: &Path, src: &Path, dst: &Path) {
    let ok = Command::new(exe)
        .args(["aescrypt", "encrypt", "--format", "v2", "--force"])
        .args(["--password-env", "WIRESEAL_BENCH_PW"])
        .arg(src)
        .arg(dst)
        .env("WIRESEAL_BENCH_PW", PW)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "wireseal aescrypt encrypt failed");
}

/// The file sizes measured.
fn sizes(ctx: &Ctx) -> &'static [usize] {
    if ctx.full {
        &[
            1 << 10,
            4 << 10,
            16 << 10,
            64 << 10,
            256 << 10,
            1 << 20,
            4 << 20,
            16 << 20,
            64 << 20,
            256 << 20,
        ]
    } else {
        &[1 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20]
    }
}

/// The rows.
pub(super) fn rows(ctx: &Ctx, rows: &mut Vec<Row>) {
    let n = if ctx.full { 5 } else { 3 };
    let batch = Batch::all_cores();
    let mut worker = Worker::start();
    let exe = cli();
    let Ok(dir) = ScratchDir::new("sizes") else {
        return;
    };
    for &size in sizes(ctx) {
        let src = dir.path().join(format!("in-{size}"));
        let mut data = vec![0u8; size];
        wireseal::entropy::fill_random(&mut data);
        if std::fs::write(&src, &data).is_err() {
            return;
        }
        drop(data);
        let out = |s: &str| dir.path().join(format!("{s}-{size}.aes"));
        let mut t = sample(n, &batch, &exe, &mut worker, &src, &out);
        rows.extend(size_rows(size, &mut t, &exe));
        let _ = std::fs::remove_file(&src);
        for s in ["lib", "cli", "enc_file", "pyaes_enc_file", "copy"] {
            let _ = std::fs::remove_file(out(s));
        }
    }
}

/// Seconds of each way to encrypt one file, `n` samples alternated: the
/// library, the CLI, the Python package, pyAesCrypt and the plain copy, in
/// that order; and why the Python package or pyAesCrypt gave no figure.
struct Samples {
    secs: [Vec<f64>; 5],
    py_err: [Option<Skip>; 2],
}

/// Encrypts `src` every way, `n` times in turn; `out` names each way's
/// output.
fn sample(
    n: usize,
    batch: &Batch,
    exe: &Result<PathBuf, Skip>,
    worker: &mut Result<Worker, Skip>,
    src: &Path,
    out: &dyn Fn(&str) -> PathBuf,
) -> Samples {
    let mut t: [Vec<f64>; 5] = Default::default();
    let mut py_err: [Option<Skip>; 2] = [None, None];
    for _ in 0..n {
        let s = Instant::now();
        library_file(batch, src, &out("lib"));
        t[0].push(s.elapsed().as_secs_f64());
        if let Ok(exe) = exe {
            let s = Instant::now();
            cli_file(exe, src, &out("cli"));
            t[1].push(s.elapsed().as_secs_f64());
        }
        for (k, op) in [(2usize, "enc_file"), (3, "pyaes_enc_file")] {
            let w = match &mut *worker {
                Ok(w) => w,
                Err(why) => {
                    py_err[k - 2] = Some(why.clone());
                    continue;
                }
            };
            let dst = out(op).display().to_string();
            match w.time(json!({"op": op, "src": src.display().to_string(), "dst": dst})) {
                Ok(x) => t[k].push(x),
                Err(why) => py_err[k - 2] = Some(why),
            }
        }
        let s = Instant::now();
        plain_copy(src, &out("copy"));
        t[4].push(s.elapsed().as_secs_f64());
    }
    Samples { secs: t, py_err }
}

/// The rows of one file size: each of ours against pyAesCrypt (or why it
/// has no figure), pyAesCrypt's own and the plain copy's.
fn size_rows(size: usize, s: &mut Samples, exe: &Result<PathBuf, Skip>) -> Vec<Row> {
    let peer = "pyAesCrypt encryptFile (no fsync)";
    let t = &mut s.secs;
    let py_err = &s.py_err;
    let rate = |v: &mut Vec<f64>| (!v.is_empty()).then(|| mbps(size, median(v)));
    let theirs = match (rate(&mut t[3]), &py_err[1]) {
        (Some(r), _) => Ok(r),
        (None, Some(why)) => Err(why.clone()),
        (None, None) => Err(Skip::new("pyAesCrypt not measured")),
    };
    let name = size_name(size);
    let series: [(&str, Option<f64>, Option<Skip>); 3] = [
        ("library", rate(&mut t[0]), None),
        ("wireseal CLI", rate(&mut t[1]), exe.as_ref().err().cloned()),
        ("Python encryptFile", rate(&mut t[2]), py_err[0].clone()),
    ];
    let mut rows = Vec::new();
    for (what, ours, why) in series {
        let workload = format!("file encrypt {name}: {what}");
        rows.push(match (ours, why) {
            (Some(o), _) => Row::with_peer(
                S,
                workload,
                "MB/s",
                Better::Higher,
                o,
                peer,
                theirs.as_ref().map(|t| *t),
            )
            .at(PLOT, what, size as f64),
            (None, why) => Row::with_peer(
                S,
                workload,
                "MB/s",
                Better::Higher,
                0.0,
                "-",
                Err(&why.unwrap_or_else(|| Skip::new("not measured"))),
            ),
        });
    }
    if let Ok(t) = theirs {
        rows.push(Row::new(
            S,
            format!("file encrypt {name}: pyAesCrypt"),
            "MB/s",
            Better::Higher,
            t,
            "-",
            None,
        ));
    }
    if let Some(c) = rate(&mut t[4]) {
        rows.push(
            Row::new(
                S,
                format!("file encrypt {name}: plain copy (fsync)"),
                "MB/s",
                Better::Higher,
                c,
                "-",
                None,
            )
            .at(PLOT, "plain copy (fsync)", size as f64),
        );
    }
    rows
}
