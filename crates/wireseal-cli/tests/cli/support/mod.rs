//! Shared helpers for the CLI tests (`mod support;`): running the binary
//! (with env and stdin), a listener process that reports its port, and a
//! small seeded generator; per-command helpers in the submodules. Not every
//! test file uses every helper.
#![allow(dead_code)]

pub mod bip324;
pub mod daily;
pub mod peat;
pub mod sphinx;

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The `wireseal` binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_wireseal");

/// Runs the binary with `args` and the extra `env`, capturing its output.
pub fn ws_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(BIN)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("run wireseal")
}

/// The stdout of a run of `args` that must have succeeded (panics with its
/// stderr otherwise).
pub fn success_stdout(o: Output, args: &[&str]) -> String {
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// A JSON value that must be a string.
pub fn s(v: &serde_json::Value) -> &str {
    v.as_str().unwrap()
}

/// Runs `cmd` with stdout and stderr captured. `Some(data)` is written to a
/// piped stdin from another thread, which is then closed; `None` leaves
/// stdin as `cmd` sets it.
pub fn output_fed(mut cmd: Command, stdin: Option<&[u8]>) -> Output {
    if stdin.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run wireseal");
    let feeder = stdin.map(|data| {
        let mut input = child.stdin.take().unwrap();
        let data = data.to_vec();
        std::thread::spawn(move || {
            let _ = input.write_all(&data);
        })
    });
    let out = child.wait_with_output().unwrap();
    if let Some(f) = feeder {
        f.join().unwrap();
    }
    out
}

/// A listener process, its address and its stderr log; killed when dropped.
pub struct Listener {
    pub child: Child,
    pub addr: String,
    pub log: tempfile::NamedTempFile,
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Listener {
    /// `wireseal bip324 listen 127.0.0.1:0 --echo` plus `extra`.
    pub fn v2(extra: &[&str]) -> Listener {
        let mut cmd = Command::new(BIN);
        cmd.args(["bip324", "listen", "127.0.0.1:0", "--echo"])
            .args(extra);
        Listener::spawn(cmd)
    }

    /// Spawns `cmd` with stdout piped and stderr into a temporary log, and
    /// reads the address from its first line, `listening on ADDR`.
    pub fn spawn(mut cmd: Command) -> Listener {
        let log = tempfile::NamedTempFile::new().unwrap();
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log.reopen().unwrap()))
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("first line: {line:?}"))
            .to_string();
        Listener { child, addr, log }
    }

    /// The address as a socket address.
    pub fn socket_addr(&self) -> SocketAddr {
        self.addr.parse().unwrap()
    }

    /// The listener's stderr so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap_or_default()
    }

    /// Waits up to `limit` for a log line containing every one of `needles`.
    pub fn wait_log(&self, needles: &[&str], limit: Duration) -> bool {
        let t0 = Instant::now();
        loop {
            let log = self.log();
            if log.lines().any(|l| needles.iter().all(|n| l.contains(n))) {
                return true;
            }
            if t0.elapsed() > limit {
                eprintln!("listener log so far:\n{log}");
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A small seeded generator (SplitMix64).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Fills `buf` with random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let v = self.next().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}
