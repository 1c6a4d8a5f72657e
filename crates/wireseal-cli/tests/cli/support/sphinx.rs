//! Helpers for the `wireseal sphinx` tests (`sphinx_cli_*.rs`): the BOLT #4
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

/// The JSON line of a run of `args` (with `--json`) that must succeed.
pub fn json_ok(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    serde_json::from_str(&ok(&a)).unwrap()
}

/// `onion-test.json`'s onion peeled through the CLI, hop by hop: each hop's
/// node key, the onion it received (the last is the final node's) and the
/// ephemeral key `peel` printed for it.
pub fn onion_test_hops() -> Vec<(String, String, String)> {
    let o = vec_file("onion-test.json");
    let ad = s(&o["generate"]["associated_data"]);
    let mut cur = s(&o["onion"]).to_string();
    let mut out = Vec::new();
    for k in o["decode"].as_array().unwrap() {
        let p = json_ok(&[
            "sphinx",
            "peel",
            "--key",
            s(k),
            "--associated-data",
            ad,
            &cur,
        ]);
        let eph = s(&p["ephemeral_key"]).to_string();
        out.push((s(k).to_string(), cur.clone(), eph));
        if let Some(n) = p["next_onion"].as_str() {
            cur = n.to_string();
        }
    }
    out
}

/// Each hop of `onion-test.json` (the route of the attribution vectors):
/// its node key and the ephemeral key of the onion it received.
pub fn onion_test_ephemeral_keys() -> Vec<(String, String)> {
    onion_test_hops()
        .into_iter()
        .map(|(k, _, eph)| (k, eph))
        .collect()
}

/// `sphinx CMD unwrap` at the origin of the attribution vectors' route
/// (`attributable-error-test.json` in `v`): its session key and hop keys.
pub fn origin_args<'a>(cmd: &'a str, v: &'a Value) -> Vec<&'a str> {
    let mut args = vec![
        "sphinx",
        cmd,
        "unwrap",
        "--session-key",
        s(&v["session_key"]),
    ];
    for h in v["hops"].as_array().unwrap() {
        args.extend(["--peer-key", s(&h["pubkey"])]);
    }
    args
}
