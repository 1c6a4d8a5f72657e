//! Helpers for the `wireseal peat` tests (`peat_cli_*.rs`).

use super::{success_stdout, ws_env};
use std::process::Output;

/// Runs `args` with no extra environment.
pub fn ws(args: &[&str]) -> Output {
    ws_env(args, &[])
}

/// The stdout of a run of `args` that must succeed.
pub fn ok(args: &[&str]) -> String {
    success_stdout(ws(args), args)
}

/// A run of `args` must fail, with `needle` in its stderr and no panic.
pub fn fails(args: &[&str], needle: &str) {
    let o = ws(args);
    assert!(!o.status.success(), "{args:?} should fail");
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains(needle), "{args:?}: {e}");
    assert!(!e.contains("panicked"), "{e}");
}
