//! The command line as a daily tool, run as a user would: key files from
//! `keygen` read back by every `--*-file` option, bounded secret files,
//! secrets never echoed, one source per secret.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support;

use support::daily::{json, keygen, keygen_to, ok, pkc_args, run, run_with, OUR_PRIVATE};

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
    cases.push(vec!["sphinx", "peel", "--key", secret, "00"]);
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
            "sphinx",
            "peel",
            "--key",
            OUR_PRIVATE,
            "--key-file",
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
