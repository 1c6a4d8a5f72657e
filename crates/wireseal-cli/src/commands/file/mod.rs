//! `wireseal aescrypt encrypt|decrypt` (alias `file`): AES Crypt (.aes)
//! files.
//!
//! Outputs never destroy anything. A regular-file OUT is written to a
//! partial file next to it (`.wireseal-partial-PID-*`, mode 0600, locked)
//! and renamed into place only when everything succeeded; an existing one
//! is replaced only with `--force`, and a symlink's target is the file
//! replaced. An existing FIFO or character device is written to as it is;
//! a block device, a socket or a directory is refused. Decryption always
//! goes into a private temporary file first (the library's
//! [`ProvisionalSink`](wireseal::aescrypt::ProvisionalSink)): the partial
//! file next to OUT, or a nameless one in the temporary folder for stdout,
//! a FIFO or a device, copied out only after the HMAC matched. Signals are
//! handled as [`interrupt`] says, and partial files of killed runs are
//! removed by the next run into the same folder ([`partial`]).

mod interrupt;
mod output;
mod partial;
mod password;
mod progress;
mod target;

use anyhow::{anyhow, bail, Context, Result};
use output::{copy_verified, open_input, open_stream, Partial, TempSink};
use password::{load_password, PasswordSource};
use progress::{Counting, Progress};
use std::io::{self, Read, Write};
use target::{default_output, resolve, Target};
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
    /// Encrypt IN to OUT (`-` for stdin / stdout; OUT defaults to IN.aes).
    Encrypt(EncryptArgs),
    /// Decrypt IN to OUT (`-` for stdin / stdout; OUT defaults to IN without
    /// .aes); versions 0-3 are read.
    Decrypt(DecryptArgs),
}

/// Stream format versions `encrypt` can write.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Format {
    /// Version 2 (8192 x SHA-256 key stretching): for readers that only know
    /// v2 (AES Crypt 3.x, pyAesCrypt, Duplicati).
    V2,
    /// Version 3 (PBKDF2-HMAC-SHA512, 300,000 iterations by default, padding
    /// inside the HMAC; AES Crypt 4.x).
    V3,
}

/// Why v3 is the default, for `--help`.
const FORMAT_HELP: &str = "Stream format version to write. v3 is the default: its key \
stretching (PBKDF2-HMAC-SHA512, 300,000 iterations) makes each password guess far \
costlier than v2's 8192 rounds of SHA-256, and its padding is authenticated (v2's last-block \
size octet is not). Use v2 when the reader only knows v2 (AES Crypt 3.x, pyAesCrypt, \
Duplicati).";

#[derive(Debug, clap::Args)]
struct EncryptArgs {
    #[arg(
        long,
        value_enum,
        default_value = "v3",
        help = "Stream format version to write (v3: stronger key stretching; v2 for v2-only readers)",
        long_help = FORMAT_HELP
    )]
    format: Format,
    /// PBKDF2 iterations for --format v3 [default: 300000] (refused with v2,
    /// whose key stretching is fixed).
    #[arg(long, value_parser = crate::util::parse_u32)]
    iterations: Option<u32>,
    /// Replace OUT if it is an existing regular file (never anything else).
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    password: PasswordSource,
    /// Plaintext input file, or `-` for stdin.
    input: String,
    /// Encrypted output: a file, `-` for stdout, or an existing FIFO or
    /// character device [default: IN.aes, or `-` when IN is `-`].
    output: Option<String>,
}

#[derive(Debug, clap::Args)]
struct DecryptArgs {
    /// Replace OUT if it is an existing regular file (never anything else).
    #[arg(long)]
    force: bool,
    /// Refuse version 3 files asking for more PBKDF2 iterations than this.
    #[arg(long, default_value_t = Limits::default().max_iterations, value_parser = crate::util::parse_u32)]
    max_iterations: u32,
    #[command(flatten)]
    password: PasswordSource,
    /// Encrypted input file, or `-` for stdin.
    input: String,
    /// Plaintext output: a file, `-` for stdout, or an existing FIFO or
    /// character device (written only after the whole file verified)
    /// [default: IN without .aes, or `-` when IN is `-`].
    output: Option<String>,
}

/// Runs `wireseal file`.
pub fn run(a: Args) -> Result<()> {
    // From the start, so every signal gets a message that says what is on
    // disk.
    interrupt::install();
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
    let output = match a.output {
        Some(o) => o,
        None => default_output(&a.input, true)?,
    };
    let target = resolve(&a.input, &output, a.force)?;
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
    match target {
        Target::Stdout => {
            interrupt::streaming("stdout");
            let mut enc = EncryptWriter::new(&batch, io::stdout().lock(), &pw, &opts)?;
            pump(&mut enc)?;
            enc.finish()?.flush()?;
            interrupt::done("stdout");
        }
        Target::Stream { path, kind } => {
            // Ciphertext only: an interrupted run leaves a stream that
            // fails to decrypt, never plaintext.
            let out = open_stream(&path, kind)?;
            let mut enc = EncryptWriter::new(&batch, &out, &pw, &opts)?;
            pump(&mut enc)?;
            enc.finish()?.flush()?;
            interrupt::done(&output);
        }
        Target::File { path, replacing } => {
            let part = Partial::begin(&output, &path, replacing)?;
            let mut enc = EncryptWriter::new(&batch, part.file(), &pw, &opts)?;
            pump(&mut enc)?;
            enc.finish()?.flush()?;
            part.finish(replacing)?;
        }
    }
    progress.done();
    report(&output, Some(a.format));
    Ok(())
}

/// Under `--json`, the result when OUT is not stdout: `output`, and
/// `format` (`v2`/`v3`) for an encryption.
fn report(output: &str, format: Option<Format>) {
    use serde_json::Value;
    if !crate::util::output::json() || output == "-" {
        return;
    }
    let format = match format {
        Some(Format::V2) => Value::from("v2"),
        Some(Format::V3) => Value::from("v3"),
        None => Value::Null,
    };
    crate::util::output::fields(&[("output", Value::from(output)), ("format", format)]);
}

fn explain(e: aescrypt::Error) -> anyhow::Error {
    use aescrypt::Error as E;
    match e {
        E::WrongPassword => anyhow!("wrong password (nothing was written)"),
        E::Auth => anyhow!(
            "the file is corrupted or was modified after encryption (the password is correct, unless it is a version 0 file); no output written"
        ),
        // A v2 header whose version octet was changed to 3 reads four
        // bytes of extension or IV as the count: not a request to honour.
        E::TooManyIterations { iterations, limit } => anyhow!(
            "not a valid version 3 header: its PBKDF2 iteration count {iterations} is out of \
             range (1 to {limit}); the file is damaged or altered, or, if it really was \
             written with that many, raise --max-iterations; no output written"
        ),
        other => anyhow!("{other}; no output written"),
    }
}

fn decrypt(a: DecryptArgs) -> Result<()> {
    let output = match a.output {
        Some(o) => o,
        None => default_output(&a.input, false)?,
    };
    let target = resolve(&a.input, &output, a.force)?;
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
    match target {
        Target::File { path, replacing } => {
            let part = Partial::begin(&output, &path, replacing)?;
            let mut sink = TempSink(part.file());
            // On error the sink was emptied, and dropping `part` deletes it.
            aescrypt::io::decrypt_into_sink(&batch, &pw, counted, &mut sink, &limits)
                .map_err(explain)?;
            part.finish(replacing)?;
        }
        Target::Stdout | Target::Stream { .. } => {
            // Into a private, nameless temporary file first; only verified
            // plaintext is copied out.
            let tmp = tempfile::tempfile().context("cannot create a temporary file")?;
            let mut sink = TempSink(&tmp);
            aescrypt::io::decrypt_into_sink(&batch, &pw, counted, &mut sink, &limits)
                .map_err(explain)?;
            if let Target::Stream { path, kind } = &target {
                let mut out = open_stream(path, kind)?;
                copy_verified(tmp, &mut out, &output)?;
                interrupt::done(&output);
            } else {
                interrupt::streaming("stdout");
                copy_verified(tmp, &mut io::stdout().lock(), "stdout")?;
                interrupt::done("stdout");
            }
        }
    }
    if let Ok(mut p) = progress.lock() {
        p.done();
    }
    report(&output, None);
    Ok(())
}
