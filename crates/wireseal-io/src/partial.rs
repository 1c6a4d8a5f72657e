//! [`PartialFile`]: an output written beside its target and moved into
//! place only when complete, and the clean-up of what killed runs left.
//!
//! Every driver (the command line, Python) writes files this way, so a
//! partial file left by one is recognised and removed by the other: one
//! name, `.wireseal-partial-PID-RANDOM` in the target's folder, mode 0600,
//! locked (`flock`) by its writer for as long as the writer lives.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
#[cfg(unix)]
use std::time::Duration;
use wireseal::aescrypt::io::Error;
use wireseal::aescrypt::ProvisionalSink;

/// The name every partial file starts with.
pub const PARTIAL_PREFIX: &str = ".wireseal-partial-";

/// A leftover younger than this is kept while its owner PID is alive.
#[cfg(unix)]
const FRESH: Duration = Duration::from_secs(60);

/// Whether [`PartialFile::persist`] may replace an existing regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replace {
    /// Fail with `AlreadyExists` when the target exists.
    Refuse,
    /// Replace an existing regular file (never anything else).
    Allow,
}

/// An output file written under a private name beside its target and
/// renamed over the target only by [`persist`](Self::persist): readers of
/// the target see the old file or the complete new one, never a part.
///
/// [`create`](Self::create) first removes the partial files of runs that
/// are gone from the target's folder (see [`clean_up_leftovers`]; what it
/// removed is in [`leftovers`](Self::leftovers)), then creates
/// `.wireseal-partial-PID-RANDOM` there, mode 0600, and locks it. Dropping
/// it without `persist` deletes it. As a [`ProvisionalSink`] it holds
/// unverified plaintext: nothing reaches the target unless `persist` is
/// called after the decryption succeeded; `discard` empties the file.
#[derive(Debug)]
pub struct PartialFile {
    file: File,
    path: PathBuf,
    target: PathBuf,
    replace: Replace,
    leftovers: Leftovers,
    done: bool,
}

impl PartialFile {
    /// Starts writing `target` (a symbolic link is followed: its target is
    /// the file replaced, the link stays).
    ///
    /// # Errors
    ///
    /// `target` is a dangling link, or the partial file cannot be created
    /// in its folder.
    pub fn create(target: &Path, replace: Replace) -> io::Result<Self> {
        let target = resolve_link(target)?;
        let dir = folder(&target);
        let leftovers = clean_up_leftovers(&dir);
        let (file, path) = create_in(&dir)?;
        Ok(Self {
            file,
            path,
            target,
            replace,
            leftovers,
            done: false,
        })
    }

    /// The partial file, to write to.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Where the partial file is (for a signal handler that removes it).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file [`persist`](Self::persist) replaces or creates.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The partial files of earlier runs found in the target's folder.
    pub fn leftovers(&self) -> &Leftovers {
        &self.leftovers
    }

    /// Flushes the partial file's data to disk (done again by
    /// [`persist`](Self::persist), then cheap).
    ///
    /// # Errors
    ///
    /// `fsync` failed.
    pub fn sync(&self) -> io::Result<()> {
        self.file.sync_all()
    }

    /// Flushes the file to disk, renames it over the target and flushes the
    /// folder, so after a crash the target is the old file or the whole new
    /// one.
    ///
    /// # Errors
    ///
    /// Flushing or renaming failed; the target appeared meanwhile (with
    /// [`Replace::Refuse`], `AlreadyExists`) or became something other than
    /// a regular file. The partial file is removed then.
    pub fn persist(self) -> io::Result<()> {
        self.persist_with(|rename| rename())
    }

    /// As [`persist`](Self::persist), with the rename and the folder's
    /// flush that records it (not the file's flush before them) run inside
    /// `around`: a driver's signal handler can hold its lock over just the
    /// moment the target changes, and whatever the driver does next inside
    /// `around` follows a rename already on disk.
    ///
    /// # Errors
    ///
    /// As [`persist`](Self::persist), or what `around` returns.
    pub fn persist_with<F>(mut self, around: F) -> io::Result<()>
    where
        F: FnOnce(&mut dyn FnMut() -> io::Result<()>) -> io::Result<()>,
    {
        self.file.sync_all()?;
        let (from, to, replace) = (&self.path, &self.target, self.replace);
        let dir = folder(to);
        around(&mut || {
            match std::fs::symlink_metadata(to) {
                Ok(m) if !m.is_file() => {
                    return Err(io::Error::new(
                        io::ErrorKind::AlreadyExists,
                        format!("{} is not a regular file; not replacing it", to.display()),
                    ))
                }
                _ => {}
            }
            match replace {
                Replace::Allow => std::fs::rename(from, to),
                Replace::Refuse => rename_no_replace(from, to),
            }?;
            // The rename itself on disk (best effort: not every system lets
            // a folder be opened).
            if let Ok(d) = File::open(&dir) {
                let _ = d.sync_all();
            }
            Ok(())
        })?;
        self.done = true;
        Ok(())
    }
}

impl Drop for PartialFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl Write for PartialFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Write for &PartialFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        (&self.file).write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        (&self.file).flush()
    }
}

/// Holds unverified plaintext in the partial file; `commit` leaves the
/// release to [`PartialFile::persist`], `discard` empties the file.
impl ProvisionalSink for PartialFile {
    type Error = Error;

    fn write_unverified(&mut self, plaintext: &[u8]) -> Result<(), Error> {
        Ok(self.file.write_all(plaintext)?)
    }

    fn commit(&mut self) -> Result<(), Error> {
        Ok(())
    }

    fn discard(&mut self) {
        let _ = self.file.set_len(0);
    }
}

/// The folder a file at `path` is in (`.` for a bare name).
fn folder(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `path`, or the file a symbolic link at `path` points to.
fn resolve_link(path: &Path) -> io::Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => path.canonicalize().map_err(|_| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "{} is a symbolic link to nothing; refusing to write through it",
                    path.display()
                ),
            )
        }),
        _ => Ok(path.to_path_buf()),
    }
}

/// A new, locked partial file in `dir`.
fn create_in(dir: &Path) -> io::Result<(File, PathBuf)> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let pid = std::process::id();
    loop {
        let r: [u8; 6] = wireseal::entropy::random_array();
        let hex: String = r.iter().map(|b| format!("{b:02x}")).collect();
        let path = dir.join(format!("{PARTIAL_PREFIX}{pid}-{hex}"));
        match opts.open(&path) {
            Ok(file) => {
                lock(&file);
                return Ok((file, path));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("cannot create a temporary file in {}: {e}", dir.display()),
                ))
            }
        }
    }
}

/// Renames `from` to `to` unless `to` exists (`AlreadyExists` then).
fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            // A file system without the flag: the link below.
            Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {}
            Err(e) => return Err(e.into()),
        }
    }
    std::fs::hard_link(from, to)?;
    std::fs::remove_file(from)
}

#[cfg(unix)]
fn lock(f: &File) {
    use rustix::fs::{flock, FlockOperation};
    // A clean-up elsewhere may hold the lock for the moment it takes to
    // look at the file: wait for it, briefly. Best effort: on a file system
    // without locks the PID and age checks still protect the file.
    for _ in 0..200 {
        match flock(f, FlockOperation::NonBlockingLockExclusive) {
            Err(e) if e == rustix::io::Errno::WOULDBLOCK => {
                std::thread::sleep(Duration::from_millis(1))
            }
            _ => return,
        }
    }
}

#[cfg(not(unix))]
fn lock(_: &File) {}

/// The owner PID in a partial file's name, if it has one.
#[cfg(any(unix, test))]
fn owner(name: &str) -> Option<u32> {
    name.strip_prefix(PARTIAL_PREFIX)?
        .split('-')
        .next()?
        .parse()
        .ok()
}

/// Whether the run that wrote `path` is gone, so its file may be removed:
/// its lock is free (the kernel drops a lock with the last descriptor),
/// and, against a run that has created its file but not locked it yet, its
/// owner PID is not alive or the file is over a minute old.
#[cfg(unix)]
fn abandoned(path: &Path, name: &str) -> bool {
    use rustix::fs::{flock, FlockOperation};
    use rustix::process::{test_kill_process, Pid};
    let Ok(f) = File::open(path) else {
        return false;
    };
    if flock(&f, FlockOperation::NonBlockingLockExclusive).is_err() {
        return false;
    }
    let alive = owner(name)
        .and_then(|p| i32::try_from(p).ok())
        .and_then(Pid::from_raw)
        .is_some_and(|pid| {
            // EPERM: alive, owned by someone else.
            !matches!(test_kill_process(pid), Err(e) if e == rustix::io::Errno::SRCH)
        });
    let old = f
        .metadata()
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > FRESH);
    !alive || old
}

#[cfg(not(unix))]
fn abandoned(_: &Path, _: &str) -> bool {
    false
}

/// What [`clean_up_leftovers`] found.
#[derive(Debug, Default)]
pub struct Leftovers {
    /// Partial files of runs that are gone, removed.
    pub removed: Vec<PathBuf>,
    /// Partial files of runs that are gone that could not be removed, with
    /// the reason.
    pub kept: Vec<(PathBuf, io::Error)>,
}

/// Removes the partial files (named `.wireseal-partial-PID-RANDOM`) in
/// `dir` whose runs are gone: a run killed outright (SIGKILL, a crash, a
/// power cut) leaves its partial file behind. A file whose lock is held,
/// or whose owner is alive and which is under a minute old, is left alone.
pub fn clean_up_leftovers(dir: &Path) -> Leftovers {
    let mut found = Leftovers::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.starts_with(PARTIAL_PREFIX) || !e.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let path = e.path();
        if !abandoned(&path, name) {
            continue;
        }
        match std::fs::remove_file(&path) {
            Ok(()) => found.removed.push(path),
            Err(err) => found.kept.push((path, err)),
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_pid_from_the_name() {
        assert_eq!(owner(".wireseal-partial-4242-abc123"), Some(4242));
        assert_eq!(owner(".wireseal-partial-abc123"), None);
        assert_eq!(owner("x"), None);
    }
}
