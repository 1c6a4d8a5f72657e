//! The shared case table (`vectors/meshcore/driver_cases.json`) through the
//! `wireseal` binary: every packet gives the table's record (the library's
//! JSON shape), every malformed packet and bad key the table's error kind,
//! reason and message. The library
//! (`crates/wireseal/tests/library/meshcore_driver_cases.rs`) and Python
//! (`tests/test_meshcore_agree.py`) run the same table.

use serde_json::Value;
use std::process::{Command, Output};

fn table() -> Value {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../vectors/meshcore/driver_cases.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn json_run(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wireseal"))
        .arg("--json")
        .args(args)
        .output()
        .unwrap()
}

/// The error object of a failed run (exit 1, nothing on stdout).
fn error(o: &Output, what: &Value) -> Value {
    assert_eq!(o.status.code(), Some(1), "{what}");
    assert!(
        o.stdout.is_empty(),
        "{what}: nothing on stdout when failing"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    serde_json::from_str(err.lines().last().unwrap_or(""))
        .unwrap_or_else(|_| panic!("{what}: not JSON: {err}"))
}

fn expect_error(case: &Value, e: &Value) {
    let want = &case["error"];
    assert_eq!(e["kind"], want["kind"], "{case}: {e}");
    assert_eq!(e["reason"], want["reason"], "{case}: {e}");
    let msg = want["message"].as_str().unwrap();
    assert!(e["error"].as_str().unwrap().contains(msg), "{case}: {e}");
}

/// `meshcore decode` with the case's keys (a key file for our identity).
fn decode_args(case: &Value, dir: &tempfile::TempDir) -> Vec<String> {
    let mut a: Vec<String> = vec!["meshcore".into(), "decode".into()];
    for ch in case["channels"].as_array().into_iter().flatten() {
        if let Some(k) = ch["base64"].as_str() {
            a.extend(["--channel-key".into(), k.into()]);
        } else {
            a.extend(["--hashtag".into(), ch["hashtag"].as_str().unwrap().into()]);
        }
    }
    if let Some(id) = case["identity"].as_str() {
        let f = dir.path().join("our.key");
        std::fs::write(&f, format!("{id}\n")).unwrap();
        a.extend(["--key-file".into(), f.to_str().unwrap().into()]);
    }
    for p in case["peers"].as_array().into_iter().flatten() {
        a.extend(["--peer".into(), p.as_str().unwrap().into()]);
    }
    a.push(case["packet_hex"].as_str().unwrap().into());
    a
}

#[test]
fn every_packet_gives_the_tables_record() {
    let v = table();
    let dir = tempfile::tempdir().unwrap();
    let cases = v["packets"].as_array().unwrap();
    assert!(cases.len() >= 10);
    for case in cases {
        let o = json_run(&decode_args(case, &dir));
        assert!(
            o.status.success(),
            "{}: {}",
            case["what"],
            String::from_utf8_lossy(&o.stderr)
        );
        let got: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(got, case["record"], "{}", case["what"]);
    }
}

#[test]
fn every_malformed_packet_gives_the_tables_error() {
    let v = table();
    for case in v["malformed"].as_array().unwrap() {
        let args = vec![
            "meshcore".into(),
            "decode".into(),
            "--public-channel".into(),
            case["packet_hex"].as_str().unwrap().to_owned(),
        ];
        let o = json_run(&args);
        expect_error(case, &error(&o, &case["what"]));
    }
}

#[test]
fn every_bad_key_gives_the_tables_error() {
    let v = table();
    let dir = tempfile::tempdir().unwrap();
    let packet = v["packets"][0]["packet_hex"].as_str().unwrap().to_owned();
    for case in v["key_errors"].as_array().unwrap() {
        let mut args: Vec<String> = vec!["meshcore".into(), "decode".into()];
        if let Some(k) = case["channel_base64"].as_str() {
            args.extend(["--channel-key".into(), k.into()]);
        } else if let Some(id) = case["identity_hex"].as_str() {
            let f = dir.path().join("bad.key");
            std::fs::write(&f, id).unwrap();
            args.extend(["--key-file".into(), f.to_str().unwrap().into()]);
        } else {
            let p = case["peer_hex"].as_str().unwrap();
            args.extend(["--peer".into(), p.into()]);
        }
        args.push(packet.clone());
        let o = json_run(&args);
        expect_error(case, &error(&o, &case["what"]));
    }
}
