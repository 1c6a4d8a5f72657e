//! Partial output files: `.wireseal-partial-PID-RANDOM` next to OUT, mode
//! 0600, locked (`flock`) by the run that writes it for as long as it
//! lives. A run killed outright (SIGKILL, a crash, a power cut) leaves its
//! file behind; the next run writing to the same folder finds it and
//! removes it, and says so on stderr.
//!
//! A leftover is removed only when its lock is free (its owner is gone:
//! the kernel drops a lock with the last descriptor) and, as a second
//! check against a run that has created its file but not locked it yet, its
//! owner PID is not alive or the file is over a minute old.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The name every partial file starts with.
pub(super) const PREFIX: &str = ".wireseal-partial-";

/// A leftover younger than this is kept if its owner PID is alive.
const FRESH: Duration = Duration::from_secs(60);

/// A new partial file in `dir`, locked by this process.
///
/// # Errors
///
/// The file cannot be created in `dir`.
pub(super) fn create_in(dir: &Path) -> Result<tempfile::NamedTempFile> {
    let tmp = tempfile::Builder::new()
        .prefix(&format!("{PREFIX}{}-", std::process::id()))
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    lock(tmp.as_file());
    Ok(tmp)
}

#[cfg(unix)]
fn lock(f: &std::fs::File) {
    use rustix::fs::{flock, FlockOperation};
    // Best effort: on a file system without locks the PID and age checks
    // still protect the file.
    let _ = flock(f, FlockOperation::NonBlockingLockExclusive);
}

#[cfg(not(unix))]
fn lock(_: &std::fs::File) {}

/// The owner PID in a partial file's name, if it has one.
fn owner(name: &str) -> Option<u32> {
    name.strip_prefix(PREFIX)?.split('-').next()?.parse().ok()
}

/// Whether the run that wrote `path` is gone, so its file may be removed.
#[cfg(unix)]
fn abandoned(path: &Path, name: &str) -> bool {
    use rustix::fs::{flock, FlockOperation};
    use rustix::process::{test_kill_process, Pid};
    let Ok(f) = std::fs::File::open(path) else {
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

/// What [`clean_up`] found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Leftovers {
    /// Files removed.
    pub(super) removed: Vec<PathBuf>,
    /// Abandoned files that could not be removed, with the reason.
    pub(super) kept: Vec<(PathBuf, String)>,
}

/// Removes the partial files in `dir` whose runs are gone.
pub(super) fn clean_up(dir: &Path) -> Leftovers {
    let mut found = Leftovers::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.starts_with(PREFIX) || !e.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let path = e.path();
        if !abandoned(&path, name) {
            continue;
        }
        match std::fs::remove_file(&path) {
            Ok(()) => found.removed.push(path),
            Err(err) => found.kept.push((path, err.to_string())),
        }
    }
    found
}

/// Removes the partial files in `dir` whose runs are gone and says so on
/// stderr.
pub(super) fn clean_up_and_report(dir: &Path) {
    let found = clean_up(dir);
    for p in &found.removed {
        eprintln!(
            "wireseal: removed {}, a partial output left by an interrupted run",
            p.display()
        );
    }
    for (p, why) in &found.kept {
        eprintln!(
            "wireseal: {} is a partial output left by an interrupted run; cannot remove it: {why}",
            p.display()
        );
    }
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

    #[cfg(unix)]
    #[test]
    fn live_files_are_kept_and_dead_ones_removed() {
        let d = tempfile::tempdir().unwrap();
        // Ours, locked and alive: kept.
        let mine = create_in(d.path()).unwrap();
        // A dead owner (PIDs above the kernel's maximum never exist), not
        // locked: removed.
        let dead = d.path().join(format!("{PREFIX}2147483647-zzz"));
        std::fs::write(&dead, b"unverified").unwrap();
        let found = clean_up(d.path());
        assert_eq!(found.removed, vec![dead.clone()]);
        assert!(mine.path().exists());
        assert!(!dead.exists());
    }
}
