//! The command line as a daily tool, run as a user would: key files from
//! `keygen` read back by every `--*-file` option, bounded secret files,
//! secrets never echoed, one source per secret, stdin, `--json` on every
//! command, completions.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod support;

use support::{output_fed, success_stdout, BIN};

/// The firmware's PKC vector (see meshtastic_cli.rs).
const OUR_PRIVATE: &str = "a00330633e63522f8a4d81ec6d9d1e6617f6c8ffd3a4c698229537d44e522277";
const SENDER_PUBLIC: &str = "db18fc50eea47f00251cb784819a3cf5fc361882597f589f0d7ff820e8064457";
const PAYLOAD: &str = "40df24abfcc30a17a3d9046726099e796a1c036a792b";
const PLAINTEXT: &str = "08011204746573744800";

fn run_with(args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(BIN);
    c.args(args).envs(env.iter().copied()).stdin(Stdio::null());
    output_fed(c, stdin)
}

fn run(args: &[&str]) -> Output {
    run_with(args, None, &[])
}

fn ok_output(o: Output, args: &[&str]) -> String {
    success_stdout(o, args).trim().to_owned()
}

fn ok(args: &[&str]) -> String {
    ok_output(run(args), args)
}

fn json(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let out = ok(&a);
    assert_eq!(out.lines().count(), 1, "one object: {out}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{a:?}: not JSON ({e}): {out}"))
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap()
}

fn keygen(dir: &Path, kind: &str) -> (String, String) {
    keygen_to(dir, kind, kind)
}

fn keygen_to(dir: &Path, kind: &str, name: &str) -> (String, String) {
    let f = dir.join(name);
    let out = json(&["keygen", kind, "--out", f.to_str().unwrap()]);
    (
        f.to_str().unwrap().to_owned(),
        s(&out["public_key"]).to_owned(),
    )
}

#[test]
fn keygen_writes_a_private_file_that_every_file_option_reads() {
    let dir = tempfile::tempdir().unwrap();
    let (xk, xpub) = keygen(dir.path(), "x25519");
    let (sk, spub) = keygen(dir.path(), "secp256k1");
    assert_eq!((xpub.len(), spub.len()), (64, 66));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&xk).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // pubkey agrees with keygen, for both curves.
    assert_eq!(ok(&["pubkey", "x25519", "--key-file", &xk]), xpub);
    assert_eq!(ok(&["pubkey", "secp256k1", "--key-file", &sk]), spub);
    // Meshtastic: encrypt to ourselves and back.
    let pkc = |cmd: &str, data: &str| ok(&pkc_args(cmd, &xk, &xpub, data));
    assert_eq!(pkc("pkc-decrypt", &pkc("pkc-encrypt", "c0ffee")), "c0ffee");
    // peat: keyx with --key-file, and 32-byte secrets from the same file.
    assert!(ok(&["peat", "keyx", "--node", "7", "--key-file", &xk]).starts_with("b0"));
    let frame = ok(&[
        "peat",
        "seal",
        "--mesh-id",
        "demo",
        "--secret-file",
        &xk,
        "00",
    ]);
    assert_eq!(
        ok(&[
            "peat",
            "open",
            "--mesh-id",
            "DEMO",
            "--secret-file",
            &xk,
            &frame
        ]),
        "00"
    );
    assert!(ok(&["peat", "genesis", "--name", "N", "--seed-file", &xk]).contains("mesh-id: "));
    // Sphinx: an onion to our secp256k1 key, session key from a key file too.
    let (sess, _) = keygen_to(dir.path(), "secp256k1", "session");
    let onion = ok(&[
        "sphinx",
        "build",
        "--session-key-file",
        &sess,
        "--hop",
        &format!("{spub}:0203"),
    ]);
    let peeled = json(&["sphinx", "peel", "--key-file", &sk, &onion]);
    assert_eq!(peeled["payload"], "0203");
    assert_eq!(peeled["final"], true);
    // A key file holding keygen's stdout (`key: HEX` lines) reads too.
    let printed = ok(&["keygen", "x25519"]);
    let f = dir.path().join("printed");
    std::fs::write(&f, &printed).unwrap();
    let public = printed
        .lines()
        .find_map(|l| l.strip_prefix("public-key: "))
        .unwrap();
    assert_eq!(
        ok(&["pubkey", "x25519", "--key-file", f.to_str().unwrap()]),
        public
    );
}

#[test]
fn keygen_never_replaces_without_force_nor_a_non_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let (k, _) = keygen(dir.path(), "x25519");
    let before = std::fs::read(&k).unwrap();
    let o = run(&["keygen", "x25519", "--out", &k]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
    assert_eq!(std::fs::read(&k).unwrap(), before);
    ok(&["keygen", "x25519", "--out", &k, "--force"]);
    assert_ne!(std::fs::read(&k).unwrap(), before);
    // A directory (and, where mkfifo exists, a FIFO) is never replaced.
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let o = run(&[
        "keygen",
        "x25519",
        "--out",
        sub.to_str().unwrap(),
        "--force",
    ]);
    assert!(!o.status.success());
    assert!(sub.is_dir());
    let fifo = dir.path().join("fifo");
    if Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        let o = run(&[
            "keygen",
            "x25519",
            "--out",
            fifo.to_str().unwrap(),
            "--force",
        ]);
        assert!(!o.status.success());
        assert!(String::from_utf8_lossy(&o.stderr).contains("not a regular file"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            let t = std::fs::symlink_metadata(&fifo).unwrap().file_type();
            assert!(t.is_fifo());
        }
    }
}

#[test]
fn dev_zero_secret_files_fail_fast() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let cases: Vec<Vec<&str>> = vec![
        vec!["pubkey", "x25519", "--key-file", "/dev/zero"],
        vec![
            "meshtastic",
            "channel-hash",
            "--name",
            "x",
            "--psk-file",
            "/dev/zero",
        ],
        vec!["peat", "genesis", "--name", "x", "--seed-file", "/dev/zero"],
        vec![
            "sphinx",
            "build",
            "--session-key-file",
            "/dev/zero",
            "--hop",
            "02:01",
        ],
        vec![
            "aescrypt",
            "decrypt",
            "--password-file",
            "/dev/zero",
            "-",
            "-",
        ],
    ];
    for args in cases {
        let t = Instant::now();
        let o = run_with(&args, Some(b""), &[]);
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "{args:?} took {:?}",
            t.elapsed()
        );
        assert!(!o.status.success(), "{args:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains("64 KiB"), "{args:?}: {e}");
        assert!(!e.contains("/dev/zero"), "{args:?}: {e}");
    }
}

/// A key pasted where a file name or variable name belongs, or a bad key:
/// no error shows any run of its characters.
#[test]
fn secret_option_errors_never_show_the_secret() {
    let secret = "5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75e~q";
    let short = "5ec7e7";
    let mut cases: Vec<Vec<&str>> = Vec::new();
    for (cmd, flag) in [
        (vec!["pubkey", "x25519"], "--key"),
        (vec!["pubkey", "secp256k1"], "--key"),
        (vec!["peat", "keyx", "--node", "1"], "--key"),
        (vec!["peat", "keyx", "--node", "1"], "--private"),
        (vec!["peat", "genesis", "--name", "n"], "--seed"),
        (vec!["peat", "open", "--mesh-id", "A", "00"], "--secret"),
        (vec!["meshtastic", "channel-hash", "--name", "n"], "--psk"),
        (vec!["sphinx", "build", "--hop", "02:01"], "--session-key"),
    ] {
        for suffix in ["", "-file", "-env"] {
            let flag: &'static str = Box::leak(format!("{flag}{suffix}").into_boxed_str());
            let mut a = cmd.clone();
            a.extend([flag, secret]);
            cases.push(a);
        }
    }
    cases.push(vec!["sphinx", "peel", "--node-key", secret, "00"]);
    cases.push(vec![
        "aescrypt",
        "decrypt",
        "--password-file",
        secret,
        "x",
        "y",
    ]);
    for args in cases {
        let o = run(&args);
        assert!(!o.status.success(), "{args:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            !e.contains(short) && !e.contains('~'),
            "{args:?} echoes: {e}"
        );
    }
}

#[test]
fn two_sources_for_one_secret_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (k, _) = keygen(dir.path(), "secp256k1");
    for args in [
        vec![
            "onion",
            "peel",
            "--node-key",
            OUR_PRIVATE,
            "--private-file",
            &k,
            "00",
        ],
        vec![
            "sphinx",
            "peel",
            "--key",
            OUR_PRIVATE,
            "--key-env",
            "X",
            "00",
        ],
        vec![
            "meshtastic",
            "channel-hash",
            "--name",
            "n",
            "--psk",
            "AQ==",
            "--psk-env",
            "X",
        ],
    ] {
        let o = run(&args);
        assert!(!o.status.success(), "{args:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains("cannot be used with"), "{args:?}: {e}");
    }
}

#[test]
fn hex_data_and_keys_from_stdin() {
    let args = [
        "meshtastic",
        "pkc-decrypt",
        "--key",
        OUR_PRIVATE,
        "--peer-key",
        SENDER_PUBLIC,
        "--from",
        "2345",
        "--id",
        "0x13b2d662",
        "-",
    ];
    let spaced = format!("{}\n  {}\n", &PAYLOAD[..10], &PAYLOAD[10..]);
    let out = ok_output(run_with(&args, Some(spaced.as_bytes()), &[]), &args);
    assert_eq!(out, PLAINTEXT);
    // Raw bytes out.
    let mut raw = args.to_vec();
    raw.extend(["--out-format", "raw"]);
    let o = run_with(&raw, Some(PAYLOAD.as_bytes()), &[]);
    assert_eq!(o.stdout, hex::decode(PLAINTEXT).unwrap());
    // The key from stdin instead.
    let key_args = [
        "meshtastic",
        "pkc-decrypt",
        "--key-file",
        "-",
        "--peer-key",
        SENDER_PUBLIC,
        "--from",
        "2345",
        "--id",
        "0x13b2d662",
        PAYLOAD,
    ];
    let o = run_with(&key_args, Some(OUR_PRIVATE.as_bytes()), &[]);
    assert_eq!(ok_output(o, &key_args), PLAINTEXT);
    // Two readers of stdin are refused.
    let both = ["peat", "seal", "--mesh-id", "A", "--secret-file", "-", "-"];
    let o = run_with(&both, Some(OUR_PRIVATE.as_bytes()), &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("already read"));
    // Raw bytes in: peat seal then open round trip.
    let sealed = ok_output(
        run_with(
            &[
                "peat",
                "seal",
                "--mesh-id",
                "A",
                "--secret",
                OUR_PRIVATE,
                "--in-format",
                "raw",
                "-",
            ],
            Some(b"hello"),
            &[],
        ),
        &["peat seal raw"],
    );
    let o = run(&[
        "peat",
        "open",
        "--mesh-id",
        "a",
        "--secret",
        OUR_PRIVATE,
        "--out-format",
        "raw",
        &sealed,
    ]);
    assert_eq!(o.stdout, b"hello");
}

#[test]
fn every_command_speaks_json() {
    let dir = tempfile::tempdir().unwrap();
    let (xk, xpub) = keygen(dir.path(), "x25519");
    let (sk, spub) = keygen(dir.path(), "secp256k1");
    let v = json(&["keygen", "secp256k1"]);
    assert_eq!(v["kind"], "secp256k1");
    let before: Value =
        serde_json::from_str(&ok(&["--json", "pubkey", "x25519", "--key-file", &xk]))
            .expect("--json before the subcommand");
    assert_eq!(before["public_key"], xpub.as_str());
    assert_eq!(s(&v["key"]).len(), 64);
    assert_eq!(
        json(&["pubkey", "x25519", "--key-file", &xk])["public_key"],
        xpub.as_str()
    );
    let m = |cmd: &str, data: &str| json(&pkc_args(cmd, &xk, &xpub, data));
    let payload = m("pkc-encrypt", "00ff");
    assert_eq!(
        m("pkc-decrypt", s(&payload["payload"]))["plaintext"],
        "00ff"
    );
    let c = json(&[
        "meshtastic",
        "channel-encrypt",
        "--psk",
        "AQ==",
        "--from",
        "1",
        "--id",
        "2",
        "00",
    ]);
    assert!(c["data"].is_string());
    assert_eq!(
        json(&[
            "meshtastic",
            "channel-hash",
            "--name",
            "LongFast",
            "--psk",
            "AQ=="
        ])["hash"],
        "08"
    );
    let g = json(&[
        "peat",
        "genesis",
        "--name",
        "ALPHA-TEAM",
        "--seed",
        &"42".repeat(32),
    ]);
    assert_eq!(g["mesh_id"], "CBE6FC55");
    let f = json(&[
        "peat",
        "seal",
        "--mesh-id",
        "cbe6fc55",
        "--secret",
        s(&g["secret"]),
        "0102",
    ]);
    let o = json(&[
        "peat",
        "open",
        "--mesh-id",
        "CBE6FC55",
        "--secret",
        s(&g["secret"]),
        s(&f["frame"]),
    ]);
    assert_eq!(o["plaintext"], "0102");
    assert!(json(&["peat", "keyx", "--node", "0x11", "--key-file", &xk])["frame"].is_string());
    let peer = |cmd: &str, counter: Option<&str>, data: &str| {
        let (node, other) = if cmd == "peer-seal" {
            ("1", "2")
        } else {
            ("2", "1")
        };
        let mut a = vec![
            "peat",
            cmd,
            "--node",
            node,
            "--key-file",
            &xk,
            "--peer",
            other,
            "--peer-key",
            &xpub,
        ];
        if let Some(c) = counter {
            a.extend(["--counter", c]);
        }
        a.push(data);
        json(&a)
    };
    let pf = peer("peer-seal", Some("0x10"), "abcd");
    assert_eq!(
        peer("peer-open", None, s(&pf["frame"]))["plaintext"],
        "abcd"
    );
    let p = json(&[
        "peat",
        "policy",
        "--data",
        "emergency",
        "--level",
        "none",
        "--link",
        "known-peer",
    ]);
    assert_eq!(p["protection"], "mesh-wide");
    assert_eq!(p["decided_by"], "always-encrypt");
    assert_eq!(p["link"], "known-peer");
    let onion = json(&[
        "sphinx",
        "build",
        "--session-key-file",
        &sk,
        "--hop",
        &format!("{spub}:0203"),
    ]);
    let peeled = json(&["sphinx", "peel", "--key-file", &sk, s(&onion["onion"])]);
    let created = json(&[
        "sphinx",
        "error",
        "create",
        "--key-file",
        &sk,
        "--onion",
        s(&onion["onion"]),
        "--message",
        "2002",
    ]);
    let by_key = json(&[
        "sphinx",
        "error",
        "create",
        "--key-file",
        &sk,
        "--ephemeral-key",
        s(&peeled["ephemeral_key"]),
        "--message",
        "2002",
    ]);
    assert_eq!(created, by_key);
    let u = json(&[
        "sphinx",
        "error",
        "unwrap",
        "--session-key-file",
        &sk,
        "--peer-key",
        &spub,
        s(&created["packet"]),
    ]);
    assert_eq!(u["hop"], 1);
    assert_eq!(u["node_key"], spub.as_str());
    assert_eq!(u["message"], "2002");
    // The transport and file commands accept the flag too.
    for args in [
        vec!["bip324", "connect", "--help"],
        vec!["aescrypt", "encrypt", "--help"],
    ] {
        let mut a = args.clone();
        a.insert(1, "--json");
        assert!(run(&a).status.success(), "{a:?}");
    }
}

#[test]
fn smaller_items() {
    // Short PSKs are padded, and stderr says so.
    let o = run(&["meshtastic", "channel-hash", "--name", "x", "--psk", "AQI="]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("zero-padded to 16"));
    // A mesh id that cannot be one.
    let o = run(&[
        "peat",
        "open",
        "--mesh-id",
        "CB E6",
        "--secret",
        OUR_PRIVATE,
        "00",
    ]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not a mesh id"));
    // An empty failure packet is refused.
    let g = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
    let o = run(&[
        "sphinx",
        "error",
        "wrap",
        "--key",
        OUR_PRIVATE,
        "--ephemeral-key",
        g,
        "",
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("at least"));
    // Names from before the vocabulary still parse; help shows it once.
    let help = ok(&["help"]);
    for w in ["--key-file", "--peer-key", "--magic", "testnet4", "--json"] {
        assert!(help.contains(w), "{w}: {help}");
    }
    for shell in ["bash", "zsh", "fish"] {
        assert!(ok(&["completions", shell]).contains("wireseal"), "{shell}");
    }
}

/// A Meshtastic PKC command between our key file and a peer key, from
/// node 1 with packet id 2.
fn pkc_args<'a>(cmd: &'a str, key_file: &'a str, peer: &'a str, data: &'a str) -> [&'a str; 11] {
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
