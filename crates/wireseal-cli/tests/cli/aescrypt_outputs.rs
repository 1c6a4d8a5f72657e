//! `wireseal aescrypt` outputs that are not new regular
//! files: a FIFO and a character device are written as they are (decrypts
//! only after full verification) and stay what they were; block devices,
//! sockets, directories and dangling links are refused; `--force` replaces
//! only regular files. Also the default output names, `--password-file -`
//! and `/dev/zero`, the message for a damaged v3 iteration count, and the
//! removal of partial files left by killed runs.
#![cfg(unix)]

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support;

use support::{output_fed, BIN};

/// Runs `wireseal aescrypt ARGS` with the password `pw` in `WS_PW` and
/// `stdin` fed in.
fn ws(args: &[&str], stdin: &[u8]) -> Output {
    let mut c = Command::new(BIN);
    c.arg("aescrypt").args(args).env("WS_PW", "pw");
    output_fed(c, Some(stdin))
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn data(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 13 + i / 251) as u8).collect()
}

/// A folder with `in.bin` and its encryption `in.bin.aes` (v3, few
/// iterations, so the tests are quick).
fn setup(n: usize) -> (tempfile::TempDir, Vec<u8>) {
    let d = tempfile::tempdir().unwrap();
    let pt = data(n);
    let i = d.path().join("in.bin");
    std::fs::write(&i, &pt).unwrap();
    let o = ws(
        &[
            "encrypt",
            "--password-env",
            "WS_PW",
            "--iterations",
            "1000",
            i.to_str().unwrap(),
        ],
        b"",
    );
    assert!(o.status.success(), "{}", err(&o));
    (d, pt)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn mkfifo(p: &Path) -> bool {
    Command::new("mkfifo")
        .arg(p)
        .status()
        .is_ok_and(|s| s.success())
}

fn is_fifo(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_fifo())
}

/// `decrypt X.aes FIFO --force` leaves the FIFO a FIFO and its reader gets
/// the plaintext; so does a symlink to the FIFO. A wrong password never
/// opens the FIFO (the run ends without a reader). Encrypting into a FIFO
/// streams the ciphertext.
#[test]
fn a_fifo_output_stays_a_fifo_and_its_reader_gets_the_plaintext() {
    let (d, pt) = setup(300_000);
    let fifo = d.path().join("pipe");
    if !mkfifo(&fifo) {
        eprintln!("SKIPPED: mkfifo is not available");
        return;
    }
    std::os::unix::fs::symlink(&fifo, d.path().join("link")).unwrap();
    let aes = d.path().join("in.bin.aes");
    for (out, force) in [("pipe", true), ("pipe", false), ("link", true)] {
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let mut got = Vec::new();
                std::fs::File::open(fifo)
                    .unwrap()
                    .read_to_end(&mut got)
                    .unwrap();
                got
            })
        };
        let target = d.path().join(out);
        let mut args = vec!["decrypt", "--password-env", "WS_PW", s(&aes), s(&target)];
        if force {
            args.push("--force");
        }
        let o = ws(&args, b"");
        assert!(o.status.success(), "{out}: {}", err(&o));
        assert!(
            reader.join().unwrap() == pt,
            "{out}: reader got other bytes"
        );
        assert!(is_fifo(&fifo), "{out}: the FIFO was replaced");
    }
    // A wrong password: refused before the FIFO is opened (were it opened,
    // the run would wait for a reader forever).
    let t0 = Instant::now();
    let mut child = Command::new(BIN)
        .args(["aescrypt", "decrypt", "--password-env", "WS_PW", "--force"])
        .args([&aes, &fifo])
        .env("WS_PW", "wrong")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            assert!(!st.success());
            break;
        }
        if t0.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("a failed decrypt opened the FIFO and waited for a reader");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(is_fifo(&fifo));
    // Encrypting into the FIFO: the reader gets a stream that decrypts.
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut got = Vec::new();
            std::fs::File::open(fifo)
                .unwrap()
                .read_to_end(&mut got)
                .unwrap();
            got
        })
    };
    let o = ws(
        &[
            "encrypt",
            "--password-env",
            "WS_PW",
            "--iterations",
            "1000",
            s(&d.path().join("in.bin")),
            s(&fifo),
        ],
        b"",
    );
    assert!(o.status.success(), "{}", err(&o));
    let ct = reader.join().unwrap();
    assert!(is_fifo(&fifo));
    let o = ws(&["decrypt", "--password-env", "WS_PW", "-", "-"], &ct);
    assert!(o.status.success(), "{}", err(&o));
    assert!(o.stdout == pt);
}

/// `/dev/null` (a character device) as OUT, with and without --force: the
/// run succeeds and the device stays a device. Where /dev/null cannot be
/// written, the test says so and stops.
#[test]
fn a_character_device_output_stays_a_device() {
    let (d, _) = setup(100_000);
    if std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .is_err()
    {
        eprintln!("SKIPPED: /dev/null cannot be opened for writing here");
        return;
    }
    let aes = d.path().join("in.bin.aes");
    for force in [true, false] {
        let mut args = vec!["decrypt", "--password-env", "WS_PW", s(&aes), "/dev/null"];
        if force {
            args.push("--force");
        }
        let o = ws(&args, b"");
        assert!(o.status.success(), "{}", err(&o));
        let m = std::fs::symlink_metadata("/dev/null").unwrap();
        assert!(m.file_type().is_char_device(), "/dev/null was replaced");
    }
    let o = ws(
        &[
            "encrypt",
            "--password-env",
            "WS_PW",
            "--force",
            s(&d.path().join("in.bin")),
            "/dev/null",
        ],
        b"",
    );
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
}

/// What is neither a regular file nor a FIFO or character device is
/// refused, with --force too, and left as it was.
#[test]
fn sockets_directories_and_dangling_links_are_refused() {
    let (d, _) = setup(10_000);
    let aes = d.path().join("in.bin.aes");
    let sock = d.path().join("sock");
    let _l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let dir = d.path().join("dir");
    std::fs::create_dir(&dir).unwrap();
    let dangling = d.path().join("dangling");
    std::os::unix::fs::symlink(d.path().join("nowhere"), &dangling).unwrap();
    for (out, says) in [
        (&sock, "is a socket"),
        (&dir, "is a directory"),
        (&dangling, "symbolic link to nothing"),
    ] {
        let o = ws(
            &[
                "decrypt",
                "--password-env",
                "WS_PW",
                "--force",
                s(&aes),
                s(out),
            ],
            b"",
        );
        assert!(!o.status.success());
        assert!(err(&o).contains(says), "{}", err(&o));
    }
    assert!(std::fs::symlink_metadata(&sock)
        .unwrap()
        .file_type()
        .is_socket());
    assert!(dir.is_dir() && std::fs::read_dir(&dir).unwrap().next().is_none());
    assert!(!d.path().join("nowhere").exists());
    // A block device, where one exists (refused without opening it).
    let block = ["/dev/loop0", "/dev/sda", "/dev/vda", "/dev/nvme0n1"]
        .into_iter()
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device()));
    match block {
        Some(b) => {
            let o = ws(
                &["decrypt", "--password-env", "WS_PW", "--force", s(&aes), b],
                b"",
            );
            assert!(!o.status.success());
            assert!(err(&o).contains("is a block device"), "{}", err(&o));
        }
        None => eprintln!("note: no block device node to test against"),
    }
}

/// A regular OUT is replaced only with --force; a symlink to one has its
/// target replaced and stays a link.
#[test]
fn force_replaces_regular_files_only() {
    let (d, pt) = setup(50_000);
    let aes = d.path().join("in.bin.aes");
    let old = d.path().join("old");
    std::fs::write(&old, b"old contents").unwrap();
    let o = ws(
        &["decrypt", "--password-env", "WS_PW", s(&aes), s(&old)],
        b"",
    );
    assert!(!o.status.success());
    assert!(err(&o).contains("use --force"), "{}", err(&o));
    assert_eq!(std::fs::read(&old).unwrap(), b"old contents");
    let link = d.path().join("link");
    std::os::unix::fs::symlink(&old, &link).unwrap();
    let o = ws(
        &[
            "decrypt",
            "--password-env",
            "WS_PW",
            "--force",
            s(&aes),
            s(&link),
        ],
        b"",
    );
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read(&old).unwrap() == pt);
}

/// OUT left out: `x` -> `x.aes`, `x.aes` -> `x`; a name without `.aes`
/// has no default on decrypt.
#[test]
fn default_output_names() {
    let (d, pt) = setup(20_000);
    let aes = d.path().join("in.bin.aes");
    assert!(aes.exists(), "encrypt without OUT writes IN.aes");
    let plain = d.path().join("in.bin");
    std::fs::remove_file(&plain).unwrap();
    let o = ws(&["decrypt", "--password-env", "WS_PW", s(&aes)], b"");
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::read(&plain).unwrap() == pt);
    // Exists now: refused without --force.
    let o = ws(&["decrypt", "--password-env", "WS_PW", s(&aes)], b"");
    assert!(!o.status.success());
    let o = ws(&["decrypt", "--password-env", "WS_PW", s(&plain)], b"");
    assert!(!o.status.success());
    assert!(err(&o).contains("give OUT"), "{}", err(&o));
}

/// `--password-file -` reads stdin; `/dev/zero` fails fast; stdin cannot
/// be both the password and IN.
#[test]
fn password_file_from_stdin_and_bounded() {
    let (d, pt) = setup(20_000);
    let aes = d.path().join("in.bin.aes");
    let o = ws(
        &["decrypt", "--password-file", "-", s(&aes), "-"],
        b"pw\nignored\n",
    );
    assert!(o.status.success(), "{}", err(&o));
    assert!(o.stdout == pt);
    let t0 = Instant::now();
    let o = ws(
        &["decrypt", "--password-file", "/dev/zero", s(&aes), "-"],
        b"",
    );
    assert!(!o.status.success());
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    assert!(err(&o).contains("larger than"), "{}", err(&o));
    assert!(o.stdout.is_empty());
    let ct = std::fs::read(&aes).unwrap();
    let o = ws(&["decrypt", "--password-file", "-", "-", "-"], &ct);
    assert!(!o.status.success());
    assert!(err(&o).contains("stdin"), "{}", err(&o));
}

/// A v2 file whose version octet was changed to 3: its iteration count is
/// read from bytes that are not one, and the message says the header is
/// not a valid v3 header instead of quoting a request.
#[test]
fn a_v2_header_relabelled_v3_is_an_invalid_header() {
    let (d, _) = setup(1000);
    let i = d.path().join("in.bin");
    let v2 = d.path().join("v2.aes");
    let o = ws(
        &[
            "encrypt",
            "--password-env",
            "WS_PW",
            "--format",
            "v2",
            s(&i),
            s(&v2),
        ],
        b"",
    );
    assert!(o.status.success(), "{}", err(&o));
    let mut ct = std::fs::read(&v2).unwrap();
    assert_eq!(ct[3], 2);
    ct[3] = 3;
    let o = ws(&["decrypt", "--password-env", "WS_PW", "-", "-"], &ct);
    assert!(!o.status.success());
    let e = err(&o);
    assert!(!e.contains("asks for"), "{e}");
    assert!(e.contains("not a valid version 3 header"), "{e}");
    assert!(o.stdout.is_empty());
}

/// A partial file left by a killed run (dead owner, unlocked) is removed by
/// the next run writing into that folder, which says so; a partial file
/// of a live run is left alone.
#[test]
fn partial_files_of_killed_runs_are_removed_by_the_next_run() {
    let (d, _) = setup(20_000);
    let dead = d.path().join(".wireseal-partial-2147483647-AbCdEf");
    std::fs::write(&dead, b"unverified plaintext").unwrap();
    let live = d
        .path()
        .join(format!(".wireseal-partial-{}-XyZ", std::process::id()));
    let live_file = std::fs::File::create(&live).unwrap();
    rustix::fs::flock(&live_file, rustix::fs::FlockOperation::LockExclusive).unwrap();
    let aes = d.path().join("in.bin.aes");
    let o = ws(
        &[
            "decrypt",
            "--password-env",
            "WS_PW",
            s(&aes),
            s(&d.path().join("out.bin")),
        ],
        b"",
    );
    assert!(o.status.success(), "{}", err(&o));
    assert!(!dead.exists(), "the dead run's partial file is still there");
    assert!(live.exists(), "a live run's partial file was removed");
    assert!(err(&o).contains("AbCdEf"), "{}", err(&o));
    assert!(err(&o).contains("interrupted run"), "{}", err(&o));
}
