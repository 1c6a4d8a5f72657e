//! The `python` section: Python-level calls into the `wireseal` package
//! (crates/wireseal-py) next to the pure-Python tools people use today
//! (pyln-proto, the `cryptography`-based Meshtastic decode), measured in
//! the same run by `interop/python/bench_wireseal.py`, which samples ours
//! and the peer alternately. The AES Crypt calls are in the `aescrypt`
//! section (against the library path and pyAesCrypt).
//!
//! The interpreter is `$WIRESEAL_PYTHON`, else the virtual environment that
//! `scripts/test-python.sh` builds (`target/python-venv`), else `python3`;
//! it must import `wireseal`. Rows whose peer is missing say `skipped:`.

use crate::peers::{cache_dir, Skip};
use crate::{Better, Ctx, Row};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

const S: &str = "python";
const SCRIPT: &str = include_str!("../../../interop/python/bench_wireseal.py");

#[derive(Deserialize)]
struct Out {
    rows: Vec<PyRow>,
    skipped: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct PyRow {
    workload: String,
    unit: String,
    better: String,
    ours: f64,
    baseline_name: String,
    baseline: Option<f64>,
}

/// The interpreter to use, in the order the module docs give (also the
/// `aescrypt` section's Python worker).
pub(crate) fn interpreter() -> PathBuf {
    if let Some(p) = std::env::var_os("WIRESEAL_PYTHON").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let venv =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/python-venv/bin/python");
    if venv.is_file() {
        return venv;
    }
    PathBuf::from("python3")
}

fn measure(ctx: &Ctx) -> Result<Out, Skip> {
    let py = interpreter();
    let check = Command::new(&py)
        .args(["-c", "import wireseal"])
        .output()
        .map_err(|e| Skip::new(format!("{} not runnable ({e})", py.display())))?;
    if !check.status.success() {
        return Err(Skip::new(format!(
            "{} cannot import wireseal; build it with scripts/test-python.sh",
            py.display()
        )));
    }
    let script = cache_dir()?.join("bench_wireseal.py");
    std::fs::write(&script, SCRIPT)
        .map_err(|e| Skip::new(format!("cannot write {}: {e}", script.display())))?;
    let o = Command::new(&py)
        .arg(&script)
        .arg(if ctx.full { "full" } else { "quick" })
        .output()
        .map_err(|e| Skip::new(format!("{} not runnable ({e})", py.display())))?;
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(Skip::new(format!("python bench failed: {}", last.trim())));
    }
    serde_json::from_slice(&o.stdout)
        .map_err(|e| Skip::new(format!("bad python bench output: {e}")))
}

/// The section.
pub fn run(ctx: &Ctx) -> Vec<Row> {
    match measure(ctx) {
        Ok(out) => package_rows(out),
        Err(why) => vec![Row::with_peer(
            S,
            "wireseal Python package",
            "-",
            Better::Higher,
            0.0,
            "pure-Python tools",
            Err(&why),
        )],
    }
}

/// The script's rows, then a skipped row for each of its own benchmarks
/// (`bench_*`) that could not run.
fn package_rows(out: Out) -> Vec<Row> {
    let mut rows: Vec<Row> = out
        .rows
        .into_iter()
        .map(|r| {
            let why = out.skipped.get(&r.workload).cloned();
            row(r, why)
        })
        .collect();
    for (workload, why) in out.skipped {
        if workload.starts_with("bench_") {
            rows.push(Row::with_peer(
                S,
                workload,
                "-",
                Better::Higher,
                0.0,
                "-",
                Err(&Skip::new(why)),
            ));
        }
    }
    rows
}

/// One of the script's rows; `skipped` says why its peer was not measured,
/// when the script said so.
fn row(r: PyRow, skipped: Option<String>) -> Row {
    let better = if r.better == "lower" {
        Better::Lower
    } else {
        Better::Higher
    };
    match (r.baseline, skipped) {
        (None, Some(why)) => Row::with_peer(
            S,
            r.workload,
            &r.unit,
            better,
            r.ours,
            r.baseline_name,
            Err(&Skip::new(why)),
        ),
        (b, _) => Row::new(S, r.workload, &r.unit, better, r.ours, r.baseline_name, b),
    }
}
