//! `wireseal aescrypt encrypt|decrypt IN... --out-dir DIR`: many inputs at
//! once (four per core by default), largest first, each written through its own partial
//! file and moved into place when complete; one progress bar for the run.
//!
//! Encryption stretches the password once for the run
//! ([`PasswordKey`]): every output has its own session IV and key, and they
//! share the public IV (`--salt-per-file` stretches it for each file
//! instead). Decryption stretches it once per salt ([`StretchedKeys`]), so
//! the files of one such run cost one stretch. After a failure no new input is started; the outputs already
//! in place stay, and the error names every input that failed.

use super::progress::{Counting, Progress};
use super::target::{default_output, resolve, Target};
use super::{
    encrypt_into, explain_io, load_password, options, report, DecryptArgs, EncryptArgs, Format,
    ManyArgs,
};
use crate::util::interrupt::{self, begin, finish};
use anyhow::{anyhow, bail, Context, Result};
use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::sync::Mutex;
use wireseal::aescrypt::io::decrypt_into_sink_with;
use wireseal::aescrypt::{
    Decryptor, EncryptOptions, Encryptor, Limits, PasswordKey, StretchedKeys,
};
use wireseal::batch::Batch;

/// One input and where its output goes.
struct Job {
    input: String,
    output: String,
    path: PathBuf,
    replacing: bool,
    size: u64,
}

/// Checks every input and output before any work: inputs are regular
/// files, outputs are new (or regular files, with `--force`) and distinct.
fn plan(paths: &[String], dir: &Path, force: bool, encrypt: bool) -> Result<Vec<Job>> {
    if !dir.is_dir() {
        bail!("--out-dir {} is not a directory", dir.display());
    }
    let mut seen = HashSet::new();
    let mut jobs = Vec::with_capacity(paths.len());
    for input in paths {
        if input == "-" {
            bail!("stdin (`-`) cannot be one of the inputs of --out-dir");
        }
        let m = std::fs::metadata(input).with_context(|| format!("cannot open {input}"))?;
        if !m.is_file() {
            bail!("{input} is not a regular file");
        }
        let name = Path::new(input)
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| anyhow!("{input} has no file name"))?;
        let out_name = default_output(name, encrypt)?;
        let path = dir.join(&out_name);
        let output = path.display().to_string();
        if !seen.insert(out_name.clone()) {
            bail!("two inputs would both be written to {output}");
        }
        let replacing = match resolve(input, &output, force)? {
            Target::File { replacing, .. } => replacing,
            _ => bail!("{output} is not a regular file; refusing to write into it"),
        };
        jobs.push(Job {
            input: input.clone(),
            output,
            path,
            replacing,
            size: m.len(),
        });
    }
    Ok(jobs)
}

/// Runs `work` over the jobs, largest first, on `workers` threads; each
/// thread gets `batch(i)`. Stops starting new jobs after a failure.
fn run<F>(jobs: &[Job], many: &ManyArgs, work: F) -> Result<()>
where
    F: Fn(&Job, &Batch) -> Result<()> + Sync,
{
    let cores = Batch::all_cores().threads();
    // Every output is fsynced: with more inputs in flight than cores, one
    // run's CPU work fills another's wait for the disk.
    let workers = many
        .jobs
        .map_or(4 * cores, usize::from)
        .clamp(1, jobs.len().max(1));
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(jobs[i].size));
    interrupt::expect_outputs(jobs.len());
    let next = AtomicUsize::new(0);
    let written = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let failed: Mutex<Vec<(usize, anyhow::Error)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                // With a core per worker each file runs on its worker alone
                // (no hand-off between threads); fewer workers than cores
                // share all of them.
                let batch = if workers >= cores {
                    Batch::with_threads(1)
                } else {
                    Batch::all_cores()
                };
                while !stop.load(Ordering::Relaxed) {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = order.get(k) else { break };
                    match work(&jobs[i], &batch) {
                        Ok(()) => {
                            written.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => {
                            stop.store(true, Ordering::Relaxed);
                            if let Ok(mut f) = failed.lock() {
                                f.push((i, e));
                            }
                        }
                    }
                }
            });
        }
    });
    let mut failed = failed.into_inner().unwrap_or_else(|e| e.into_inner());
    if failed.is_empty() {
        return Ok(());
    }
    failed.sort_by_key(|(i, _)| *i);
    let lines: Vec<String> = failed
        .iter()
        .map(|(i, e)| format!("{}: {e:#}", jobs[*i].input))
        .collect();
    bail!(
        "{}\n{} of {} outputs were written; the others were not started or not written",
        lines.join("\n"),
        written.into_inner(),
        jobs.len()
    )
}

/// The progress bar for the whole run.
fn progress_for(jobs: &[Job]) -> Progress {
    Progress::new(Some(jobs.iter().map(|j| j.size).sum()))
}

/// `encrypt IN... --out-dir DIR`.
pub(super) fn encrypt(a: EncryptArgs) -> Result<()> {
    let opts = options(a.format, a.iterations)?;
    let dir = a.many.out_dir.clone().unwrap_or_default();
    let jobs = plan(&a.paths, &dir, a.force, true)?;
    let pw = load_password(&a.password, true)?;
    let key = if a.salt_per_file {
        None
    } else {
        Some(PasswordKey::derive(&pw, &opts)?)
    };
    let progress = progress_for(&jobs);
    run(&jobs, &a.many, |job, batch| {
        encrypt_one(job, batch, key.as_ref(), &pw, &opts, &progress)
    })?;
    progress.done();
    for j in &jobs {
        report(&j.output, Some(a.format));
    }
    Ok(())
}

fn encrypt_one(
    job: &Job,
    batch: &Batch,
    key: Option<&PasswordKey>,
    pw: &str,
    opts: &EncryptOptions,
    progress: &Progress,
) -> Result<()> {
    let input = File::open(&job.input).with_context(|| format!("cannot open {}", job.input))?;
    let enc = match key {
        Some(k) => Encryptor::from_key(k),
        None => Encryptor::new(pw, opts)?,
    };
    let part = begin(&job.output, &job.path, job.replacing)?;
    if let Err(e) = encrypt_into(batch, enc, input, &part, progress) {
        interrupt::abandoned(part.path());
        return Err(e);
    }
    finish(part, &job.output, || {})
}

/// `decrypt IN... --out-dir DIR`.
pub(super) fn decrypt(a: DecryptArgs) -> Result<()> {
    let dir = a.many.out_dir.clone().unwrap_or_default();
    let jobs = plan(&a.paths, &dir, a.force, false)?;
    let limits = Limits {
        max_iterations: a.max_iterations,
        ..Limits::default()
    };
    let keys = Arc::new(StretchedKeys::new(&load_password(&a.password, false)?));
    let progress = progress_for(&jobs);
    run(&jobs, &a.many, |job, batch| {
        let input = File::open(&job.input).with_context(|| format!("cannot open {}", job.input))?;
        let counted = Counting {
            inner: input,
            progress: &progress,
        };
        let mut part = begin(&job.output, &job.path, job.replacing)?;
        let dec = Decryptor::with_keys(Arc::clone(&keys), &limits);
        if let Err(e) = decrypt_into_sink_with(batch, dec, counted, &mut part) {
            interrupt::abandoned(part.path());
            return Err(explain_io(e));
        }
        finish(part, &job.output, || {})
    })?;
    progress.done();
    for j in &jobs {
        report(&j.output, None::<Format>);
    }
    Ok(())
}
