//! The shared case table `vectors/peat/driver_cases.json` through the
//! `wireseal` binary: mesh ids in any case open the same frame, bad ones fail
//! with the kind and message the library and Python give, genesis names,
//! and `peat policy --json` prints the same record as Python's
//! `peat.decide` (field for field, value for value).

use crate::support;

use serde_json::Value;
use std::process::Output;
use support::peat::ws;

fn table() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/peat/driver_cases.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap()
}

/// A run that must succeed with one JSON object on stdout.
fn json_ok(o: &Output, what: &str) -> Value {
    assert!(
        o.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// A run that must fail with the table's kind and message: a JSON error
/// (`{"error", "kind"}`) for a value the library refused at run time, or a
/// usage error (exit status 2) carrying the library's message for a value
/// refused while parsing the arguments.
fn assert_refused(o: &Output, case: &Value, what: &str) {
    assert!(!o.status.success(), "{what}: should fail");
    assert!(o.stdout.is_empty(), "{what}: nothing on stdout");
    let err = String::from_utf8_lossy(&o.stderr);
    let message = s(&case["message"]);
    assert!(err.contains(message), "{what}: {err}");
    match serde_json::from_str::<Value>(err.trim()) {
        Ok(j) => assert_eq!(j["kind"], case["error"], "{what}: {err}"),
        Err(_) => {
            assert_eq!(o.status.code(), Some(2), "{what}: {err}");
            assert_eq!(s(&case["error"]), "invalid_input", "{what}");
        }
    }
}

#[test]
fn mesh_ids_in_any_case_open_the_same_frame() {
    let t = table();
    let mut opened = 0;
    for case in t["mesh_ids"].as_array().unwrap() {
        let given = s(&case["given"]);
        // A refused id is refused before the secret or the frame is read.
        let canonical = case["mesh_id"].as_str().unwrap_or("DEMO");
        let f = &t["mesh_frames"][canonical];
        let o = ws(&[
            "--json",
            "peat",
            "open",
            "--mesh-id",
            given,
            "--secret",
            s(&f["secret_hex"]),
            s(&f["frame_hex"]),
        ]);
        if case.get("error").is_some() {
            assert_refused(&o, case, given);
            continue;
        }
        assert_eq!(
            json_ok(&o, given)["plaintext"],
            f["plaintext_hex"],
            "{given}"
        );
        opened += 1;
    }
    assert_eq!(opened, 5);
}

#[test]
fn genesis_names() {
    for case in table()["genesis"].as_array().unwrap() {
        let name = s(&case["name"]);
        let o = ws(&[
            "--json",
            "peat",
            "genesis",
            "--name",
            name,
            "--seed",
            s(&case["seed_hex"]),
        ]);
        if case.get("error").is_some() {
            assert_refused(&o, case, name);
            continue;
        }
        let j = json_ok(&o, name);
        assert_eq!(j["mesh_id"], case["mesh_id"]);
        assert_eq!(j["secret"], case["secret_hex"]);
    }
}

/// `peat policy` arguments for a table entry's `given`.
fn policy_args(given: &Value) -> Vec<String> {
    let mut a: Vec<String> = ["--json", "peat", "policy"].map(String::from).to_vec();
    for (flag, key) in [("--level", "level"), ("--data", "data"), ("--link", "link")] {
        a.extend([flag.to_owned(), s(&given[key]).to_owned()]);
    }
    if let Some(b) = given.get("battery") {
        a.extend(["--battery".to_owned(), b.to_string()]);
    }
    if let Some(r) = given.get("rate") {
        a.push(format!("--rate={r}"));
    }
    if let Some(ad) = given.get("adaptive") {
        if !ad[0].is_null() {
            a.push(format!("--adaptive-battery={}", ad[0]));
        }
        if !ad[1].is_null() {
            a.push(format!("--adaptive-rate={}", ad[1]));
        }
    }
    if let Some(list) = given.get("always_encrypt") {
        let list = list.as_array().unwrap();
        if list.is_empty() {
            a.push("--always-encrypt=none".to_owned());
        }
        for t in list {
            a.push(format!("--always-encrypt={}", s(t)));
        }
    }
    a
}

#[test]
fn policy_records_and_refusals() {
    let t = table();
    for case in t["decisions"].as_array().unwrap() {
        let args = policy_args(&case["given"]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let j = json_ok(&ws(&args), &args.join(" "));
        assert_eq!(j, case["record"], "{args:?}");
    }
    for case in t["decision_errors"].as_array().unwrap() {
        let args = policy_args(&case["given"]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_refused(&ws(&args), case, &args.join(" "));
    }
}
