//! SIGINT and SIGTERM sent while `wireseal keygen --out` writes a key file,
//! the moment anything appears or changes in its folder: the key file is
//! as it was (absent, or its old contents under `--force`) with exit 130
//! and a message saying so, or complete (one hex line, mode 0600) with its
//! public key printed and exit 0. Never empty or cut, never without the
//! public key on a success, and no partial file is left.
#![cfg(target_os = "linux")]

use rustix::process::{kill_process, Pid, Signal};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::daily::ok;
use crate::support::BIN;

const OLD: &str = "the old key\n";
const KEY: &str = "node.key";

/// Whether the run has touched the folder: an entry other than the old key
/// file, or the key file not as it was.
fn touched(dir: &Path, replacing: bool) -> bool {
    let mut names = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok());
    if names.any(|n| n != KEY) {
        return true;
    }
    match std::fs::read_to_string(dir.join(KEY)) {
        Ok(now) => !replacing || now != OLD,
        Err(_) => replacing,
    }
}

/// One run signalled when it touches the folder (or not at all when it
/// finished first); checks what it left. Returns the exit code.
fn signalled_run(dir: &Path, sig: Signal, replacing: bool, what: &str) -> i32 {
    let key = dir.join(KEY);
    let _ = std::fs::remove_file(&key);
    if replacing {
        std::fs::write(&key, OLD).unwrap();
    }
    let mut args = vec!["keygen", "x25519", "--json", "--out", key.to_str().unwrap()];
    if replacing {
        args.push("--force");
    }
    let mut child = Command::new(BIN)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let mut exited = false;
    while !touched(dir, replacing) {
        if child.try_wait().unwrap().is_some() {
            exited = true;
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "{what}: hangs");
        std::hint::spin_loop();
    }
    // Not reaped yet, so the PID is still this child's.
    if !exited && child.try_wait().unwrap().is_none() {
        let _ = kill_process(Pid::from_raw(child.id() as i32).unwrap(), sig);
    }
    let o = child.wait_with_output().unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    let code = o.status.code();
    match code {
        Some(130) => {
            assert!(out.is_empty(), "{what}: exit 130 and printed {out}");
            if replacing {
                assert_eq!(std::fs::read_to_string(&key).unwrap(), OLD, "{what}");
                assert!(err.contains("left as it was"), "{what}: {err}");
            } else {
                assert!(!key.exists(), "{what}: exit 130 with the key file written");
                assert!(err.contains("not written"), "{what}: {err}");
            }
        }
        Some(0) => {
            let line = std::fs::read_to_string(&key).unwrap();
            let hex = line.strip_suffix('\n').unwrap_or("");
            assert!(
                hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()),
                "{what}: the key file holds {line:?}"
            );
            let mode = std::fs::metadata(&key).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{what}");
            let printed: serde_json::Value = serde_json::from_str(out.trim())
                .unwrap_or_else(|e| panic!("{what}: exit 0 without the public key ({e}): {out}"));
            let public = ok(&["pubkey", "x25519", "--key-file", key.to_str().unwrap()]);
            assert!(
                public.contains(printed["public_key"].as_str().unwrap()),
                "{what}"
            );
        }
        _ => panic!("{what}: unexpected {:?}; {err}", o.status),
    }
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n != KEY)
        .collect();
    assert!(
        left.is_empty(),
        "{what}: files left beside the key: {left:?}"
    );
    code.unwrap_or_default()
}

#[test]
fn a_signal_while_a_key_file_is_written_leaves_it_as_it_was_or_complete() {
    let dir = tempfile::tempdir().unwrap();
    let mut interrupted = 0;
    for (sig, name) in [(Signal::INT, "INT"), (Signal::TERM, "TERM")] {
        for replacing in [false, true] {
            for k in 0..12 {
                let what = format!("SIG{name}, replacing {replacing}, run {k}");
                if signalled_run(dir.path(), sig, replacing, &what) == 130 {
                    interrupted += 1;
                }
            }
        }
    }
    eprintln!("{interrupted} of 48 runs interrupted before the key file was in place");
}
