//! Runs the Python package's tests (crates/wireseal-py, pytest) through
//! `scripts/test-python.sh`, so that the README's one test command covers
//! them. The script builds a virtual environment under `target/` with the
//! package and the independent implementations it is checked against.
//!
//! Without `python3` the test fails (skips under
//! `WIRESEAL_ALLOW_MISSING_PEERS=1`).

use std::path::PathBuf;
use std::process::Command;
use wireseal_bench::peers::{skip_or_fail, Skip};

#[test]
fn python_package_tests_pass() {
    let python_ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !python_ok {
        skip_or_fail(&Skip::new("python3 is not installed"));
        return;
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/test-python.sh");
    let status = Command::new("bash")
        .arg(&script)
        .arg("-q")
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    assert!(status.success(), "scripts/test-python.sh failed ({status})");
}
