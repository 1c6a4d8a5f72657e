//! Runs the Python package's tests (crates/wireseal-py, pytest) through
//! `scripts/test-python.sh`, so that the README's one test command covers
//! them. The script builds a virtual environment under `target/` with the
//! package and the independent implementations it is checked against
//! (`scripts/python-env.sh`).
//!
//! Then checks the README's main job on the same environment:
//! `scripts/bench` builds it with the same script and points the bench at
//! its interpreter, and with it no Python row of the bench says `skipped`
//! (the `python` section runs in full; the `aescrypt` section's Python
//! worker imports the package, pyAesCrypt and OpenSSL's bindings).
//!
//! Without `python3` the test fails (skips under
//! `WIRESEAL_ALLOW_MISSING_PEERS=1`).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use wireseal_bench::peers::{skip_or_fail, Skip};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn python_package_tests_pass_and_the_bench_measures_every_python_row() {
    let python_ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !python_ok {
        skip_or_fail(&Skip::new("python3 is not installed"));
        return;
    }
    let script = root().join("scripts/test-python.sh");
    let status = Command::new("bash")
        .arg(&script)
        .arg("-q")
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    assert!(status.success(), "scripts/test-python.sh failed ({status})");

    // scripts/bench builds the same environment and hands it to the bench.
    let bench_script = std::fs::read_to_string(root().join("scripts/bench")).unwrap();
    assert!(
        bench_script.contains("scripts/python-env.sh") && bench_script.contains("WIRESEAL_PYTHON="),
        "scripts/bench no longer builds the Python environment"
    );
    let venv = std::env::var_os("WIRESEAL_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/python-venv"));
    let py = venv.join("bin/python");

    // The `python` section: every row measured against its peer.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("rows.json");
    let out = Command::new(env!("CARGO_BIN_EXE_wireseal-bench"))
        .args(["--section", "python", "--rows"])
        .arg(&json)
        .env("WIRESEAL_PYTHON", &py)
        .output()
        .expect("wireseal-bench runs");
    assert!(
        out.status.success(),
        "bench --section python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = rows.as_array().expect("an array of rows");
    assert!(rows.len() >= 5, "{rows:?}");
    let skipped: Vec<&serde_json::Value> =
        rows.iter().filter(|r| r.get("skipped").is_some()).collect();
    assert!(skipped.is_empty(), "python rows skipped: {skipped:?}");

    // The `aescrypt` section's worker: the package, pyAesCrypt and OpenSSL.
    let mut worker = Command::new(&py)
        .arg(root().join("interop/python/aescrypt_worker.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the worker starts");
    let mut lines = BufReader::new(worker.stdout.take().unwrap()).lines();
    let ready: serde_json::Value =
        serde_json::from_str(&lines.next().expect("a ready line").unwrap()).unwrap();
    assert_eq!(ready["wireseal"], serde_json::Value::Null, "{ready}");
    assert_eq!(ready["pyaescrypt"], serde_json::Value::Null, "{ready}");
    let mut stdin = worker.stdin.take().unwrap();
    for op in ["openssl_cbc_enc", "pyaes_enc_stream", "enc_stream"] {
        writeln!(stdin, r#"{{"op": "data", "size": 65536}}"#).unwrap();
        let _ = lines.next();
        writeln!(stdin, r#"{{"op": "{op}", "size": 65536}}"#).unwrap();
        let reply: serde_json::Value =
            serde_json::from_str(&lines.next().expect("a reply").unwrap()).unwrap();
        assert!(
            reply["s"].as_f64().is_some_and(|s| s > 0.0),
            "{op}: {reply}"
        );
    }
    writeln!(stdin, r#"{{"op": "quit"}}"#).unwrap();
    drop(stdin);
    assert!(worker.wait().unwrap().success());
}
