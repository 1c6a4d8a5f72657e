//! The gateway end to end: a local Mosquitto on a free loopback port (the
//! test kit's), the `wireseal meshtastic gateway` process subscribed to it,
//! and the feed published at QoS 0 by the test kit's raw MQTT 3.1.1
//! publisher. The figure is packets per second from the first byte
//! published to the gateway's exit after `--max-packets N` JSON lines.

use super::process::{broker, command};
use super::{Feed, Kind, RunError, SECTION, SENDERS};
use crate::peers::Skip;
use crate::{Better, Ctx, Row};
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::mqtt::{publish_packet, Publisher};

/// One run: start the gateway, publish `n` envelopes, wait for its exit.
fn one_run(broker: &Mosquitto, feed: &Feed, n: usize) -> Result<f64, RunError> {
    let mut gw = command(broker, feed, n)?
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
            publish_packet(&mut bytes, topic, env, None);
        }
        let mut s = Publisher::connect(broker.port, "wireseal-bench-pub").map_err(Skip::new)?;
        let t = Instant::now();
        s.write(&bytes).map_err(Skip::new)?;
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
        s.disconnect();
        Ok(el)
    })();
    let _ = gw.kill();
    let _ = gw.wait();
    let got = lines.join().unwrap_or_default();
    // Signed packets seen before their sender's first PKC packet (in the
    // first pass over the feed only) read `unknown_key`.
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
pub(super) fn row(ctx: &Ctx, feed: &Feed, peer_rate: Option<f64>) -> Row {
    let n = if ctx.full { 100_000 } else { 20_000 };
    let runs = if ctx.full { 3 } else { 1 };
    let workload = format!("gw end to end via Mosquitto, mix x {n}");
    let baseline_name = "meshtastic-mqtt-json in process, channel only";
    let measured = broker().map_err(RunError::Skip).and_then(|b| {
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
