//! Files of `wireseal aescrypt`: the input, outputs written through the
//! library's partial files ([`wireseal_io::PartialFile`]) and
//! moved into place on success, outputs written as they are (stdout, a
//! FIFO, a device), and the private temporary file that holds unverified
//! plaintext on its way to stdout.

use super::interrupt;
use super::IO_BUF;
use anyhow::{anyhow, Context, Result};
use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::path::Path;
use wireseal::aescrypt::io::Error as IoError;
use wireseal::aescrypt::ProvisionalSink;
use wireseal_io::{PartialFile, Replace};
use zeroize::Zeroizing;

/// Starts the partial file for OUT (`path`, which exists when
/// `replacing`): says on stderr which partial files of killed runs it
/// removed from the folder. The signal handler knows of the partial file
/// from the moment it exists.
///
/// # Errors
///
/// The partial file cannot be created.
pub(super) fn begin(output: &str, path: &Path, replacing: bool) -> Result<PartialFile> {
    let replace = if replacing {
        Replace::Allow
    } else {
        Replace::Refuse
    };
    let part = interrupt::create_partial(
        output,
        replacing,
        || PartialFile::create(path, replace),
        |p| p.path().to_path_buf(),
    )
    .with_context(|| format!("cannot write {output}"))?;
    for p in &part.leftovers().removed {
        eprintln!(
            "wireseal: removed {}, a partial output left by an interrupted run",
            p.display()
        );
    }
    for (p, why) in &part.leftovers().kept {
        eprintln!(
            "wireseal: {} is a partial output left by an interrupted run; cannot remove it: {why}",
            p.display()
        );
    }
    Ok(part)
}

/// Flushes the partial file to disk and moves it over OUT, with the signal
/// handler held off during the rename only.
///
/// # Errors
///
/// Flushing or renaming failed, OUT appeared meanwhile (when not
/// replacing), or OUT became something other than a regular file; the
/// partial file is removed then.
pub(super) fn finish(part: PartialFile, output: &str) -> Result<()> {
    let partial = part.path().to_path_buf();
    part.persist_with(|rename| interrupt::commit(&partial, rename))
        .map_err(|e| {
            interrupt::abandoned(&partial);
            anyhow!("cannot move the output into place at {output}: {e}")
        })
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

/// The plaintext sink of a decryption to stdout, a FIFO or a device: a
/// private, nameless temporary file that nobody reads before it is
/// verified. `discard` empties it.
pub(super) struct TempSink<'a>(pub(super) &'a File);

impl ProvisionalSink for TempSink<'_> {
    type Error = IoError;

    fn write_unverified(&mut self, plaintext: &[u8]) -> Result<(), IoError> {
        let mut f = self.0;
        Ok(f.write_all(plaintext)?)
    }

    fn commit(&mut self) -> Result<(), IoError> {
        let mut f = self.0;
        Ok(f.flush()?)
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
