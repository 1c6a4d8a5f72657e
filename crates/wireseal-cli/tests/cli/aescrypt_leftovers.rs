//! The command line and the Python package write AES Crypt outputs through
//! one kind of partial file (`.wireseal-partial-PID-RANDOM`, the library's
//! `wireseal_io::PartialFile`), so each cleans up what the other left:
//! a run of either killed with SIGKILL while writing leaves its partial
//! file, and the next run of the other into the same folder removes it and
//! says so (stderr for the command line, a `RuntimeWarning` in Python).
//!
//! Python is `$WIRESEAL_PYTHON`, else the virtual environment
//! `scripts/test-python.sh` builds (`target/python-venv`); it must import
//! `wireseal`. Without it the test fails, unless
//! `WIRESEAL_ALLOW_MISSING_PEERS=1` turns that into a printed skip.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support;

use support::{Rng, BIN};

const PARTIAL_PREFIX: &str = ".wireseal-partial-";
const PASSWORD: &str = "correct horse battery staple";

/// A Python that imports `wireseal`, or None after a permitted skip.
fn python() -> Option<PathBuf> {
    let py = std::env::var_os("WIRESEAL_PYTHON")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/python-venv/bin/python")
        });
    let ok = Command::new(&py)
        .args(["-c", "import wireseal.aescrypt"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(py);
    }
    let why = format!(
        "{} cannot import wireseal (build it with scripts/test-python.sh)",
        py.display()
    );
    assert!(
        std::env::var_os("WIRESEAL_ALLOW_MISSING_PEERS").is_some(),
        "{why}; set WIRESEAL_ALLOW_MISSING_PEERS=1 to skip"
    );
    println!("skipped: {why}");
    None
}

/// Partial files in `dir`, by name.
fn partials(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(PARTIAL_PREFIX))
        .collect();
    v.sort();
    v
}

/// Starts `cmd`, waits until its partial file in `dir` holds data, kills it
/// with SIGKILL and returns the partial file's name (which carries the
/// killed process's id).
fn kill_while_writing(mut cmd: Command, dir: &Path) -> String {
    let mut child: Child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let name = loop {
        let found = partials(dir)
            .into_iter()
            .find(|n| std::fs::metadata(dir.join(n)).is_ok_and(|m| m.len() > 0));
        if let Some(n) = found {
            break n;
        }
        if let Some(st) = child.try_wait().unwrap() {
            panic!("finished before it could be killed: {st:?}");
        }
        assert!(t0.elapsed() < Duration::from_secs(60), "no partial file");
        std::thread::sleep(Duration::from_millis(2));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let pid = child.id().to_string();
    assert!(
        name.starts_with(&format!("{PARTIAL_PREFIX}{pid}-")),
        "{name} names process {pid}"
    );
    assert_eq!(partials(dir), vec![name.clone()], "left behind");
    name
}

/// A folder with a 96 MiB random input (large enough to catch a run while
/// it writes) and a small one.
fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let big = d.path().join("big.bin");
    let mut data = vec![0u8; 96 << 20];
    Rng(7).fill(&mut data);
    std::fs::write(&big, &data).unwrap();
    let small = d.path().join("small.bin");
    std::fs::write(&small, b"small").unwrap();
    (d, big, small)
}

#[test]
fn python_cleans_what_the_command_line_left() {
    let Some(py) = python() else { return };
    let (d, big, small) = setup();
    let out = d.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let mut cli = Command::new(BIN);
    cli.args([
        "aescrypt",
        "encrypt",
        "--format",
        "v2",
        "--password-env",
        "WS_PW",
    ])
    .arg(&big)
    .arg(out.join("big.bin.aes"))
    .env("WS_PW", PASSWORD);
    let left = kill_while_writing(cli, &out);
    let script = r#"
import sys, warnings
from wireseal import aescrypt
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    aescrypt.encryptFile(sys.argv[1], sys.argv[2], sys.argv[3])
for x in w:
    print(x.category.__name__, x.message)
"#;
    let o = Command::new(&py)
        .args(["-c", script])
        .arg(&small)
        .arg(out.join("small.bin.aes"))
        .arg(PASSWORD)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        said.contains("RuntimeWarning") && said.contains(&left),
        "Python did not report {left}: {said}"
    );
    assert!(partials(&out).is_empty(), "{:?}", partials(&out));
    assert!(out.join("small.bin.aes").is_file());
}

#[test]
fn the_command_line_cleans_what_python_left() {
    let Some(py) = python() else { return };
    let (d, big, small) = setup();
    let out = d.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let mut run = Command::new(&py);
    run.args([
        "-c",
        "import sys; from wireseal import aescrypt; \
         aescrypt.encryptFile(sys.argv[1], sys.argv[2], sys.argv[3], batch=__import__('wireseal').Batch(1))",
    ])
    .arg(&big)
    .arg(out.join("big.bin.aes"))
    .arg(PASSWORD);
    let left = kill_while_writing(run, &out);
    let o = Command::new(BIN)
        .args([
            "aescrypt",
            "encrypt",
            "--format",
            "v2",
            "--password-env",
            "WS_PW",
        ])
        .arg(&small)
        .arg(out.join("small.bin.aes"))
        .env("WS_PW", PASSWORD)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(&left) && err.contains("interrupted run"),
        "the command line did not report {left}: {err}"
    );
    assert!(partials(&out).is_empty(), "{:?}", partials(&out));
    // A live run's partial file is never taken for a leftover: Python
    // writing while the command line runs into the same folder.
    let mut slow = Command::new(&py)
        .args([
            "-c",
            "import sys, time; from wireseal import aescrypt; \
             aescrypt.encryptFile(sys.argv[1], sys.argv[2], sys.argv[3], \
             progress=lambda d, t: time.sleep(0.05))",
        ])
        .arg(&big)
        .arg(out.join("slow.aes"))
        .arg(PASSWORD)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while partials(&out).is_empty() {
        assert!(t0.elapsed() < Duration::from_secs(60), "no partial file");
        std::thread::sleep(Duration::from_millis(2));
    }
    let live = partials(&out);
    let o = Command::new(BIN)
        .args(["aescrypt", "encrypt", "--format", "v2", "--force"])
        .args(["--password-env", "WS_PW"])
        .arg(&small)
        .arg(out.join("small.bin.aes"))
        .env("WS_PW", PASSWORD)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(
        live.iter().all(|n| out.join(n).exists()),
        "a live run's partial file was removed"
    );
    slow.kill().unwrap();
    slow.wait().unwrap();
}
