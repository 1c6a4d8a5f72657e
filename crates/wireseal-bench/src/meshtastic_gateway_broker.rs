//! The gateway end to end: a local Mosquitto on a free loopback port, the
//! `wireseal meshtastic gateway` process subscribed to it, and the feed
//! published at QoS 0 by a minimal MQTT 3.1.1 client written here. The
//! figure is packets per second from the first byte published to the
//! gateway's exit after `--max-packets N` JSON lines.

use super::meshtastic_gateway::{Feed, Kind, OUR_NODE, SENDERS};
use super::{Better, Ctx, Row};
use crate::peers::{cache_dir, Skip};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const SECTION: &str = "meshtastic";
const KEY_ENV: &str = "WIRESEAL_BENCH_GATEWAY_KEY";

/// The `mosquitto` program: on the PATH, else where Debian installs it.
fn mosquitto() -> Result<PathBuf, Skip> {
    let runs = |p: &Path| {
        Command::new(p)
            .arg("-h")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    };
    [
        PathBuf::from("mosquitto"),
        PathBuf::from("/usr/sbin/mosquitto"),
    ]
    .into_iter()
    .find(|p| runs(p))
    .ok_or_else(|| Skip::new("mosquitto is not installed (apt-get install mosquitto)"))
}

/// A Mosquitto broker on a free loopback port; stopped and its directory
/// removed when dropped.
pub(crate) struct Broker {
    pub(crate) port: u16,
    pub(crate) child: Child,
    dir: PathBuf,
}

impl Broker {
    pub(crate) fn start() -> Result<Broker, Skip> {
        let exe = mosquitto()?;
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| Skip::new(format!("no free loopback port: {e}")))?
            .port();
        let dir = cache_dir()?.join(format!("bench-mosquitto-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| Skip::new(format!("{}: {e}", dir.display())))?;
        let conf = dir.join("mosquitto.conf");
        // Messages to a subscriber that lags are queued, not dropped, and
        // QoS 1 messages in flight to one are not limited in number.
        let text = format!(
            "listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n\
             log_dest none\nmax_queued_messages 0\nmax_inflight_messages 40000\n"
        );
        std::fs::write(&conf, text).map_err(|e| Skip::new(format!("{}: {e}", conf.display())))?;
        let child = Command::new(exe)
            .arg("-c")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Skip::new(format!("mosquitto does not start: {e}")))?;
        let b = Broker { port, child, dir };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return Err(Skip::new(format!("mosquitto did not listen on {port}")));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(b)
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// An MQTT remaining-length field.
pub(crate) fn remaining_len(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let b = (n % 128) as u8;
        n /= 128;
        out.push(if n > 0 { b | 0x80 } else { b });
        if n == 0 {
            return;
        }
    }
}

/// CONNECT (MQTT 3.1.1, clean session, keep-alive 60 s).
pub(crate) fn connect_packet(client_id: &str) -> Vec<u8> {
    let mut body = b"\x00\x04MQTT\x04\x02\x00\x3c".to_vec();
    body.extend((client_id.len() as u16).to_be_bytes());
    body.extend(client_id.as_bytes());
    let mut p = vec![0x10];
    remaining_len(&mut p, body.len());
    p.extend(body);
    p
}

/// PUBLISH at QoS 0, appended to `out`.
fn publish_packet(out: &mut Vec<u8>, topic: &str, payload: &[u8]) {
    out.push(0x30);
    remaining_len(out, 2 + topic.len() + payload.len());
    out.extend((topic.len() as u16).to_be_bytes());
    out.extend(topic.as_bytes());
    out.extend(payload);
}

/// A connected publisher.
fn publisher(port: u16) -> Result<TcpStream, Skip> {
    let err = |e: std::io::Error| Skip::new(format!("publishing to mosquitto: {e}"));
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(err)?;
    s.set_nodelay(true).map_err(err)?;
    s.write_all(&connect_packet("wireseal-bench-pub"))
        .map_err(err)?;
    let mut connack = [0u8; 4];
    s.read_exact(&mut connack).map_err(err)?;
    if connack != [0x20, 0x02, 0x00, 0x00] {
        return Err(Skip::new(format!("mosquitto refused: {connack:02x?}")));
    }
    Ok(s)
}

/// Why a run gave no figure.
pub(crate) enum RunError {
    /// Something it needs is missing (the baseline row is skipped).
    Skip(Skip),
    /// The gateway's output was wrong: the run fails.
    Fail(String),
}

impl From<Skip> for RunError {
    fn from(s: Skip) -> Self {
        RunError::Skip(s)
    }
}

/// One run: start the gateway, publish `n` envelopes, wait for its exit.
fn one_run(broker: &Broker, feed: &Feed, n: usize) -> Result<f64, RunError> {
    let mut gw = Command::new(crate::peers::wireseal_bin()?)
        .args(["meshtastic", "gateway", "--broker"])
        .arg(format!("mqtt://127.0.0.1:{}", broker.port))
        .args(["--channel", "LongFast=AQ==", "--node"])
        .arg(format!("!{OUR_NODE:08x}"))
        .args(["--key-env", KEY_ENV, "--max-packets"])
        .arg(n.to_string())
        .env(KEY_ENV, hex::encode(feed.our.expose()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Skip::new(format!("cannot start the gateway: {e}")))?;
    let out = gw.stdout.take().expect("piped");
    let lines = std::thread::spawn(move || {
        let mut c = Counts::default();
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            c.lines += 1;
            c.errors += usize::from(l.contains("\"error\""));
            c.valid += usize::from(l.contains("\"signature\":\"valid\""));
        }
        c
    });
    let (tx, rx) = mpsc::channel();
    let err = gw.stderr.take().expect("piped");
    std::thread::spawn(move || {
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let result = (|| {
        let ready = Instant::now() + Duration::from_secs(10);
        loop {
            let left = ready.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(l) if l.contains("subscribed") => break,
                Ok(_) => {}
                Err(_) => return Err(Skip::new("the gateway did not subscribe within 10 s")),
            }
        }
        // The SUBACK follows the log line; give it time on a loaded machine.
        std::thread::sleep(Duration::from_millis(300));
        let mut bytes = Vec::new();
        for (_, topic, env) in feed.envelopes.iter().cycle().take(n) {
            publish_packet(&mut bytes, topic, env);
        }
        let mut s = publisher(broker.port)?;
        let t = Instant::now();
        s.write_all(&bytes)
            .map_err(|e| Skip::new(format!("publishing: {e}")))?;
        let deadline = t + Duration::from_secs(120);
        loop {
            match gw.try_wait() {
                Ok(Some(st)) if st.success() => break,
                Ok(Some(st)) => return Err(Skip::new(format!("the gateway exited with {st}"))),
                Ok(None) if Instant::now() > deadline => {
                    return Err(Skip::new(
                        "the gateway did not get every packet within 120 s",
                    ))
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(1)),
                Err(e) => return Err(Skip::new(format!("waiting for the gateway: {e}"))),
            }
        }
        let el = t.elapsed().as_secs_f64();
        let _ = s.write_all(&[0xe0, 0x00]);
        Ok(el)
    })();
    let _ = gw.kill();
    let _ = gw.wait();
    let got = lines.join().unwrap_or_default();
    // Signed packets seen before their sender's first PKC packet (in the
    // first pass over the feed only) read `unknown-key`.
    let signed = feed.envelopes.iter().cycle().take(n);
    let signed = signed.filter(|e| e.0 == Kind::Signed).count();
    match result {
        Ok(el) if got.lines == n && got.errors == 0 && got.valid + SENDERS >= signed => Ok(el),
        Ok(_) => Err(RunError::Fail(format!(
            "the gateway wrote {} JSON lines for {n} packets, {} with an error, \
             {} of {signed} signatures valid",
            got.lines, got.errors, got.valid
        ))),
        Err(e) => Err(RunError::Skip(Skip::new(format!(
            "{e} ({} of {n} lines)",
            got.lines
        )))),
    }
}

/// What the gateway wrote.
#[derive(Debug, Default)]
struct Counts {
    lines: usize,
    errors: usize,
    valid: usize,
}

/// The end-to-end row, against meshtastic-mqtt-json's in-process rate on
/// the feed's channel envelopes (`peer_rate`, from the same run): the peer
/// pays neither the broker nor PKC and signature work, so the ratio is a
/// lower bound on what a gateway built on it would lose.
pub fn end_to_end(ctx: &Ctx, feed: &Feed, peer_rate: Option<f64>) -> Row {
    let n = if ctx.full { 100_000 } else { 20_000 };
    let runs = if ctx.full { 3 } else { 1 };
    let workload = format!("gw end to end via Mosquitto, mix x {n}");
    let baseline_name = "meshtastic-mqtt-json in process, channel only";
    let measured = Broker::start().map_err(RunError::Skip).and_then(|b| {
        let mut v = (0..runs)
            .map(|_| one_run(&b, feed, n))
            .collect::<Result<Vec<f64>, RunError>>()?;
        Ok(crate::timing::median(&mut v))
    });
    match measured {
        Ok(t) => {
            let peer = peer_rate.ok_or_else(|| Skip::new("meshtastic-mqtt-json row was skipped"));
            Row::with_peer(
                SECTION,
                workload,
                "pkt/s",
                Better::Higher,
                n as f64 / t,
                baseline_name,
                peer.as_ref().copied(),
            )
            .seed("gateway process: MQTT in, JSON lines out")
        }
        Err(RunError::Skip(why)) => Row::new(
            SECTION,
            workload,
            "pkt/s",
            Better::Higher,
            0.0,
            baseline_name,
            None,
        )
        .skipped(&why),
        Err(RunError::Fail(why)) => Row::new(
            SECTION,
            workload,
            "pkt/s",
            Better::Higher,
            0.0,
            baseline_name,
            None,
        )
        .failed(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remaining_length_is_mqtt_varint() {
        let enc = |n| {
            let mut v = Vec::new();
            remaining_len(&mut v, n);
            v
        };
        assert_eq!(enc(0), [0]);
        assert_eq!(enc(127), [0x7f]);
        assert_eq!(enc(128), [0x80, 0x01]);
        assert_eq!(enc(16_383), [0xff, 0x7f]);
        assert_eq!(enc(16_384), [0x80, 0x80, 0x01]);
    }

    #[test]
    fn publish_packet_layout() {
        let mut v = Vec::new();
        publish_packet(&mut v, "a/b", b"xy");
        assert_eq!(v, b"\x30\x07\x00\x03a/bxy");
    }
}
