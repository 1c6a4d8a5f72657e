//! Files of `wireseal file`: the input, checks on OUT, temporary outputs
//! renamed into place on success and removed on Ctrl-C/SIGTERM/SIGHUP, and
//! the private temporary file that holds unverified plaintext.

use anyhow::{anyhow, bail, Context, Result};
use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use wireseal::aescrypt::ProvisionalSink;
use zeroize::Zeroizing;

use super::IO_BUF;

/// Device and inode of a file, to recognise one file under two names
/// (a hard link, a symlink, `/proc/self/fd/N`).
#[cfg(unix)]
fn file_id(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// The identity of `path` (following symlinks), if it exists.
fn path_id(path: &str) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().and_then(|m| file_id(&m))
}

/// The identity of stdout when it is a regular file (e.g. `>> IN`).
#[cfg(unix)]
fn stdout_id() -> Option<(u64, u64)> {
    use std::os::fd::AsFd;
    let fd = io::stdout().as_fd().try_clone_to_owned().ok()?;
    let m = File::from(fd).metadata().ok()?;
    if m.is_file() {
        file_id(&m)
    } else {
        None
    }
}

#[cfg(not(unix))]
fn stdout_id() -> Option<(u64, u64)> {
    None
}

/// Checks OUT before any work: refuses to overwrite without --force and
/// refuses to write into IN (same path, a symlink or hard link to it, or
/// stdout redirected into it).
pub(super) fn check_output(input: &str, output: &str, force: bool) -> Result<()> {
    let in_id = if input == "-" { None } else { path_id(input) };
    if output == "-" {
        if in_id.is_some() && in_id == stdout_id() {
            bail!("stdout is the input file {input}; refusing to write into it");
        }
        return Ok(());
    }
    let out = Path::new(output);
    if out.exists() {
        let same_path = input != "-"
            && matches!(
                (Path::new(input).canonicalize(), out.canonicalize()),
                (Ok(a), Ok(b)) if a == b
            );
        if same_path || (in_id.is_some() && in_id == path_id(output)) {
            bail!("the output {output} is the input; refusing to overwrite it");
        }
        if !force {
            bail!("{output} exists; use --force to overwrite it");
        }
        if out.is_dir() {
            bail!("{output} is a directory");
        }
    }
    Ok(())
}

/// The temporary output of this run, removed by the signal handler.
static PENDING: std::sync::Mutex<Option<PathBuf>> = std::sync::Mutex::new(None);

/// On Ctrl-C, SIGTERM or SIGHUP (ctrlc's `termination` feature), delete the
/// temporary output and exit with status 130, so an interrupted run leaves
/// nothing behind.
fn clean_up_on_interrupt() {
    // A second call finds the handler installed; nothing to do.
    let _ = ctrlc::set_handler(|| {
        let removed = match PENDING.lock() {
            Ok(mut p) => p.take().map(std::fs::remove_file).is_some(),
            Err(_) => false,
        };
        if removed {
            eprintln!("\nwireseal: interrupted; temporary output removed, no output written");
        } else {
            eprintln!("\nwireseal: interrupted");
        }
        std::process::exit(130);
    });
}

/// A temporary file next to `output`, renamed over it by [`commit`].
pub(super) fn temp_next_to(output: &str) -> Result<tempfile::NamedTempFile> {
    let out = Path::new(output);
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    clean_up_on_interrupt();
    let tmp = tempfile::Builder::new()
        .prefix(".wireseal-partial-")
        .tempfile_in(&dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    if let Ok(mut p) = PENDING.lock() {
        *p = Some(tmp.path().to_path_buf());
    }
    Ok(tmp)
}

pub(super) fn commit(tmp: tempfile::NamedTempFile, output: &str, force: bool) -> Result<()> {
    tmp.as_file()
        .sync_all()
        .context("cannot flush the output")?;
    // Hold the lock across the rename, so a signal handler either removes
    // the temporary file before it or finds nothing to remove after it.
    let mut pending = PENDING.lock().ok();
    let r = if force {
        tmp.persist(output).map(|_| ())
    } else {
        tmp.persist_noclobber(output).map(|_| ())
    };
    if let Some(p) = pending.as_mut() {
        **p = None;
    }
    drop(pending);
    r.map_err(|e| anyhow!("cannot move the output into place at {output}: {}", e.error))
}

/// Opens IN; the size is known only for a regular file (not stdin, a FIFO
/// or a device).
pub(super) fn open_input(input: &str) -> Result<(Box<dyn Read + Send>, Option<u64>)> {
    if input == "-" {
        Ok((Box::new(io::stdin()), None))
    } else {
        let f = File::open(input).with_context(|| format!("cannot open {input}"))?;
        let len = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
        Ok((Box::new(f), len))
    }
}

/// The plaintext sink of `decrypt`: a private temporary file that nobody
/// reads before `commit`. `discard` empties it; the caller deletes it.
pub(super) struct TempSink<'a>(pub(super) &'a File);

impl ProvisionalSink for TempSink<'_> {
    fn write_unverified(&mut self, plaintext: &[u8]) -> io::Result<()> {
        let mut f = self.0;
        f.write_all(plaintext)
    }

    fn commit(&mut self) -> io::Result<()> {
        let mut f = self.0;
        f.flush()
    }

    fn discard(&mut self) {
        let _ = self.0.set_len(0);
    }
}

/// Copies the verified plaintext in `tmp` to stdout through a buffer that
/// is wiped afterwards.
pub(super) fn copy_to_stdout(mut tmp: File) -> Result<()> {
    tmp.rewind()?;
    let mut buf = Zeroizing::new(vec![0u8; IO_BUF]);
    let mut out = io::stdout().lock();
    loop {
        let n = match tmp.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e).context("cannot read the temporary file"),
        };
        out.write_all(&buf[..n]).context("cannot write to stdout")?;
    }
    out.flush().context("cannot write to stdout")
}
