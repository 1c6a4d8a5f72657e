//! `wireseal aescrypt encrypt` / `decrypt` killed with
//! SIGKILL at 50 seeded random points (25 each) spread over a run's measured
//! duration: the output path never holds a partial result (it is absent or
//! holds the complete, correct file) and the input is never changed. The
//! hidden partial file a killed run leaves in the output's folder is removed
//! by the next run there, which says so on stderr. Bounded: 50 runs of a
//! 64 MiB file, each killed within 1.1x the measured duration.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support;

use support::{Rng, BIN};
const SIZE: usize = 64 << 20;
const KILLS_PER_DIRECTION: usize = 25;
const PASSWORD: &str = "correct horse battery staple";
/// Prefix of the temporary output a run renames into place.
const PARTIAL_PREFIX: &str = ".wireseal-partial-";

fn command(verb: &str, input: &Path, output: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.args(["aescrypt", verb])
        .arg(input)
        .arg(output)
        .args(["--password-env", "E3_FAULT_PASSWORD"])
        .env("E3_FAULT_PASSWORD", PASSWORD)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

/// Runs to completion; the time it took.
fn run_whole(verb: &str, input: &Path, output: &Path) -> Duration {
    let t0 = Instant::now();
    let out = command(verb, input, output).output().unwrap();
    assert!(
        out.status.success(),
        "{verb}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    t0.elapsed()
}

/// Starts a run and sends it SIGKILL after `delay`; whether it finished
/// before the signal.
fn run_killed(verb: &str, input: &Path, output: &Path, delay: Duration) -> bool {
    let mut child = command(verb, input, output).spawn().unwrap();
    let t0 = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{verb} failed before its kill point");
            return true;
        }
        if t0.elapsed() >= delay {
            child.kill().unwrap();
            child.wait().unwrap();
            return false;
        }
        std::thread::sleep(Duration::from_millis(1).min(delay.saturating_sub(t0.elapsed())));
    }
}

/// Hidden partial outputs in `dir`.
fn partials(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(PARTIAL_PREFIX))
        .collect()
}

/// What the kills of one direction saw.
#[derive(Debug, Default)]
struct Tally {
    killed: usize,
    finished: usize,
    complete_outputs: usize,
    /// Runs after which a killed run's partial file was left in the folder
    /// (each is removed by the next run).
    partial_left: usize,
}

/// Kills `verb` from `input` to `output` at `KILLS_PER_DIRECTION` points
/// spread over 1.1x `whole` (the tail catches the rename); after each, the input equals `input_bytes`, the
/// output is absent or passes `check`, and at most one partial file (the
/// killed run's own) is in the folder: each run removes what the killed
/// ones before it left. A last whole run reports and removes the leftover.
fn kill_runs(
    rng: &mut Rng,
    verb: &str,
    input: &Path,
    input_bytes: &[u8],
    output: &Path,
    whole: Duration,
    check: &dyn Fn(&Path),
) -> Tally {
    let dir = output.parent().unwrap();
    let mut t = Tally::default();
    for i in 0..KILLS_PER_DIRECTION {
        let delay = whole.mul_f64(1.1 * rng.unit());
        if run_killed(verb, input, output, delay) {
            t.finished += 1;
        } else {
            t.killed += 1;
        }
        assert!(
            std::fs::read(input).unwrap() == input_bytes,
            "{verb} run {i} (killed at {delay:?}) changed its input"
        );
        if output.exists() {
            check(output);
            t.complete_outputs += 1;
            std::fs::remove_file(output).unwrap();
        }
        let left = partials(dir);
        assert!(
            left.len() <= 1,
            "{verb} run {i}: earlier runs' partial files were not removed: {left:?}"
        );
        t.partial_left += left.len();
    }
    // The next run in the folder removes the last leftover and says so.
    let had_leftover = !partials(dir).is_empty();
    let out = command(verb, input, output).output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.contains("partial output left by an interrupted run"),
        had_leftover,
        "{verb}: a leftover must be reported exactly when there was one: {err}"
    );
    assert!(partials(dir).is_empty(), "{verb}: {:?}", partials(dir));
    check(output);
    std::fs::remove_file(output).unwrap();
    t
}

/// Random-looking plaintext from a seed, quick to make.
fn plaintext(seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut v = vec![0u8; SIZE];
    for chunk in v.chunks_mut(8) {
        chunk.copy_from_slice(&rng.next().to_le_bytes()[..chunk.len()]);
    }
    v
}

#[test]
fn sigkill_never_leaves_a_partial_output_or_a_changed_input() {
    let t0 = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let out_dir: PathBuf = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let plain_path = dir.path().join("plain.bin");
    let sealed_path = dir.path().join("sealed.aes");
    let plain = plaintext(0x0AE5_C0DE);
    std::fs::write(&plain_path, &plain).unwrap();

    // Whole runs first: their durations place the kill points, and the
    // sealed file is the decryption runs' input.
    let enc_time = run_whole("encrypt", &plain_path, &sealed_path);
    let sealed = std::fs::read(&sealed_path).unwrap();
    let check_path = dir.path().join("check.bin");
    let dec_time = run_whole("decrypt", &sealed_path, &check_path);
    assert!(std::fs::read(&check_path).unwrap() == plain);
    std::fs::remove_file(&check_path).unwrap();

    let mut rng = Rng(14_005);
    let enc_out = out_dir.join("sealed.aes");
    let enc = kill_runs(
        &mut rng,
        "encrypt",
        &plain_path,
        &plain,
        &enc_out,
        enc_time,
        &|p| {
            // A complete encryption decrypts to the plaintext.
            let back = dir.path().join("back.bin");
            run_whole("decrypt", p, &back);
            assert!(
                std::fs::read(&back).unwrap() == plain,
                "a visible encryption output does not decrypt to the input"
            );
            std::fs::remove_file(&back).unwrap();
        },
    );
    let dec_out = out_dir.join("plain.bin");
    let dec = kill_runs(
        &mut rng,
        "decrypt",
        &sealed_path,
        &sealed,
        &dec_out,
        dec_time,
        &|p| {
            assert!(
                std::fs::read(p).unwrap() == plain,
                "a visible decryption output is not the whole plaintext"
            );
        },
    );
    let total = t0.elapsed();
    eprintln!(
        "{} MiB: encrypt {enc_time:?}, decrypt {dec_time:?}; encrypt kills {enc:?}; decrypt \
         kills {dec:?}; total {total:?}",
        SIZE >> 20
    );
    assert!(
        enc.killed + dec.killed >= 2 * KILLS_PER_DIRECTION * 3 / 4,
        "too few runs were killed before finishing: {enc:?} {dec:?}"
    );
}
