//! `wireseal aescrypt encrypt|decrypt --out-dir DIR IN...`: many inputs at
//! once; what is checked before any work; one stretch of the password per
//! run (or one per file with --salt-per-file); failures named.

use std::path::Path;
use std::process::{Command, Output};

use crate::support;

use support::{Rng, BIN};

const PASSWORD: &str = "correct horse battery staple";

fn run(args: &[&str], dir: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .args(["--password-env", "WS_PW"])
        .env("WS_PW", PASSWORD)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A folder with `in/` holding files of the given sizes (`f0`, `f1`, ...).
fn setup(sizes: &[usize]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("in")).unwrap();
    std::fs::create_dir(d.path().join("enc")).unwrap();
    std::fs::create_dir(d.path().join("dec")).unwrap();
    let mut rng = Rng(11);
    for (i, &n) in sizes.iter().enumerate() {
        let mut data = vec![0u8; n];
        rng.fill(&mut data);
        std::fs::write(d.path().join(format!("in/f{i}")), data).unwrap();
    }
    d
}

/// The public IV of a version 2 stream with the default extensions.
fn public_iv(stream: &[u8]) -> Vec<u8> {
    let mut at = 5;
    loop {
        let len = u16::from_be_bytes([stream[at], stream[at + 1]]) as usize;
        at += 2;
        if len == 0 {
            return stream[at..at + 16].to_vec();
        }
        at += len;
    }
}

#[test]
fn many_inputs_round_trip_and_share_one_stretch() {
    let sizes = [0, 1, 17, 70_000, 1 << 20, 3 << 20];
    let d = setup(&sizes);
    let inputs: Vec<String> = (0..sizes.len()).map(|i| format!("in/f{i}")).collect();
    let mut args = vec![
        "--json",
        "aescrypt",
        "encrypt",
        "--format",
        "v2",
        "--out-dir",
        "enc",
    ];
    args.extend(inputs.iter().map(String::as_str));
    let o = run(&args, d.path());
    assert!(o.status.success(), "{}", err(&o));
    let lines: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), sizes.len());
    assert_eq!(lines[0]["output"], "enc/f0.aes");
    assert_eq!(lines[0]["format"], "v2");
    let ivs: Vec<Vec<u8>> = (0..sizes.len())
        .map(|i| public_iv(&std::fs::read(d.path().join(format!("enc/f{i}.aes"))).unwrap()))
        .collect();
    assert!(ivs.iter().all(|iv| *iv == ivs[0]), "one salt per run");

    let encs: Vec<String> = (0..sizes.len()).map(|i| format!("enc/f{i}.aes")).collect();
    let mut args = vec!["aescrypt", "decrypt", "--out-dir", "dec", "--jobs", "2"];
    args.extend(encs.iter().map(String::as_str));
    let o = run(&args, d.path());
    assert!(o.status.success(), "{}", err(&o));
    for i in 0..sizes.len() {
        let a = std::fs::read(d.path().join(format!("in/f{i}"))).unwrap();
        let b = std::fs::read(d.path().join(format!("dec/f{i}"))).unwrap();
        assert!(a == b, "f{i}");
    }

    // One stretch per file on request: every output its own salt.
    let mut args = vec!["aescrypt", "encrypt", "--format", "v2", "--salt-per-file"];
    args.extend(["--force", "--out-dir", "enc"]);
    args.extend(inputs.iter().map(String::as_str));
    let o = run(&args, d.path());
    assert!(o.status.success(), "{}", err(&o));
    let ivs: std::collections::HashSet<Vec<u8>> = (0..sizes.len())
        .map(|i| public_iv(&std::fs::read(d.path().join(format!("enc/f{i}.aes"))).unwrap()))
        .collect();
    assert_eq!(ivs.len(), sizes.len());
}

#[test]
fn everything_is_checked_before_any_work() {
    let d = setup(&[10, 10]);
    std::fs::create_dir(d.path().join("other")).unwrap();
    std::fs::write(d.path().join("other/f0"), b"x").unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["in/f0", "in/f1", "x"], "--out-dir"),
        (
            &["--out-dir", "enc", "in/f0", "other/f0"],
            "both be written",
        ),
        (&["--out-dir", "nowhere", "in/f0"], "not a directory"),
        (&["--out-dir", "enc", "in/f0", "missing"], "missing"),
        (&["--out-dir", "enc", "in/f0", "-"], "stdin"),
        (&["--out-dir", "enc", "in"], "not a regular file"),
        (&["--jobs", "2", "in/f0"], "--out-dir"),
    ];
    for (extra, says) in cases {
        let mut args = vec!["aescrypt", "encrypt", "--format", "v2"];
        args.extend_from_slice(extra);
        let o = run(&args, d.path());
        assert!(!o.status.success(), "{extra:?}");
        assert!(err(&o).contains(says), "{extra:?}: {}", err(&o));
        assert_eq!(std::fs::read_dir(d.path().join("enc")).unwrap().count(), 0);
    }
    // An existing output is refused without --force, before any work.
    std::fs::write(d.path().join("enc/f1.aes"), b"old").unwrap();
    let o = run(
        &[
            "aescrypt",
            "encrypt",
            "--format",
            "v2",
            "--out-dir",
            "enc",
            "in/f0",
            "in/f1",
        ],
        d.path(),
    );
    assert!(!o.status.success());
    assert!(err(&o).contains("--force"), "{}", err(&o));
    assert!(!d.path().join("enc/f0.aes").exists());
    assert_eq!(std::fs::read(d.path().join("enc/f1.aes")).unwrap(), b"old");
}

#[test]
fn a_failed_input_is_named_and_no_partial_file_stays() {
    let d = setup(&[100, 200]);
    let o = run(
        &[
            "aescrypt",
            "encrypt",
            "--format",
            "v2",
            "--out-dir",
            "enc",
            "in/f0",
            "in/f1",
        ],
        d.path(),
    );
    assert!(o.status.success(), "{}", err(&o));
    // f1.aes damaged: its decryption fails, f0's is written.
    let p = d.path().join("enc/f1.aes");
    let mut ct = std::fs::read(&p).unwrap();
    let last = ct.len() - 1;
    ct[last] ^= 1;
    std::fs::write(&p, ct).unwrap();
    let o = run(
        &[
            "aescrypt",
            "decrypt",
            "--jobs",
            "1",
            "--out-dir",
            "dec",
            "enc/f1.aes",
            "enc/f0.aes",
        ],
        d.path(),
    );
    assert!(!o.status.success());
    let e = err(&o);
    assert!(e.contains("enc/f1.aes") && e.contains("corrupted"), "{e}");
    assert!(e.contains("outputs were written"), "{e}");
    assert!(!d.path().join("dec/f1").exists());
    let left: Vec<_> = std::fs::read_dir(d.path().join("dec"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".wireseal-partial-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Encrypts `inputs` into `enc/` as version 3 (2,000 rounds), one run.
fn encrypt_v3(d: &Path, inputs: &[&str], extra: &[&str]) {
    let mut args = vec!["aescrypt", "encrypt", "--iterations", "2000", "--force"];
    args.extend(extra);
    args.extend(["--out-dir", "enc"]);
    args.extend(inputs);
    let o = run(&args, d);
    assert!(o.status.success(), "{}", err(&o));
}

#[test]
fn version_3_files_of_several_runs_restore_in_one_call() {
    let d = setup(&[0, 5000, 70_000, 10, 300, 1 << 20]);
    // Two runs of one salt each, and files with salts of their own: the
    // decryption stretches once per salt and opens every file.
    encrypt_v3(d.path(), &["in/f0", "in/f1", "in/f2"], &[]);
    encrypt_v3(d.path(), &["in/f3", "in/f4"], &[]);
    encrypt_v3(d.path(), &["in/f5"], &["--salt-per-file"]);
    let encs: Vec<String> = (0..6).map(|i| format!("enc/f{i}.aes")).collect();
    let mut args = vec!["aescrypt", "decrypt", "--out-dir", "dec", "--jobs", "4"];
    args.extend(encs.iter().map(String::as_str));
    let o = run(&args, d.path());
    assert!(o.status.success(), "{}", err(&o));
    for i in 0..6 {
        let a = std::fs::read(d.path().join(format!("in/f{i}"))).unwrap();
        let b = std::fs::read(d.path().join(format!("dec/f{i}"))).unwrap();
        assert!(a == b, "f{i}");
    }
    // The wrong password: refused, nothing written (no input is started
    // after the first failure, so the others may never be tried).
    let o = Command::new(BIN)
        .args(["aescrypt", "decrypt", "--force", "--out-dir", "dec"])
        .args(&encs[..3])
        .args(["--password-env", "WS_PW"])
        .env("WS_PW", "Correct horse battery staple")
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(!o.status.success());
    let e = err(&o);
    assert!(e.contains(".aes: wrong password"), "{e}");
    assert!(e.contains("0 of 3 outputs were written"), "{e}");
    // The outputs of the first call stay as they were.
    let a = std::fs::read(d.path().join("in/f1")).unwrap();
    assert_eq!(std::fs::read(d.path().join("dec/f1")).unwrap(), a);
}
