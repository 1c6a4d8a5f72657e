//! `wireseal aescrypt encrypt|decrypt`: AES Crypt (.aes)
//! files, one (`IN [OUT]`) or many at once (`IN... --out-dir DIR`).
//!
//! Outputs never destroy anything. A regular-file OUT is written through
//! the library's [`PartialFile`](wireseal_io::PartialFile): a
//! partial file next to it (`.wireseal-partial-PID-*`, mode 0600, locked),
//! fsynced and renamed into place only when everything succeeded; an
//! existing one is replaced only with `--force`, and a symlink's target is
//! the file replaced. An existing FIFO or character device is written to as
//! it is; a block device, a socket or a directory is refused. Decryption
//! always goes into a private temporary file first (the library's
//! [`ProvisionalSink`](wireseal::aescrypt::ProvisionalSink)): the partial
//! file next to OUT, or a nameless one in the temporary folder for stdout,
//! a FIFO or a device, copied out only after the HMAC matched. Signals are
//! handled as [`interrupt`](crate::util::interrupt) says; partial files of killed runs (of this
//! command or of the Python package) are removed by the next run into the
//! same folder.

mod many;
mod output;
mod password;
mod progress;
mod target;

use crate::util::interrupt;
use anyhow::{anyhow, bail, Result};
use output::{copy_verified, open_input, open_stream, TempSink};
use password::{load_password, PasswordSource};
use progress::{Counting, Progress};
use std::io::{self, Write};
use std::path::PathBuf;
use target::{default_output, resolve, Target};
use wireseal::aescrypt::io::encrypt_stream;
use wireseal::aescrypt::{self, EncryptOptions, Encryptor, Limits};
use wireseal::batch::Batch;

/// `wireseal aescrypt ...`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    cmd: FileCmd,
}

#[derive(Debug, clap::Subcommand)]
enum FileCmd {
    /// Encrypt IN to OUT (`-` for stdin / stdout; OUT defaults to IN.aes),
    /// or every IN into --out-dir DIR.
    Encrypt(EncryptArgs),
    /// Decrypt IN to OUT (`-` for stdin / stdout; OUT defaults to IN without
    /// .aes), or every IN into --out-dir DIR; versions 0-3 are read.
    Decrypt(DecryptArgs),
}

/// Several inputs at once.
#[derive(Debug, Clone, clap::Args)]
struct ManyArgs {
    /// Write each output into DIR (NAME.aes on encrypt, NAME without .aes
    /// on decrypt); every path given is then an input.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// With --out-dir: how many inputs are processed at once [default: four
    /// per core, so the waits for fsync overlap other inputs' work].
    #[arg(long, value_name = "N", requires = "out_dir", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
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
    /// With --out-dir: stretch the password for every file under its own
    /// salt, instead of once for the run (the outputs of one run then share
    /// their public IV; see docs/aescrypt.md).
    #[arg(long, requires = "out_dir")]
    salt_per_file: bool,
    #[command(flatten)]
    many: ManyArgs,
    #[command(flatten)]
    password: PasswordSource,
    /// `IN [OUT]`: the plaintext input (`-` for stdin) and the encrypted
    /// output (a file, `-` for stdout, or an existing FIFO or character
    /// device) [default OUT: IN.aes, or `-` when IN is `-`]. With
    /// --out-dir: one or more input files.
    #[arg(value_name = "IN [OUT] | IN...", required = true)]
    paths: Vec<String>,
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
    many: ManyArgs,
    #[command(flatten)]
    password: PasswordSource,
    /// `IN [OUT]`: the encrypted input (`-` for stdin) and the plaintext
    /// output (a file, `-` for stdout, or an existing FIFO or character
    /// device, written only after the whole file verified) [default OUT: IN
    /// without .aes, or `-` when IN is `-`]. With --out-dir: one or more
    /// input files.
    #[arg(value_name = "IN [OUT] | IN...", required = true)]
    paths: Vec<String>,
}

/// `IN [OUT]` from the paths given without --out-dir.
fn in_out(paths: &[String]) -> Result<(String, Option<String>)> {
    match paths {
        [input] => Ok((input.clone(), None)),
        [input, output] => Ok((input.clone(), Some(output.clone()))),
        _ => bail!(
            "{} paths given: without --out-dir the arguments are IN [OUT]; \
             to process several inputs, give --out-dir DIR",
            paths.len()
        ),
    }
}

/// Runs `wireseal aescrypt`.
pub fn run(a: Args) -> Result<()> {
    // From the start, so every signal gets a message that says what is on
    // disk.
    interrupt::install();
    match a.cmd {
        FileCmd::Encrypt(e) if e.many.out_dir.is_some() => many::encrypt(e),
        FileCmd::Decrypt(d) if d.many.out_dir.is_some() => many::decrypt(d),
        FileCmd::Encrypt(e) => encrypt(e),
        FileCmd::Decrypt(d) => decrypt(d),
    }
}

/// The options `--format` and `--iterations` ask for.
fn options(format: Format, iterations: Option<u32>) -> Result<EncryptOptions> {
    Ok(match (format, iterations) {
        (Format::V2, Some(_)) => bail!(
            "--iterations applies to --format v3 only (version 2 key stretching is fixed at 8192 rounds of SHA-256)"
        ),
        (Format::V2, None) => EncryptOptions::v2(),
        (Format::V3, it) => EncryptOptions::v3(it.unwrap_or(aescrypt::DEFAULT_V3_ITERATIONS))?,
    })
}

/// Encrypts `input` into `out` with `enc` (reading the next chunk while
/// the current one is encrypted), counting the bytes read in `progress`.
fn encrypt_into<W: Write>(
    batch: &Batch,
    enc: Encryptor,
    input: impl io::Read,
    out: W,
    progress: &Progress,
) -> Result<()> {
    let counted = Counting {
        inner: input,
        progress,
    };
    encrypt_stream(batch, enc, counted, out)
        .map_err(|e| anyhow!("cannot encrypt: {e}"))?
        .flush()?;
    Ok(())
}

/// Bytes per read of the input.
const IO_BUF: usize = 1 << 20;

fn encrypt(a: EncryptArgs) -> Result<()> {
    let opts = options(a.format, a.iterations)?;
    let (input_name, output) = in_out(&a.paths)?;
    let output = match output {
        Some(o) => o,
        None => default_output(&input_name, true)?,
    };
    let target = resolve(&input_name, &output, a.force)?;
    let (input, total) = open_input(&input_name)?;
    let pw = load_password(&a.password, true)?;
    let progress = Progress::new(total);
    let batch = Batch::all_cores();
    let enc = Encryptor::new(&pw, &opts)?;
    match target {
        Target::Stdout => {
            interrupt::streaming("stdout");
            encrypt_into(&batch, enc, input, io::stdout().lock(), &progress)?;
            interrupt::done("stdout");
        }
        Target::Stream { path, kind } => {
            // Ciphertext only: an interrupted run leaves a stream that
            // fails to decrypt, never plaintext.
            let out = open_stream(&path, kind)?;
            encrypt_into(&batch, enc, input, &out, &progress)?;
            interrupt::done(&output);
        }
        Target::File { path, replacing } => {
            let part = interrupt::begin(&output, &path, replacing)?;
            if let Err(e) = encrypt_into(&batch, enc, input, &part, &progress) {
                interrupt::abandoned(part.path());
                return Err(e);
            }
            interrupt::finish(part, &output, || {})?;
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

/// A failed decryption in words: the stream's error explained, or the I/O
/// error as it is.
fn explain_io(e: aescrypt::io::Error) -> anyhow::Error {
    match e {
        aescrypt::io::Error::Format(f) => explain(f),
        other => anyhow!("{other}; no output written"),
    }
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
    let (input_name, output) = in_out(&a.paths)?;
    let output = match output {
        Some(o) => o,
        None => default_output(&input_name, false)?,
    };
    let target = resolve(&input_name, &output, a.force)?;
    let limits = Limits {
        max_iterations: a.max_iterations,
        ..Limits::default()
    };
    let (input, total) = open_input(&input_name)?;
    let pw = load_password(&a.password, false)?;
    let progress = Progress::new(total);
    let batch = Batch::all_cores();
    let counted = Counting {
        inner: input,
        progress: &progress,
    };
    match target {
        Target::File { path, replacing } => {
            let mut part = interrupt::begin(&output, &path, replacing)?;
            // On error the sink was emptied, and dropping `part` deletes it.
            if let Err(e) =
                aescrypt::io::decrypt_into_sink(&batch, &pw, counted, &mut part, &limits)
            {
                interrupt::abandoned(part.path());
                return Err(explain_io(e));
            }
            interrupt::finish(part, &output, || {})?;
        }
        Target::Stdout | Target::Stream { .. } => {
            // Into a private, nameless temporary file first; only verified
            // plaintext is copied out.
            let tmp = tempfile::tempfile()
                .map_err(|e| anyhow!(e).context("cannot create a temporary file"))?;
            let mut sink = TempSink(&tmp);
            aescrypt::io::decrypt_into_sink(&batch, &pw, counted, &mut sink, &limits)
                .map_err(explain_io)?;
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
    progress.done();
    report(&output, None);
    Ok(())
}
