//! Helpers for the `wireseal onion` tests (`sphinx_cli_*.rs`): the BOLT #4
//! vector files and runs of the binary.

use super::{s, ws_env};
use serde_json::Value;

/// The BOLT #4 vector file `name`, parsed.
pub fn vec_file(name: &str) -> Value {
    let p = format!("{}/../../vectors/bolt04/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Runs `args`: whether it succeeded, its trimmed stdout and its stderr.
pub fn run(args: &[&str]) -> (bool, String, String) {
    let o = ws_env(args, &[]);
    (
        o.status.success(),
        String::from_utf8(o.stdout).unwrap().trim().to_string(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

/// The trimmed stdout of a run of `args` that must succeed.
pub fn ok(args: &[&str]) -> String {
    let (s, out, err) = run(args);
    assert!(s, "{args:?} failed: {err}");
    out
}

/// The vector payloads carry a BigSize length prefix; the CLI takes them without.
pub fn strip(p: &str) -> String {
    let b = hex::decode(p).unwrap();
    let skip = match b[0] {
        0xfd => 3,
        0xfe => 5,
        0xff => 9,
        _ => 1,
    };
    hex::encode(&b[skip..])
}

/// The `--hop PUBKEY:PAYLOAD` values of a vector's `generate` object.
pub fn hop_args(g: &Value) -> Vec<String> {
    g["hops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| format!("{}:{}", s(&h["pubkey"]), strip(s(&h["payload"]))))
        .collect()
}
