//! `wireseal_io::PartialFile`, the output every driver writes through:
//! written beside the target, moved into place only by `persist`, never
//! replacing what it must not, and the partial files of killed runs
//! cleaned up by the next run into the same folder.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};
use wireseal::aescrypt::io::decrypt_into_sink;
use wireseal::aescrypt::{encrypt_to_vec, EncryptOptions, Error, Limits};
use wireseal::batch::Batch;
use wireseal_io::{clean_up_leftovers, PartialFile, Replace, PARTIAL_PREFIX};

fn partials(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(PARTIAL_PREFIX)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn persist_moves_the_whole_file_into_place() {
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("out");
    let mut p = PartialFile::create(&target, Replace::Refuse).unwrap();
    let name = p.path().file_name().unwrap().to_str().unwrap().to_owned();
    let pid = std::process::id().to_string();
    assert!(
        name.starts_with(&format!("{PARTIAL_PREFIX}{pid}-")),
        "{name}"
    );
    assert_eq!(p.path().parent(), Some(d.path()));
    std::io::Write::write_all(&mut p, b"complete").unwrap();
    assert!(!target.exists(), "nothing at the target before persist");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(p.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    p.persist().unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), b"complete");
    assert!(partials(d.path()).is_empty());
}

#[test]
fn dropped_unfinished_leaves_nothing() {
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("out");
    let mut p = PartialFile::create(&target, Replace::Refuse).unwrap();
    std::io::Write::write_all(&mut p, b"half").unwrap();
    assert_eq!(partials(d.path()).len(), 1);
    drop(p);
    assert!(partials(d.path()).is_empty());
    assert!(!target.exists());
}

#[test]
fn refuse_keeps_an_existing_target_and_allow_replaces_only_regular_files() {
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("out");
    let p = PartialFile::create(&target, Replace::Refuse).unwrap();
    std::fs::write(&target, b"appeared meanwhile").unwrap();
    let e = p.persist().unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
    assert_eq!(std::fs::read(&target).unwrap(), b"appeared meanwhile");
    assert!(partials(d.path()).is_empty(), "removed after the failure");

    let mut p = PartialFile::create(&target, Replace::Allow).unwrap();
    std::io::Write::write_all(&mut p, b"new").unwrap();
    p.persist().unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), b"new");

    let dir_target = d.path().join("a-dir");
    std::fs::create_dir(&dir_target).unwrap();
    let p = PartialFile::create(&dir_target, Replace::Allow).unwrap();
    assert!(p.persist().is_err());
    assert!(dir_target.is_dir());
    assert!(partials(d.path()).is_empty());
}

#[cfg(unix)]
#[test]
fn a_symlink_target_replaces_the_file_it_points_to() {
    let d = tempfile::tempdir().unwrap();
    let real = d.path().join("real");
    std::fs::write(&real, b"old").unwrap();
    let link = d.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let mut p = PartialFile::create(&link, Replace::Allow).unwrap();
    assert_eq!(p.target(), real.canonicalize().unwrap());
    std::io::Write::write_all(&mut p, b"new").unwrap();
    p.persist().unwrap();
    assert_eq!(std::fs::read(&real).unwrap(), b"new");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let dangling = d.path().join("dangling");
    std::os::unix::fs::symlink(d.path().join("nowhere"), &dangling).unwrap();
    assert!(PartialFile::create(&dangling, Replace::Allow).is_err());
}

/// Unverified plaintext in the partial file: emptied and removed when the
/// HMAC fails, the target untouched; moved into place after success.
#[test]
fn as_a_provisional_sink() {
    let b = Batch::all_cores();
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("plain");
    std::fs::write(&target, b"keep me").unwrap();
    let pt: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    let ct = encrypt_to_vec(&b, "pw", &pt, &EncryptOptions::v2()).unwrap();
    let mut bad = ct.clone();
    let i = bad.len() - 40;
    bad[i] ^= 1;
    let mut sink = PartialFile::create(&target, Replace::Allow).unwrap();
    let e = decrypt_into_sink(&b, "pw", &bad[..], &mut sink, &Limits::default()).unwrap_err();
    assert_eq!(e.format(), Some(Error::Auth));
    assert_eq!(
        sink.file().metadata().unwrap().len(),
        0,
        "discard empties it"
    );
    drop(sink);
    assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
    assert!(partials(d.path()).is_empty());

    let mut sink = PartialFile::create(&target, Replace::Allow).unwrap();
    decrypt_into_sink(&b, "pw", &ct[..], &mut sink, &Limits::default()).unwrap();
    sink.persist().unwrap();
    assert!(std::fs::read(&target).unwrap() == pt);
}

/// Partial files of dead owners are removed (by `create` too, and what it
/// removed is reported); a locked one, and an unlocked one whose owner is
/// alive and which is fresh, stay; an unlocked one over a minute old goes.
#[cfg(unix)]
#[test]
fn leftovers_of_runs_that_are_gone_are_removed() {
    let d = tempfile::tempdir().unwrap();
    let live_locked = PartialFile::create(&d.path().join("x"), Replace::Refuse).unwrap();
    // PIDs above the kernel's maximum never exist.
    let dead = d.path().join(format!("{PARTIAL_PREFIX}2147483647-aaaaaa"));
    std::fs::write(&dead, b"unverified").unwrap();
    let me = std::process::id();
    let fresh_unlocked = d.path().join(format!("{PARTIAL_PREFIX}{me}-bbbbbb"));
    std::fs::write(&fresh_unlocked, b"being created").unwrap();
    let old_unlocked = d.path().join(format!("{PARTIAL_PREFIX}{me}-cccccc"));
    std::fs::write(&old_unlocked, b"stale").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&old_unlocked)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(120))
        .unwrap();
    let not_ours = d.path().join(".wireseal-other-1");
    std::fs::write(&not_ours, b"x").unwrap();

    let found = clean_up_leftovers(d.path());
    let mut removed = found.removed.clone();
    removed.sort();
    let mut want = vec![dead.clone(), old_unlocked.clone()];
    want.sort();
    assert_eq!(removed, want);
    assert!(found.kept.is_empty());
    assert!(live_locked.path().exists());
    assert!(fresh_unlocked.exists());
    assert!(not_ours.exists());

    std::fs::write(&dead, b"unverified").unwrap();
    let next = PartialFile::create(&d.path().join("y"), Replace::Refuse).unwrap();
    assert_eq!(next.leftovers().removed, vec![dead.clone()]);
    assert!(!dead.exists());
}
