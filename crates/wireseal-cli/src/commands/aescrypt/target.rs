//! What OUT is, decided before any work: stdout, a regular file (new, or
//! replaced with `--force`), or a FIFO or character device written to
//! directly. Nothing that is not a regular file is ever replaced: a block
//! device, a socket or a directory is refused, and so is OUT when it is IN
//! under another name.

use anyhow::{bail, Result};
use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// Where the output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Target {
    /// Standard output (`-`).
    Stdout,
    /// A regular file at `path`, written to a partial file in the same
    /// folder and renamed over `path`; `replacing` when it exists (then
    /// `--force` was given; the library replaces a symlink's target).
    File { path: PathBuf, replacing: bool },
    /// An existing FIFO or character device, opened for writing as it is.
    Stream { path: PathBuf, kind: &'static str },
}

/// OUT when it is not given: `x` -> `x.aes` on encrypt, `x.aes` -> `x` on
/// decrypt, `-` -> `-`.
///
/// # Errors
///
/// Decrypting an input whose name does not end in `.aes`.
pub(super) fn default_output(input: &str, encrypt: bool) -> Result<String> {
    if input == "-" {
        return Ok("-".into());
    }
    if encrypt {
        return Ok(format!("{input}.aes"));
    }
    match input.strip_suffix(".aes") {
        Some(stem) if !stem.is_empty() && !stem.ends_with('/') => Ok(stem.to_owned()),
        _ => bail!("{input} does not end in .aes, so there is no default output name; give OUT"),
    }
}

/// Device and inode of a file, to recognise one file under two names
/// (a hard link, a symlink, `/proc/self/fd/N`).
#[cfg(unix)]
fn file_id(m: &Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &Metadata) -> Option<(u64, u64)> {
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
    let fd = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    let m = std::fs::File::from(fd).metadata().ok()?;
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

/// What kind of non-regular file `m` is, and whether it may be written to
/// directly: `Ok(kind)` for a FIFO or character device, `Err(why)` for the
/// rest.
#[cfg(unix)]
fn special_kind(m: &Metadata) -> std::result::Result<&'static str, &'static str> {
    use std::os::unix::fs::FileTypeExt;
    let t = m.file_type();
    if t.is_fifo() {
        Ok("FIFO")
    } else if t.is_char_device() {
        Ok("character device")
    } else if t.is_block_device() {
        Err(
            "is a block device; refusing to write to it (to restore a disk image, \
             write to stdout with `-` and redirect it)",
        )
    } else if t.is_socket() {
        Err("is a socket; it cannot be opened as an output")
    } else {
        Err("is not a regular file")
    }
}

#[cfg(not(unix))]
fn special_kind(_: &Metadata) -> std::result::Result<&'static str, &'static str> {
    Err("is not a regular file")
}

/// Decides where OUT goes; refuses to write into IN (same path, a symlink
/// or hard link to it, or stdout redirected into it), to replace an
/// existing regular file without `force`, and to replace or write into
/// anything that is neither a regular file nor a FIFO or character device.
///
/// # Errors
///
/// Each refusal above, with what OUT is.
pub(super) fn resolve(input: &str, output: &str, force: bool) -> Result<Target> {
    let in_id = if input == "-" { None } else { path_id(input) };
    if output == "-" {
        if in_id.is_some() && in_id == stdout_id() {
            bail!("stdout is the input file {input}; refusing to write into it");
        }
        return Ok(Target::Stdout);
    }
    let path = Path::new(output);
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(Target::File {
            path: path.to_path_buf(),
            replacing: false,
        });
    }
    let Ok(m) = std::fs::metadata(path) else {
        bail!("{output} is a symbolic link to nothing; refusing to write through it");
    };
    let same_path = input != "-"
        && matches!(
            (Path::new(input).canonicalize(), path.canonicalize()),
            (Ok(a), Ok(b)) if a == b
        );
    if same_path || (in_id.is_some() && in_id == file_id(&m)) {
        bail!("the output {output} is the input; refusing to overwrite it");
    }
    if m.is_dir() {
        bail!("{output} is a directory");
    }
    if !m.is_file() {
        return match special_kind(&m) {
            Ok(kind) => Ok(Target::Stream {
                path: path.to_path_buf(),
                kind,
            }),
            Err(why) => bail!("{output} {why}"),
        };
    }
    if !force {
        bail!("{output} exists; use --force to replace it");
    }
    Ok(Target::File {
        path: path.to_path_buf(),
        replacing: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names() {
        assert_eq!(default_output("x", true).unwrap(), "x.aes");
        assert_eq!(default_output("d/x.aes", false).unwrap(), "d/x");
        assert_eq!(default_output("-", false).unwrap(), "-");
        assert!(default_output("x.bin", false).is_err());
        assert!(default_output(".aes", false).is_err());
        assert!(default_output("d/.aes", false).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn kinds_of_output() {
        let d = tempfile::tempdir().unwrap();
        let p = |n: &str| d.path().join(n).to_str().unwrap().to_owned();
        std::fs::write(p("in"), b"x").unwrap();
        std::fs::write(p("old"), b"y").unwrap();
        assert_eq!(
            resolve(&p("in"), &p("new"), false).unwrap(),
            Target::File {
                path: p("new").into(),
                replacing: false
            }
        );
        assert!(resolve(&p("in"), &p("old"), false).is_err());
        assert!(resolve(&p("in"), &p("in"), true).is_err());
        assert!(resolve(&p("in"), d.path().to_str().unwrap(), true).is_err());
        std::os::unix::fs::symlink(p("old"), p("link")).unwrap();
        assert_eq!(
            resolve(&p("in"), &p("link"), true).unwrap(),
            Target::File {
                path: p("link").into(),
                replacing: true
            }
        );
        assert!(matches!(
            resolve(&p("in"), "/dev/null", true).unwrap(),
            Target::Stream {
                kind: "character device",
                ..
            }
        ));
    }
}
