//! SIGINT, SIGTERM and SIGKILL at random points of a 200 MB `wireseal
//! aescrypt encrypt` and `decrypt` (`WIRESEAL_SIGNAL_RUNS` runs of each
//! signal and command, 8 by default; seed in `WIRESEAL_SIGNAL_SEED`):
//!
//! - OUT is always either as it was (absent, or its old contents when it
//!   existed and `--force` was given) or the complete new result; never
//!   partial;
//! - the input never changes;
//! - SIGINT/SIGTERM: exit 130 with a message saying OUT was not written /
//!   left as it was, or exit 0 with OUT complete; no partial file remains;
//! - SIGKILL: a partial file may remain, and the next run into the folder
//!   removes it and says so.
#![cfg(target_os = "linux")]

use rustix::process::{kill_process, Pid, Signal};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_wireseal");
const SIZE: usize = 200 << 20;
const OLD: &[u8] = b"the old contents of OUT";
const PREFIX: &str = ".wireseal-partial-";

/// xorshift64*: the delays and the input bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// 4 KiB at 16 offsets spread over a file, the last block included.
fn samples(path: &Path) -> Option<(u64, Vec<Vec<u8>>)> {
    let mut f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    let mut out = Vec::new();
    for i in 0..16u64 {
        let at = (len.saturating_sub(4096)) * i / 15;
        f.seek(SeekFrom::Start(at)).ok()?;
        let mut b = vec![0u8; 4096.min(len as usize)];
        f.read_exact(&mut b).ok()?;
        out.push(b);
    }
    Some((len, out))
}

#[derive(Debug, PartialEq, Eq)]
enum State {
    Absent,
    Old,
    Complete,
    Partial(u64),
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Encrypt,
    Decrypt,
}

struct Fixture {
    dir: tempfile::TempDir,
    input: PathBuf,
    aes: PathBuf,
    input_id: (u64, Vec<Vec<u8>>),
    aes_len: u64,
    encrypt_time: Duration,
    decrypt_time: Duration,
}

fn args(op: Op, f: &Fixture, out: &Path) -> Vec<String> {
    let mut a: Vec<String> = match op {
        Op::Encrypt => vec!["aescrypt", "encrypt", "--iterations", "1000"],
        Op::Decrypt => vec!["aescrypt", "decrypt"],
    }
    .into_iter()
    .map(String::from)
    .collect();
    a.extend(["--password-env".into(), "WS_PW".into(), "--force".into()]);
    let src = match op {
        Op::Encrypt => &f.input,
        Op::Decrypt => &f.aes,
    };
    a.push(src.to_str().unwrap().into());
    a.push(out.to_str().unwrap().into());
    a
}

fn run(a: &[String]) -> std::process::Child {
    Command::new(BIN)
        .args(a)
        .env("WS_PW", "pw")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.bin");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut w = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
    let mut chunk = vec![0u8; 1 << 20];
    for _ in 0..SIZE >> 20 {
        for c in chunk.chunks_mut(8) {
            c.copy_from_slice(&rng.next().to_le_bytes());
        }
        w.write_all(&chunk).unwrap();
    }
    w.flush().unwrap();
    drop(w);
    let input_id = samples(&input).unwrap();
    let aes = dir.path().join("input.bin.aes");
    let mut f = Fixture {
        input_id,
        aes_len: 0,
        encrypt_time: Duration::ZERO,
        decrypt_time: Duration::ZERO,
        aes: aes.clone(),
        input,
        dir,
    };
    let t0 = Instant::now();
    let o = run(&args(Op::Encrypt, &f, &aes))
        .wait_with_output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    f.encrypt_time = t0.elapsed();
    f.aes_len = std::fs::metadata(&aes).unwrap().len();
    let check = f.dir.path().join("check.bin");
    let t0 = Instant::now();
    let o = run(&args(Op::Decrypt, &f, &check))
        .wait_with_output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    f.decrypt_time = t0.elapsed();
    assert!(samples(&check).unwrap() == f.input_id);
    std::fs::remove_file(&check).unwrap();
    f
}

fn state(op: Op, f: &Fixture, out: &Path) -> State {
    let Ok(m) = std::fs::metadata(out) else {
        return State::Absent;
    };
    if std::fs::read(out).is_ok_and(|b| b == OLD) {
        return State::Old;
    }
    let complete = match op {
        // Random IVs: a complete ciphertext has the reference's length and
        // the AES Crypt magic; a short one is partial.
        Op::Encrypt => {
            m.len() == f.aes_len
                && std::fs::File::open(out)
                    .and_then(|mut h| {
                        let mut b = [0u8; 3];
                        h.read_exact(&mut b).map(|_| b)
                    })
                    .is_ok_and(|b| &b == b"AES")
        }
        Op::Decrypt => samples(out).as_ref() == Some(&f.input_id),
    };
    if complete {
        State::Complete
    } else {
        State::Partial(m.len())
    }
}

fn partials(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(PREFIX))
        .collect()
}

#[test]
fn signals_at_random_points_leave_the_old_or_the_complete_output() {
    let runs: usize = std::env::var("WIRESEAL_SIGNAL_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let seed: u64 = std::env::var("WIRESEAL_SIGNAL_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5167_4e41_4c53);
    let t_all = Instant::now();
    let f = fixture();
    eprintln!(
        "200 MB: encrypt {:?}, decrypt {:?}; {runs} runs per signal and command, seed {seed}",
        f.encrypt_time, f.decrypt_time
    );
    let mut rng = Rng(seed | 1);
    let out = f.dir.path().join("out.bin");
    let mut seen: Vec<String> = Vec::new();
    for op in [Op::Encrypt, Op::Decrypt] {
        let full = match op {
            Op::Encrypt => f.encrypt_time,
            Op::Decrypt => f.decrypt_time,
        };
        for (sig, name) in [
            (Signal::INT, "INT"),
            (Signal::TERM, "TERM"),
            (Signal::KILL, "KILL"),
        ] {
            for k in 0..runs {
                let existed = k % 2 == 1;
                let _ = std::fs::remove_file(&out);
                if existed {
                    std::fs::write(&out, OLD).unwrap();
                }
                // Anywhere from the start to a little past the reference
                // run's end.
                let delay = full.mul_f64((rng.next() % 1000) as f64 / 1000.0 * 1.15);
                let child = run(&args(op, &f, &out));
                std::thread::sleep(delay);
                let pid = Pid::from_raw(child.id() as i32).unwrap();
                let _ = kill_process(pid, sig);
                let o = child.wait_with_output().unwrap();
                let err = String::from_utf8_lossy(&o.stderr).into_owned();
                let st = state(op, &f, &out);
                let what = format!("{op:?} SIG{name} after {delay:?} (OUT existed: {existed})");
                seen.push(format!("{what}: {:?} {st:?}", o.status));
                assert!(
                    samples(&f.input).as_ref() == Some(&f.input_id),
                    "{what}: the input changed"
                );
                let old = if existed { State::Old } else { State::Absent };
                assert!(
                    st == old || st == State::Complete,
                    "{what}: OUT is {st:?}; {err}"
                );
                if o.status.success() {
                    assert_eq!(st, State::Complete, "{what}: exit 0; {err}");
                } else if o.status.code() == Some(130) {
                    assert_eq!(st, old, "{what}: exit 130; {err}");
                    let says = if existed {
                        "left as it was"
                    } else {
                        "not written"
                    };
                    assert!(
                        err.contains(says) || err.contains("nothing was written"),
                        "{what}: {err}"
                    );
                } else if name == "KILL" {
                    assert_eq!(o.status.signal(), Some(9), "{what}: {err}");
                } else if o.status.signal() == Some(sig.as_raw()) {
                    // Sent in the process's first milliseconds, before its
                    // handler was installed: the default action ended it
                    // before it touched OUT (its state was checked above).
                    assert_eq!(st, old, "{what}: ended by the signal; {err}");
                } else {
                    panic!("{what}: unexpected {:?}; {err}", o.status);
                }
                let left = partials(f.dir.path());
                if name != "KILL" {
                    assert!(left.is_empty(), "{what}: partial files left: {left:?}");
                    continue;
                }
                // The next run into the folder removes what SIGKILL left.
                let small = f.dir.path().join("small.bin");
                std::fs::write(&small, b"x").unwrap();
                let o = Command::new(BIN)
                    .args(["aescrypt", "encrypt", "--password-env", "WS_PW"])
                    .args(["--iterations", "1000", "--force"])
                    .arg(&small)
                    .env("WS_PW", "pw")
                    .output()
                    .unwrap();
                assert!(o.status.success());
                let next = String::from_utf8_lossy(&o.stderr);
                for l in &left {
                    assert!(
                        next.contains(l.as_str()),
                        "{what}: {l} not reported: {next}"
                    );
                }
                let still = partials(f.dir.path());
                assert!(still.is_empty(), "{what}: not removed: {still:?}");
            }
        }
    }
    eprintln!("{}", seen.join("\n"));
    eprintln!("total {:?}", t_all.elapsed());
}

/// SIGINT or SIGTERM sent the moment a run's partial file appears in OUT's
/// folder: the handler knows of it, removes it and says OUT was not
/// written (or, when the run already finished, that OUT is complete).
#[test]
fn a_signal_as_the_partial_file_appears_removes_it() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.bin");
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let bytes: Vec<u8> = (0..(16 << 20) / 8)
        .flat_map(|_| rng.next().to_le_bytes())
        .collect();
    std::fs::write(&input, &bytes).unwrap();
    let outs = dir.path().join("outs");
    std::fs::create_dir(&outs).unwrap();
    let out = outs.join("out.bin.aes");
    for (sig, name) in [(Signal::INT, "INT"), (Signal::TERM, "TERM")] {
        for k in 0..12 {
            let _ = std::fs::remove_file(&out);
            let child = run(&[
                "aescrypt".into(),
                "encrypt".into(),
                "--iterations".into(),
                "1000".into(),
                "--password-env".into(),
                "WS_PW".into(),
                input.to_str().unwrap().into(),
                out.to_str().unwrap().into(),
            ]);
            let t0 = Instant::now();
            while partials(&outs).is_empty() && !out.exists() {
                assert!(t0.elapsed() < Duration::from_secs(30), "no partial file");
                std::hint::spin_loop();
            }
            let pid = Pid::from_raw(child.id() as i32).unwrap();
            let _ = kill_process(pid, sig);
            let o = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            let what = format!("SIG{name} run {k}");
            match o.status.code() {
                Some(130) => {
                    assert!(!out.exists(), "{what}: exit 130 with OUT written");
                    assert!(err.contains("not written"), "{what}: {err}");
                }
                Some(0) => assert!(out.exists(), "{what}: exit 0 without OUT; {err}"),
                _ => panic!("{what}: unexpected {:?}; {err}", o.status),
            }
            let left = partials(&outs);
            assert!(left.is_empty(), "{what}: partial files left: {left:?}");
        }
    }
}
