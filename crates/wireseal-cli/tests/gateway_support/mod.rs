//! Helpers for the gateway tests: a real Mosquitto broker on a free loopback
//! port, the Python feed (interop/meshtastic/feed.py), and the gateway process.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Fails when `WIRESEAL_REQUIRE_PEERS` is set, else prints `skipped: WHY`.
pub fn skip_or_fail(why: &str) {
    assert!(
        std::env::var_os("WIRESEAL_REQUIRE_PEERS").is_none(),
        "WIRESEAL_REQUIRE_PEERS is set but {why}"
    );
    println!("skipped: {why}");
}

/// Why the peers are unusable, if they are.
pub fn missing_peer() -> Option<String> {
    if Command::new("mosquitto")
        .arg("-h")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_err()
    {
        return Some("mosquitto is not installed (apt-get install mosquitto)".into());
    }
    let ok = Command::new("python3")
        .args([
            "-c",
            "import meshtastic.protobuf, cryptography, paho.mqtt, xeddsa",
        ])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    (!ok).then(|| "python3 with meshtastic, cryptography, paho-mqtt and xeddsa is missing".into())
}

/// A Mosquitto broker; stopped when dropped.
pub struct Broker {
    pub port: u16,
    child: Child,
    dir: tempfile::TempDir,
}

impl Broker {
    /// Starts a broker on a free loopback port.
    pub fn start() -> Broker {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Self::start_on(port, tempfile::tempdir().unwrap())
    }

    fn start_on(port: u16, dir: tempfile::TempDir) -> Broker {
        let conf = dir.path().join("mosquitto.conf");
        std::fs::write(&conf, format!("listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest none\n")).unwrap();
        let child = Command::new("mosquitto")
            .arg("-c")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start mosquitto");
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "mosquitto did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Broker { port, child, dir }
    }

    /// Stops the broker and starts a new one on the same port.
    pub fn restart(mut self) -> Broker {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let (port, dir) = (
            self.port,
            std::mem::replace(&mut self.dir, tempfile::tempdir().unwrap()),
        );
        std::thread::sleep(Duration::from_millis(300));
        Self::start_on(port, dir)
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The Python feed script.
pub fn feed_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../interop/meshtastic/feed.py")
}

/// `feed.py make`: the lines, parsed.
pub fn make_feed(
    our_node: u32,
    our_public: &[u8; 32],
    repeat: u32,
    node_base: u32,
) -> Vec<serde_json::Value> {
    let out = Command::new("python3")
        .arg(feed_script())
        .args([
            "make",
            "--our-node",
            &our_node.to_string(),
            "--our-public",
            &hex::encode(our_public),
            "--repeat",
            &repeat.to_string(),
            "--node-base",
            &node_base.to_string(),
        ])
        .output()
        .expect("run feed.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `feed.py publish` of `lines`.
pub fn publish(port: u16, lines: &[serde_json::Value]) {
    use std::io::Write;
    let mut child = Command::new("python3")
        .arg(feed_script())
        .args(["publish", "--port", &port.to_string()])
        .stdin(Stdio::piped())
        .spawn()
        .expect("run feed.py publish");
    let mut input = String::new();
    for l in lines {
        input.push_str(&l.to_string());
        input.push('\n');
    }
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
}

/// A running gateway: its stdout lines and stderr lines arrive on channels.
pub struct Gateway {
    pub child: Child,
    pub stdout: mpsc::Receiver<String>,
    pub stderr: mpsc::Receiver<String>,
}

impl Gateway {
    /// Starts `wireseal meshtastic gateway` with `args`.
    pub fn start(args: &[String]) -> Gateway {
        let mut child = Command::new(env!("CARGO_BIN_EXE_wireseal"))
            .args(["meshtastic", "gateway"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the gateway");
        let (otx, stdout) = mpsc::channel();
        let (etx, stderr) = mpsc::channel();
        let o = child.stdout.take().unwrap();
        let e = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            BufReader::new(o)
                .lines()
                .map_while(Result::ok)
                .for_each(|l| drop(otx.send(l)))
        });
        std::thread::spawn(move || {
            BufReader::new(e)
                .lines()
                .map_while(Result::ok)
                .for_each(|l| drop(etx.send(l)))
        });
        Gateway {
            child,
            stdout,
            stderr,
        }
    }

    /// Waits for a stderr line containing `what`; returns the lines seen.
    pub fn wait_stderr(&self, what: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.stderr.recv_timeout(left) {
                Ok(l) => {
                    let hit = l.contains(what);
                    seen.push(l);
                    if hit {
                        return seen;
                    }
                }
                Err(_) => break,
            }
        }
        panic!("no stderr line with {what:?} within {timeout:?}; saw {seen:?}");
    }

    /// Collects `n` stdout lines (JSON objects).
    pub fn take(&self, n: usize, timeout: Duration) -> Vec<serde_json::Value> {
        let deadline = Instant::now() + timeout;
        let mut v = Vec::new();
        while v.len() < n {
            let left = deadline
                .checked_duration_since(Instant::now())
                .unwrap_or_else(|| panic!("only {} of {n} packets", v.len()));
            let l = self
                .stdout
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("only {} of {n} packets", v.len()));
            v.push(serde_json::from_str(&l).unwrap());
        }
        v
    }

    /// Sends SIGINT and waits for the exit status.
    pub fn interrupt(mut self) -> (std::process::ExitStatus, Vec<String>) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let status = self.child.wait().unwrap();
        let rest: Vec<String> = self.stderr.try_iter().collect();
        (status, rest)
    }
}
