//! Files of `wireseal aescrypt`: the input, outputs written as they are
//! (stdout, a FIFO, a device), and the private temporary file that holds
//! unverified plaintext on its way to stdout. Regular-file outputs go
//! through partial files that [`interrupt`] begins and moves into place.

use super::IO_BUF;
use crate::util::interrupt;
use anyhow::{Context, Result};
use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::path::Path;
use wireseal::aescrypt::io::Error as IoError;
use wireseal::aescrypt::ProvisionalSink;
use zeroize::Zeroizing;

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
