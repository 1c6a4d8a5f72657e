//! Helpers for the daily-use tests (`daily_cli_*.rs`): runs of the binary
//! with stdin and env, `--json` output, key files from `keygen`, and the
//! firmware's Meshtastic PKC vector.

use super::{output_fed, s, success_stdout, BIN};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The firmware's PKC vector (see meshtastic_cli.rs).
pub const OUR_PRIVATE: &str = "a00330633e63522f8a4d81ec6d9d1e6617f6c8ffd3a4c698229537d44e522277";
pub const SENDER_PUBLIC: &str = "db18fc50eea47f00251cb784819a3cf5fc361882597f589f0d7ff820e8064457";
pub const PAYLOAD: &str = "40df24abfcc30a17a3d9046726099e796a1c036a792b";
pub const PLAINTEXT: &str = "08011204746573744800";

/// Runs `args` with the extra `env`; `Some(data)` is fed on stdin, `None`
/// leaves stdin empty.
pub fn run_with(args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(BIN);
    c.args(args).envs(env.iter().copied()).stdin(Stdio::null());
    output_fed(c, stdin)
}

/// Runs `args` with empty stdin.
pub fn run(args: &[&str]) -> Output {
    run_with(args, None, &[])
}

/// The trimmed stdout of `o`, a run of `args` that must have succeeded.
pub fn ok_output(o: Output, args: &[&str]) -> String {
    success_stdout(o, args).trim().to_owned()
}

/// The trimmed stdout of a run of `args` that must succeed.
pub fn ok(args: &[&str]) -> String {
    ok_output(run(args), args)
}

/// The one JSON object a run of `args` plus `--json` must print.
pub fn json(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let out = ok(&a);
    assert_eq!(out.lines().count(), 1, "one object: {out}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{a:?}: not JSON ({e}): {out}"))
}

/// `keygen KIND --out DIR/KIND`: the key file's path and the public key.
pub fn keygen(dir: &Path, kind: &str) -> (String, String) {
    keygen_to(dir, kind, kind)
}

/// `keygen KIND --out DIR/NAME`: the key file's path and the public key.
pub fn keygen_to(dir: &Path, kind: &str, name: &str) -> (String, String) {
    let f = dir.join(name);
    let out = json(&["keygen", kind, "--out", f.to_str().unwrap()]);
    (
        f.to_str().unwrap().to_owned(),
        s(&out["public_key"]).to_owned(),
    )
}

/// A Meshtastic PKC command between our key file and a peer key, from
/// node 1 with packet id 2.
pub fn pkc_args<'a>(
    cmd: &'a str,
    key_file: &'a str,
    peer: &'a str,
    data: &'a str,
) -> [&'a str; 11] {
    [
        "meshtastic",
        cmd,
        "--key-file",
        key_file,
        "--peer-key",
        peer,
        "--from",
        "1",
        "--id",
        "2",
        data,
    ]
}
