//! Helpers for the gateway tests: a real Mosquitto broker on a free loopback
//! port, the Python feed (interop/meshtastic/feed.py), and the gateway process.
#![allow(dead_code)]

pub mod pki;
pub mod store;

use base64::Engine as _;
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use wireseal::keys::StaticSecret;

/// Fails: a peer is missing. Under `WIRESEAL_ALLOW_MISSING_PEERS=1` prints
/// `skipped: WHY` instead.
pub fn skip_or_fail(why: &str) {
    assert!(
        std::env::var_os("WIRESEAL_ALLOW_MISSING_PEERS").is_some_and(|v| v == "1"),
        "a peer is missing: {why} (scripts/test installs every peer; \
         WIRESEAL_ALLOW_MISSING_PEERS=1 skips instead)"
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

/// The node number the gateways decode PKC packets for.
pub const OUR_NODE: u32 = 0x0a0b0c0d;

/// A file holding a fresh X25519 node key (hex) and its public key.
pub fn key_file() -> (tempfile::NamedTempFile, [u8; 32]) {
    let k = StaticSecret::generate();
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), hex::encode(k.expose())).unwrap();
    (f, *k.public_key())
}

/// The gateway's arguments: `broker`, LongFast, two `Ops` channels with one
/// hash (same-hash trial), our node and key, then `extra`.
pub fn args(broker: &str, key: &tempfile::NamedTempFile, extra: &[&str]) -> Vec<String> {
    let ops_a: Vec<u8> = (3..19).collect();
    let mut ops_b = ops_a.clone();
    ops_b[0] ^= 0x55;
    ops_b[1] ^= 0x55;
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let mut v: Vec<String> = vec![
        "--broker".into(),
        broker.to_owned(),
        "--channel".into(),
        "LongFast=AQ==".into(),
        "--channel".into(),
        format!("Ops={}", b64(&ops_a)),
        "--channel".into(),
        format!("Ops={}", b64(&ops_b)),
        "--node".into(),
        format!("!{OUR_NODE:08x}"),
        "--key-file".into(),
        key.path().display().to_string(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// Asserts that `got` holds each packet of the feed `expected` that is not
/// dropped, once, with the expected fields (but those in `skip`).
pub fn check(expected: &[serde_json::Value], got: &[serde_json::Value], skip: &[&str]) {
    let by_key: HashMap<(u64, u64), &serde_json::Value> = got
        .iter()
        .map(|g| ((g["from"].as_u64().unwrap(), g["id"].as_u64().unwrap()), g))
        .collect();
    assert_eq!(by_key.len(), got.len(), "every packet decoded once");
    for e in expected
        .iter()
        .filter(|e| e["expect"].get("dropped").is_none())
    {
        let x = &e["expect"];
        let g = by_key[&(x["from"].as_u64().unwrap(), x["id"].as_u64().unwrap())];
        for (k, v) in x
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| !skip.contains(&k.as_str()))
        {
            assert_eq!(&g[k], v, "field {k} of {g}");
        }
    }
}

/// A Mosquitto broker; stopped when dropped.
pub struct Broker {
    /// The plain, anonymous listener (the feed publishes here).
    pub port: u16,
    /// The TLS listener (0 when the broker has none).
    pub tls_port: u16,
    /// The certificates of the TLS listener and its clients.
    pub pki: Option<pki::Pki>,
    child: Child,
    dir: tempfile::TempDir,
}

/// What the broker's TLS listener asks of its clients.
#[derive(Debug, Default, Clone, Copy)]
pub struct TlsListener {
    /// A client certificate signed by the test CA.
    pub require_client_cert: bool,
    /// This user name and password.
    pub login: Option<(&'static str, &'static str)>,
}

fn free_ports() -> (u16, u16) {
    let a = TcpListener::bind("127.0.0.1:0").unwrap();
    let b = TcpListener::bind("127.0.0.1:0").unwrap();
    (
        a.local_addr().unwrap().port(),
        b.local_addr().unwrap().port(),
    )
}

impl Broker {
    /// Starts a broker with one plain listener on a free loopback port.
    pub fn start() -> Broker {
        Self::start_with(None)
    }

    /// Starts a broker with a plain listener and a TLS listener (a fresh
    /// [`pki::Pki`] in the broker's directory) that asks what `l` says.
    pub fn start_tls(l: TlsListener) -> Broker {
        Self::start_with(Some(l))
    }

    fn start_with(tls: Option<TlsListener>) -> Broker {
        let dir = tempfile::tempdir().unwrap();
        let (port, second) = free_ports();
        let mut conf = format!(
            "per_listener_settings true\npersistence false\nlog_dest none\n\
             max_inflight_messages 0\nmax_queued_messages 0\n\
             listener {port} 127.0.0.1\nallow_anonymous true\n"
        );
        let (tls_port, pki) = match tls {
            None => (0, None),
            Some(l) => {
                let pki = pki::Pki::write(dir.path());
                conf += &format!(
                    "listener {second} 127.0.0.1\ncafile {}\ncertfile {}\nkeyfile {}\nrequire_certificate {}\n",
                    pki.ca.display(),
                    pki.server_cert.display(),
                    pki.server_key.display(),
                    l.require_client_cert
                );
                match l.login {
                    Some((user, pass)) => {
                        let file = dir.path().join("passwd");
                        let ok = Command::new("mosquitto_passwd")
                            .args(["-c", "-b"])
                            .arg(&file)
                            .args([user, pass])
                            .status()
                            .expect("run mosquitto_passwd");
                        assert!(ok.success());
                        conf +=
                            &format!("allow_anonymous false\npassword_file {}\n", file.display());
                    }
                    None => conf += "allow_anonymous true\n",
                }
                (second, Some(pki))
            }
        };
        std::fs::write(dir.path().join("mosquitto.conf"), conf).unwrap();
        Self::launch(port, tls_port, pki, dir)
    }

    fn launch(port: u16, tls_port: u16, pki: Option<pki::Pki>, dir: tempfile::TempDir) -> Broker {
        let child = Command::new("mosquitto")
            .arg("-c")
            .arg(dir.path().join("mosquitto.conf"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start mosquitto");
        let deadline = Instant::now() + Duration::from_secs(10);
        for p in [port, tls_port].into_iter().filter(|&p| p != 0) {
            while TcpStream::connect(("127.0.0.1", p)).is_err() {
                assert!(Instant::now() < deadline, "mosquitto did not listen on {p}");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        Broker {
            port,
            tls_port,
            pki,
            child,
            dir,
        }
    }

    /// `mqtt://127.0.0.1:PORT` of the plain listener.
    pub fn url(&self) -> String {
        format!("mqtt://127.0.0.1:{}", self.port)
    }

    /// `mqtts://127.0.0.1:PORT` of the TLS listener.
    pub fn tls_url(&self) -> String {
        format!("mqtts://127.0.0.1:{}", self.tls_port)
    }

    /// Stops the broker and starts a new one on the same ports and files.
    pub fn restart(mut self) -> Broker {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let dir = std::mem::replace(&mut self.dir, tempfile::tempdir().unwrap());
        std::thread::sleep(Duration::from_millis(300));
        Self::launch(self.port, self.tls_port, self.pki.take(), dir)
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

    /// Sends SIGINT, waits for the exit status and returns it with the
    /// stderr lines not yet taken.
    pub fn interrupt(mut self) -> (std::process::ExitStatus, Vec<String>) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let status = self.child.wait().unwrap();
        // The reader thread may still hold the last lines: take them until
        // it sees the pipe's end and drops its sender.
        let mut rest = Vec::new();
        while let Ok(l) = self.stderr.recv_timeout(Duration::from_secs(10)) {
            rest.push(l);
        }
        (status, rest)
    }
}
