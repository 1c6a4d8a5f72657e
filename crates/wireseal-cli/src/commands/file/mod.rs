//! `wireseal file encrypt|decrypt`: AES Crypt (.aes) files.
//!
//! Output goes to a temporary file next to the destination and is renamed
//! into place only when everything succeeded, so a failed or interrupted
//! run leaves no partial output and never touches the input. Decryption is
//! always one pass into a private temporary file (the library's
//! [`ProvisionalSink`]): next to OUT, or an anonymous one in the temporary
//! folder when OUT is stdout, copied out only after the HMAC matched. So
//! any input works (a file, stdin, a FIFO) and stdout only ever sees
//! verified plaintext.

use anyhow::{anyhow, bail, Context, Result};
use std::fs::File;
use std::io::{self, IsTerminal, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use wireseal::aescrypt::{self, EncryptOptions, Limits, ProvisionalSink};
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

/// Where the password comes from (never the command line).
#[derive(Debug, Clone, Default, clap::Args)]
struct PasswordSource {
    /// Read the password from the first line of this file.
    #[arg(long = "password-file", value_name = "FILE")]
    file: Option<PathBuf>,
    /// Read the password from this environment variable.
    #[arg(long = "password-env", value_name = "VAR", conflicts_with = "file")]
    env: Option<String>,
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

const IO_BUF: usize = 1 << 20;

fn load_password(src: &PasswordSource, confirm: bool) -> Result<Zeroizing<String>> {
    let pw = if let Some(f) = &src.file {
        let raw = Zeroizing::new(
            std::fs::read(f).with_context(|| format!("cannot read {}", f.display()))?,
        );
        let text = std::str::from_utf8(&raw)
            .map_err(|_| anyhow!("the password file {} is not UTF-8", f.display()))?;
        let line = text.split('\n').next().unwrap_or("");
        Zeroizing::new(line.strip_suffix('\r').unwrap_or(line).to_owned())
    } else if let Some(v) = &src.env {
        Zeroizing::new(
            std::env::var(v)
                .map_err(|_| anyhow!("environment variable {v} is not set (or not UTF-8)"))?,
        )
    } else {
        let first = Zeroizing::new(rpassword::prompt_password("Password: ").context(
            "cannot read the password from the terminal (use --password-file or --password-env)",
        )?);
        if confirm {
            let again = Zeroizing::new(
                rpassword::prompt_password("Repeat password: ")
                    .context("cannot read the password from the terminal")?,
            );
            if *first != *again {
                bail!("the passwords do not match");
            }
        }
        first
    };
    if confirm && pw.is_empty() {
        bail!("refusing to encrypt with an empty password");
    }
    Ok(pw)
}

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
fn check_output(input: &str, output: &str, force: bool) -> Result<()> {
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
fn temp_next_to(output: &str) -> Result<tempfile::NamedTempFile> {
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

fn commit(tmp: tempfile::NamedTempFile, output: &str, force: bool) -> Result<()> {
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
fn open_input(input: &str) -> Result<(Box<dyn Read + Send>, Option<u64>)> {
    if input == "-" {
        Ok((Box::new(io::stdin()), None))
    } else {
        let f = File::open(input).with_context(|| format!("cannot open {input}"))?;
        let len = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
        Ok((Box::new(f), len))
    }
}

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
        let mut enc = aescrypt::Encryptor::new(io::stdout().lock(), &pw, &opts)?;
        pump(&mut enc)?;
        enc.finish()?.flush()?;
    } else {
        let tmp = temp_next_to(&a.output)?;
        let mut enc = aescrypt::Encryptor::new(tmp.as_file(), &pw, &opts)?;
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
        E::Corrupted => anyhow!(
            "the file is corrupted or was modified after encryption (password is correct); no output written"
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
    let counted = Counting {
        inner: input,
        progress: &progress,
    };
    if a.output != "-" {
        let tmp = temp_next_to(&a.output)?;
        let mut sink = TempSink(tmp.as_file());
        // On error the sink was emptied, and dropping `tmp` deletes it.
        aescrypt::decrypt_into_sink(&pw, counted, &mut sink, &limits).map_err(explain)?;
        commit(tmp, &a.output, a.force)?;
    } else {
        // To stdout: into a private, nameless temporary file first; only
        // verified plaintext is copied out.
        let tmp = tempfile::tempfile().context("cannot create a temporary file")?;
        let mut sink = TempSink(&tmp);
        aescrypt::decrypt_into_sink(&pw, counted, &mut sink, &limits).map_err(explain)?;
        copy_to_stdout(tmp)?;
    }
    if let Ok(mut p) = progress.lock() {
        p.done();
    }
    Ok(())
}

/// The plaintext sink of `decrypt`: a private temporary file that nobody
/// reads before `commit`. `discard` empties it; the caller deletes it.
struct TempSink<'a>(&'a File);

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
fn copy_to_stdout(mut tmp: File) -> Result<()> {
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

/// Counts bytes read for the progress bar.
struct Counting<'a, R> {
    inner: R,
    progress: &'a std::sync::Mutex<Progress>,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Ok(mut p) = self.progress.lock() {
            p.add(n as u64);
        }
        Ok(n)
    }
}

/// A small progress bar on stderr, shown only on a terminal and only for
/// inputs of at least 32 MiB (or of unknown size).
struct Progress {
    enabled: bool,
    total: Option<u64>,
    done: u64,
    start: Instant,
    last: Instant,
}

impl Progress {
    fn new(total: Option<u64>) -> Self {
        let big = total.is_none_or(|t| t >= 32 << 20);
        let now = Instant::now();
        Self {
            enabled: big && io::stderr().is_terminal(),
            total,
            done: 0,
            start: now,
            last: now,
        }
    }

    fn add(&mut self, n: u64) {
        self.done += n;
        if self.enabled && self.last.elapsed() >= Duration::from_millis(200) {
            self.last = Instant::now();
            self.draw();
        }
    }

    fn draw(&self) {
        let mib = self.done as f64 / (1 << 20) as f64;
        let rate = mib / self.start.elapsed().as_secs_f64().max(1e-9);
        let line = match self.total {
            Some(t) if t > 0 => {
                let frac = (self.done as f64 / t as f64).min(1.0);
                let filled = (frac * 30.0) as usize;
                format!(
                    "\r[{}{}] {:5.1}% {:.0} MiB ({:.0} MiB/s)",
                    "#".repeat(filled),
                    ".".repeat(30 - filled),
                    frac * 100.0,
                    mib,
                    rate
                )
            }
            _ => format!("\r{mib:.0} MiB ({rate:.0} MiB/s)"),
        };
        let _ = io::stderr().write_all(line.as_bytes());
    }

    fn done(&mut self) {
        if self.enabled {
            self.draw();
            let _ = io::stderr().write_all(b"\n");
        }
    }
}
