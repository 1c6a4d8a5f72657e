//! Helpers for the `wireseal bip324` tests (`bip324_cli_*.rs`).

use super::BIN;
use std::process::{Command, Output};

/// Runs `wireseal bip324 connect ADDR` plus `extra` to its end.
pub fn connect(addr: &str, extra: &[&str]) -> Output {
    Command::new(BIN)
        .args(["bip324", "connect", addr])
        .args(extra)
        .output()
        .unwrap()
}
