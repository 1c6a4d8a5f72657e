//! `wireseal file encrypt|decrypt`: AES Crypt (.aes) files.
//!
//! Output goes to a temporary file next to the destination and is renamed
//! into place only when everything succeeded, so a failed or interrupted
//! run leaves no partial output and never touches the input. Decryption is
//! always one pass into a private temporary file (the library's
//! [`ProvisionalSink`](wireseal::aescrypt::ProvisionalSink)): next to OUT, or an anonymous one in the temporary
//! folder when OUT is stdout, copied out only after the HMAC matched. So
//! any input works (a file, stdin, a FIFO) and stdout only ever sees
//! verified plaintext.

mod output;
mod password;
mod progress;

use anyhow::{anyhow, bail, Context, Result};
use output::{check_output, commit, copy_to_stdout, open_input, temp_next_to, TempSink};
use password::{load_password, PasswordSource};
use progress::{Counting, Progress};
use std::io::{self, Read, Write};
use wireseal::aescrypt::{self, io::EncryptWriter, EncryptOptions, Limits};
use wireseal::batch::Batch;
use zeroize::Zeroizing;

/// `wireseal file ...`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    cmd: FileCmd,
}

#[derive(Debug, clap::Subcommand)]
enum FileCmd {
    /// Encrypt IN to OUT (`-` for stdin / stdout).
    Encrypt(EncryptArgs),
    /// Decrypt IN to OUT (`-` for stdin / stdout); versions 0-3 are read.
    Decrypt(DecryptArgs),
}

/// Stream format versions `encrypt` can write.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Format {
    /// Version 2 (8192 x SHA-256 key stretching; AES Crypt 3.x, pyAesCrypt, Duplicati).
    V2,
    /// Version 3 (PBKDF2-HMAC-SHA512; AES Crypt 4.x).
    V3,
}

#[derive(Debug, clap::Args)]
struct EncryptArgs {
    /// Stream format version to write.
    #[arg(long, value_enum, default_value = "v2")]
    format: Format,
    /// PBKDF2 iterations for --format v3 [default: 300000] (refused with v2,
    /// whose key stretching is fixed).
    #[arg(long, value_parser = crate::util::parse_u32)]
    iterations: Option<u32>,
    /// Overwrite OUT if it exists.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    password: PasswordSource,
    /// Plaintext input file, or `-` for stdin.
    input: String,
    /// Encrypted output file, or `-` for stdout.
    output: String,
}

#[derive(Debug, clap::Args)]
struct DecryptArgs {
    /// Overwrite OUT if it exists.
    #[arg(long)]
    force: bool,
    /// Refuse version 3 files asking for more PBKDF2 iterations than this.
    #[arg(long, default_value_t = Limits::default().max_iterations, value_parser = crate::util::parse_u32)]
    max_iterations: u32,
    #[command(flatten)]
    password: PasswordSource,
    /// Encrypted input file, or `-` for stdin.
    input: String,
    /// Plaintext output file, or `-` for stdout.
    output: String,
}

/// Runs `wireseal file`.
pub fn run(a: Args) -> Result<()> {
    match a.cmd {
        FileCmd::Encrypt(e) => encrypt(e),
        FileCmd::Decrypt(d) => decrypt(d),
    }
}

/// Bytes per read of the input.
const IO_BUF: usize = 1 << 20;

fn encrypt(a: EncryptArgs) -> Result<()> {
    let opts = match (a.format, a.iterations) {
        (Format::V2, Some(_)) => bail!(
            "--iterations applies to --format v3 only (version 2 key stretching is fixed at 8192 rounds of SHA-256)"
        ),
        (Format::V2, None) => EncryptOptions::v2(),
        (Format::V3, it) => {
            EncryptOptions::v3(it.unwrap_or(aescrypt::DEFAULT_V3_ITERATIONS))?
        }
    };
    check_output(&a.input, &a.output, a.force)?;
    let (mut input, total) = open_input(&a.input)?;
    let pw = load_password(&a.password, true)?;
    let mut progress = Progress::new(total);
    let batch = Batch::all_cores();
    // Plaintext passes through here: wiped when dropped.
    let mut buf = Zeroizing::new(vec![0u8; IO_BUF]);
    let mut pump = |enc: &mut dyn Write| -> Result<()> {
        loop {
            let n = match input.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e).context("cannot read the input"),
            };
            enc.write_all(&buf[..n])
                .context("cannot write the output")?;
            progress.add(n as u64);
        }
    };
    if a.output == "-" {
        let mut enc = EncryptWriter::new(&batch, io::stdout().lock(), &pw, &opts)?;
        pump(&mut enc)?;
        enc.finish()?.flush()?;
    } else {
        let tmp = temp_next_to(&a.output)?;
        let mut enc = EncryptWriter::new(&batch, tmp.as_file(), &pw, &opts)?;
        pump(&mut enc)?;
        enc.finish()?.flush()?;
        commit(tmp, &a.output, a.force)?;
    }
    progress.done();
    Ok(())
}

fn explain(e: aescrypt::Error) -> anyhow::Error {
    use aescrypt::Error as E;
    match e {
        E::WrongPassword => anyhow!("wrong password (nothing was written)"),
        E::Auth => anyhow!(
            "the file is corrupted or was modified after encryption (the password is correct, unless it is a version 0 file); no output written"
        ),
        other => anyhow!("{other}; no output written"),
    }
}

fn decrypt(a: DecryptArgs) -> Result<()> {
    check_output(&a.input, &a.output, a.force)?;
    let limits = Limits {
        max_iterations: a.max_iterations,
        ..Limits::default()
    };
    let (input, total) = open_input(&a.input)?;
    let pw = load_password(&a.password, false)?;
    let progress = std::sync::Mutex::new(Progress::new(total));
    let batch = Batch::all_cores();
    let counted = Counting {
        inner: input,
        progress: &progress,
    };
    if a.output != "-" {
        let tmp = temp_next_to(&a.output)?;
        let mut sink = TempSink(tmp.as_file());
        // On error the sink was emptied, and dropping `tmp` deletes it.
        aescrypt::io::decrypt_into_sink(&batch, &pw, counted, &mut sink, &limits)
            .map_err(explain)?;
        commit(tmp, &a.output, a.force)?;
    } else {
        // To stdout: into a private, nameless temporary file first; only
        // verified plaintext is copied out.
        let tmp = tempfile::tempfile().context("cannot create a temporary file")?;
        let mut sink = TempSink(&tmp);
        aescrypt::io::decrypt_into_sink(&batch, &pw, counted, &mut sink, &limits)
            .map_err(explain)?;
        copy_to_stdout(tmp)?;
    }
    if let Ok(mut p) = progress.lock() {
        p.done();
    }
    Ok(())
}
