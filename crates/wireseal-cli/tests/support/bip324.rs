//! Helpers for the `wireseal v2` tests (`bip324_cli_*.rs`).

use super::BIN;
use std::process::{Command, Output};

/// Runs `wireseal v2 connect ADDR` plus `extra` to its end.
pub fn connect(addr: &str, extra: &[&str]) -> Output {
    Command::new(BIN)
        .args(["v2", "connect", addr])
        .args(extra)
        .output()
        .unwrap()
}
