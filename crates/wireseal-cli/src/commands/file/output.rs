//! Files of `wireseal file`: the input, partial outputs renamed into place
//! on success, outputs written as they are (stdout, a FIFO, a device), and
//! the private temporary file that holds unverified plaintext.

use super::interrupt;
use super::partial;
use super::target::{still_replaceable, Target};
use super::IO_BUF;
use anyhow::{anyhow, Context, Result};
use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use wireseal::aescrypt::ProvisionalSink;
use zeroize::Zeroizing;

/// A partial file next to OUT, renamed over it by [`Partial::finish`];
/// removed when dropped unfinished (and by the signal handler).
pub(super) struct Partial {
    tmp: tempfile::NamedTempFile,
    path: PathBuf,
    output: String,
}

impl Partial {
    /// Removes what killed runs left in OUT's folder, then starts a partial
    /// file there.
    ///
    /// # Errors
    ///
    /// The partial file cannot be created.
    pub(super) fn begin(output: &str, path: &Path, replacing: bool) -> Result<Self> {
        let dir = Target::folder(path);
        partial::clean_up_and_report(&dir);
        let tmp = partial::create_in(&dir)?;
        interrupt::writing_partial(tmp.path().to_path_buf(), output, replacing);
        Ok(Self {
            tmp,
            path: path.to_path_buf(),
            output: output.to_owned(),
        })
    }

    /// The partial file.
    pub(super) fn file(&self) -> &File {
        self.tmp.as_file()
    }

    /// Flushes the partial file to disk and renames it over OUT (over an
    /// existing OUT only when `replacing`).
    ///
    /// # Errors
    ///
    /// Flushing or renaming failed, OUT appeared meanwhile (when not
    /// replacing), or OUT became something other than a regular file.
    pub(super) fn finish(self, replacing: bool) -> Result<()> {
        self.tmp
            .as_file()
            .sync_all()
            .context("cannot flush the output")?;
        still_replaceable(&self.path)?;
        let (tmp, path, output) = (self.tmp, self.path, self.output);
        interrupt::commit(&output, || {
            if replacing {
                tmp.persist(&path).map(drop)
            } else {
                tmp.persist_noclobber(&path).map(drop)
            }
        })
        .map_err(|e| anyhow!("cannot move the output into place at {output}: {}", e.error))?;
        // The rename itself on disk (best effort: not every system lets a
        // folder be opened).
        if let Ok(d) = File::open(Target::folder(&path)) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// Opens an existing FIFO or character device for writing, as it is (no
/// truncation, nothing created); a FIFO waits here for its reader.
///
/// # Errors
///
/// It cannot be opened.
pub(super) fn open_stream(path: &Path, kind: &str) -> Result<File> {
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .with_context(|| format!("cannot open the {kind} {} for writing", path.display()))?;
    interrupt::streaming(&path.display().to_string());
    Ok(f)
}

/// Opens IN; the size is known only for a regular file (not stdin, a FIFO
/// or a device).
///
/// # Errors
///
/// IN cannot be opened, or stdin is taken by another option.
pub(super) fn open_input(input: &str) -> Result<(Box<dyn Read + Send>, Option<u64>)> {
    if input == "-" {
        crate::util::input::claim_stdin("IN")?;
        Ok((Box::new(io::stdin()), None))
    } else {
        let f = File::open(input).with_context(|| format!("cannot open {input}"))?;
        let len = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
        Ok((Box::new(f), len))
    }
}

/// The plaintext sink of `decrypt`: a private temporary file that nobody
/// reads before it is verified. `discard` empties it; the caller deletes it.
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

/// Copies the verified plaintext in `tmp` to `out` through a buffer that
/// is wiped afterwards.
///
/// # Errors
///
/// Reading `tmp` or writing `out` failed.
pub(super) fn copy_verified(mut tmp: File, out: &mut dyn Write, name: &str) -> Result<()> {
    tmp.rewind()?;
    let mut buf = Zeroizing::new(vec![0u8; IO_BUF]);
    loop {
        let n = match tmp.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e).context("cannot read the temporary file"),
        };
        out.write_all(&buf[..n])
            .with_context(|| format!("cannot write to {name}"))?;
    }
    out.flush()
        .with_context(|| format!("cannot write to {name}"))
}
