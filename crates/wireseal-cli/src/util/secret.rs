//! Secrets from the command line, a file (`-` = stdin) or an environment
//! variable, read with a size cap; errors name the option the user gave and
//! never quote what was given to it (neither the value nor the file or
//! variable name). Secret files are written with mode 0600 and never
//! replace anything but a regular file, and that only when asked.

use super::interrupt;
use anyhow::{anyhow, bail, Context, Result};
use std::io::{Read, Write};
use std::path::Path;
use zeroize::Zeroizing;

/// Most bytes read from a secret file or stdin: key files hold one hex line,
/// password files one line.
pub const SECRET_FILE_CAP: u64 = 64 * 1024;

/// Declares the three mutually exclusive options of one secret, `--NAME`
/// (inline, visible in the process list), `--NAME-file FILE` (`-` for stdin)
/// and `--NAME-env VAR`, as a struct to `#[command(flatten)]` whose clap group
/// refuses two sources. Its
/// `Debug` never shows the inline value; `text` gives the secret's text from
/// whichever option was given, `load::<N>` exactly `N` bytes of hex, and
/// `given_flag` the option that was given, for the caller's own errors. A
/// file may hold the bare value or a `NAME: VALUE` line among others.
macro_rules! secret_source {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            flags: [$flag:literal, $file_flag:literal, $env_flag:literal],
            value_name: $value_name:literal,
            help: [$help:literal, $file_help:literal, $env_help:literal $(,)?] $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Default, clap::Args)]
        #[group(multiple = false)]
        $vis struct $name {
            /// The secret itself.
            #[arg(id = $flag, long = $flag, value_name = $value_name, help = $help)]
            pub hex: Option<String>,
            /// A file holding the secret (`-` for stdin).
            #[arg(id = $file_flag, long = $file_flag, value_name = "FILE", help = $file_help)]
            pub file: Option<std::path::PathBuf>,
            /// An environment variable holding the secret.
            #[arg(id = $env_flag, long = $env_flag, value_name = "VAR", help = $env_help)]
            pub env: Option<String>,
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("hex", &self.hex.as_ref().map(|_| "redacted"))
                    .field("file", &self.file.as_ref().map(|_| "redacted"))
                    .field("env", &self.env.as_ref().map(|_| "redacted"))
                    .finish()
            }
        }

        #[allow(dead_code)]
        impl $name {
            /// The inline flag, the family's name.
            pub const FLAG: &'static str = concat!("--", $flag);

            /// The option the secret was given with (`--NAME`,
            /// `--NAME-file` or `--NAME-env`), to name in errors; the
            /// family's inline flag when none was given.
            pub fn given_flag(&self) -> &'static str {
                if self.file.is_some() {
                    concat!("--", $file_flag)
                } else if self.env.is_some() {
                    concat!("--", $env_flag)
                } else {
                    Self::FLAG
                }
            }

            /// The secret's text from whichever option was given (trimmed,
            /// wiped when dropped).
            pub fn text(&self) -> anyhow::Result<zeroize::Zeroizing<String>> {
                $crate::util::secret::read_secret_text(
                    self.hex.as_deref(),
                    self.file.as_deref(),
                    self.env.as_deref(),
                    [concat!("--", $flag), concat!("--", $file_flag), concat!("--", $env_flag)],
                )
            }

            /// Exactly `N` secret bytes, written as hex; errors name the
            /// option that was given.
            pub fn load<const N: usize>(&self) -> anyhow::Result<zeroize::Zeroizing<[u8; N]>> {
                $crate::util::secret::secret_hex(&self.text()?, self.given_flag())
            }

            /// Whether none of the three options was given.
            pub fn is_absent(&self) -> bool {
                self.hex.is_none() && self.file.is_none() && self.env.is_none()
            }
        }
    };
}
pub(crate) use secret_source;

secret_source! {
    /// Our private key (hex): on the command line, in a file or in an
    /// environment variable.
    pub struct KeySource {
        flags: ["key", "key-file", "key-env"],
        value_name: "HEX",
        help: [
            "Our private key as hex (visible to other local users in the process list; prefer --key-file or --key-env)",
            "Read our private key from this file (`-` for stdin), as `wireseal keygen` writes it",
            "Read our private key (hex) from this environment variable",
        ],
    }
}

/// Reads at most [`SECRET_FILE_CAP`] bytes of a secret file (`-` = stdin);
/// errors name `flag`, never the path. The bytes are wiped when dropped.
///
/// # Errors
///
/// The file cannot be read, or it is larger than the cap.
pub fn read_capped(path: &Path, flag: &str) -> Result<Zeroizing<Vec<u8>>> {
    let mut buf = Zeroizing::new(Vec::new());
    let res = if path.as_os_str() == "-" {
        super::input::claim_stdin(flag)?;
        std::io::stdin()
            .lock()
            .take(SECRET_FILE_CAP + 1)
            .read_to_end(&mut buf)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(SECRET_FILE_CAP + 1).read_to_end(&mut buf))
    };
    if let Err(e) = res {
        bail!("cannot read the file given to {flag}: {}", io_reason(&e));
    }
    if buf.len() as u64 > SECRET_FILE_CAP {
        bail!(
            "the file given to {flag} is larger than {} KiB; a secret file holds one line",
            SECRET_FILE_CAP / 1024
        );
    }
    Ok(buf)
}

/// The kind of an I/O error without the OS message's free text.
fn io_reason(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound => "no such file".into(),
        K::PermissionDenied => "permission denied".into(),
        K::IsADirectory => "it is a directory".into(),
        k => format!("{k}"),
    }
}

/// Reads a secret's text from whichever of its three sources was given:
/// inline, a file (`-` = stdin, capped) or an environment variable. `flags`
/// names the inline, file and env options. Accepts the bare value or, among
/// other lines, a `NAME: HEX` line where NAME is the family's name (the
/// inline flag without `--`: `secret: HEX` for `--secret-file`), `key` or
/// `private`; surrounding whitespace is trimmed.
///
/// # Errors
///
/// None given, unreadable or too large, not UTF-8, or an unset variable; the
/// message never quotes the value, the file name or the variable name.
pub fn read_secret_text(
    inline: Option<&str>,
    file: Option<&Path>,
    env: Option<&str>,
    flags: [&str; 3],
) -> Result<Zeroizing<String>> {
    let [flag, file_flag, env_flag] = flags;
    let text = if let Some(h) = inline {
        Zeroizing::new(h.to_owned())
    } else if let Some(f) = file {
        let raw = read_capped(f, file_flag)?;
        Zeroizing::new(
            std::str::from_utf8(&raw)
                .map_err(|_| anyhow!("the file given to {file_flag} is not UTF-8 text"))?
                .to_owned(),
        )
    } else if let Some(v) = env {
        if v.is_empty() || v.contains('=') || v.contains('\0') {
            bail!("{env_flag} takes the NAME of an environment variable (the value is not shown)");
        }
        Zeroizing::new(std::env::var(v).map_err(|_| {
            anyhow!("the environment variable named by {env_flag} is not set (or not UTF-8)")
        })?)
    } else {
        bail!("a value is required: give {flag}, {file_flag} or {env_flag}");
    };
    let family = flag.trim_start_matches('-');
    Ok(Zeroizing::new(
        labelled_value(&text, &[family, "key", "private"]).to_owned(),
    ))
}

/// The value of the first `LABEL: HEX` line, for the first of `labels` that
/// has one (`wireseal keygen`'s stdout, a mesh-key file), else the whole
/// text; trimmed.
fn labelled_value<'t>(text: &'t str, labels: &[&str]) -> &'t str {
    labels
        .iter()
        .find_map(|label| {
            text.lines().find_map(|l| {
                let v = l.trim().strip_prefix(label)?.strip_prefix(':')?.trim();
                (!v.is_empty() && v.bytes().all(|b| b.is_ascii_hexdigit())).then_some(v)
            })
        })
        .unwrap_or(text)
        .trim()
}

/// Writes `contents` to `path` with mode 0600 and then runs `announce`
/// (what the command prints about the file): a new file, or with `force` a
/// replacement for a regular file. Never replaces a directory, device,
/// FIFO or link.
///
/// The file is written through a partial file beside it, synced and moved
/// into place ([`interrupt::begin`]): a reader, a crash or a signal finds
/// `path` as it was or complete, never empty or cut. SIGINT, SIGTERM and
/// SIGHUP remove the partial file and exit 130 with a message saying
/// `path` was not written (or left as it was); a signal after the rename
/// waits for `announce` and exits 0.
///
/// # Errors
///
/// `path` exists (without `force`), is not a regular file, or cannot be
/// written.
pub fn write_secret_file(
    path: &Path,
    contents: &str,
    force: bool,
    announce: impl FnOnce(),
) -> Result<()> {
    let replacing = match std::fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_file() => bail!(
            "{} exists and is not a regular file; wireseal never replaces it",
            path.display()
        ),
        Ok(_) if !force => bail!("{} exists; add --force to replace it", path.display()),
        Ok(_) => true,
        Err(_) => false,
    };
    interrupt::install();
    let output = path.display().to_string();
    let mut part = interrupt::begin(&output, path, replacing)?;
    if let Err(e) = part.write_all(contents.as_bytes()) {
        interrupt::abandoned(part.path());
        return Err(e).with_context(|| format!("cannot write {output}"));
    }
    interrupt::finish(part, &output, announce)
}

/// Decodes a secret written as hex into exactly `N` bytes; errors never
/// quote any character of the input.
///
/// # Errors
///
/// Wrong length or not hex.
pub fn secret_hex<const N: usize>(text: &str, what: &str) -> Result<Zeroizing<[u8; N]>> {
    let compact: Zeroizing<String> = Zeroizing::new(text.split_whitespace().collect());
    let digits = compact.strip_prefix("0x").unwrap_or(&compact);
    let mut out = Zeroizing::new([0u8; N]);
    if digits.len() != 2 * N || hex::decode_to_slice(digits, &mut out[..]).is_err() {
        bail!(
            "{what}: expected {N} bytes written as {} hex digits (the value is not shown)",
            2 * N
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_from_env_and_file() {
        std::env::set_var("WIRESEAL_TEST_KEY", "0102");
        let s = KeySource {
            env: Some("WIRESEAL_TEST_KEY".into()),
            ..Default::default()
        };
        assert_eq!(*s.load::<2>().unwrap(), [1, 2]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k");
        std::fs::write(&path, "private: 0a0b\npublic:  ffff\n").unwrap();
        let s = KeySource {
            file: Some(path.clone()),
            ..Default::default()
        };
        assert_eq!(*s.load::<2>().unwrap(), [10, 11]);
        std::fs::write(&path, "0a0c\n").unwrap();
        assert_eq!(*s.load::<2>().unwrap(), [10, 12]);
        assert!(KeySource::default().load::<2>().is_err());
    }

    #[test]
    fn errors_name_the_option_given() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k");
        std::fs::write(&path, "0102\n").unwrap();
        let s = KeySource {
            file: Some(path),
            ..Default::default()
        };
        assert_eq!(s.given_flag(), "--key-file");
        let e = s.load::<32>().unwrap_err().to_string();
        assert!(e.starts_with("--key-file: expected 32 bytes"), "{e}");
        std::env::set_var("WIRESEAL_TEST_SHORT_KEY", "0102");
        let s = KeySource {
            env: Some("WIRESEAL_TEST_SHORT_KEY".into()),
            ..Default::default()
        };
        let e = s.load::<32>().unwrap_err().to_string();
        assert!(e.starts_with("--key-env: expected 32 bytes"), "{e}");
        let s = KeySource {
            hex: Some("0102".into()),
            ..Default::default()
        };
        let e = s.load::<32>().unwrap_err().to_string();
        assert!(e.starts_with("--key: expected 32 bytes"), "{e}");
    }

    #[test]
    fn labelled_lines_of_the_family() {
        let text = "# a mesh key\nmesh_id: CBE6FC55\nsecret: 0a0b\n";
        assert_eq!(labelled_value(text, &["secret", "key", "private"]), "0a0b");
        // Another family's file is not read as this one's value.
        assert_eq!(
            labelled_value(text, &["seed", "key", "private"]),
            text.trim()
        );
        assert_eq!(
            labelled_value("key: 0c0d\nsecret: 0a0b", &["secret", "key"]),
            "0a0b"
        );
        assert_eq!(
            labelled_value("private: 0a\npublic: ff", &["key", "private"]),
            "0a"
        );
        assert_eq!(
            labelled_value("secretive: 0a", &["secret"]),
            "secretive: 0a"
        );
    }

    #[test]
    fn secret_files_are_private_and_not_replaced_unasked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mesh.key");
        write_secret_file(&path, "secret: 0a0b\n", false, || {}).unwrap();
        let e = write_secret_file(&path, "other\n", false, || {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("exists; add --force"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "secret: 0a0b\n");
        write_secret_file(&path, "other\n", true, || {}).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "other\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let e = write_secret_file(dir.path(), "x", true, || {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a regular file"), "{e}");
    }

    #[test]
    fn errors_do_not_quote_the_secret() {
        assert_eq!(*secret_hex::<2>(" 0x0a0B\n", "k").unwrap(), [10, 11]);
        let e = secret_hex::<2>("0aZq", "k").unwrap_err().to_string();
        assert!(!e.contains('Z') && !e.contains('q'), "{e}");
        let e = secret_hex::<2>("0a0b0c", "k").unwrap_err().to_string();
        assert!(e.contains("expected 2 bytes") && !e.contains("0c"), "{e}");
        let secret = "c0ffee00c0ffee00";
        let s = KeySource {
            env: Some(secret.into()),
            ..Default::default()
        };
        let e = format!("{:#}", s.text().unwrap_err());
        assert!(!e.contains(secret), "{e}");
        let s = KeySource {
            file: Some(secret.into()),
            ..Default::default()
        };
        let e = format!("{:#}", s.text().unwrap_err());
        assert!(!e.contains(secret), "{e}");
    }
}
