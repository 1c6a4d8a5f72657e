//! The clients of the read side's rows: plain HTTP/1.1 requests timed one
//! by one (a connection each, as a probe or a page's fetch opens them),
//! percentiles, many clients at once, and the status page's first render
//! in headless Chromium read over the DevTools protocol.
//!
//! The first render is the page's own clock: once its first refresh has
//! put the API's nodes and packets in the tables, the script waits for the
//! next animation frame and a task after it (the frame is drawn) and writes
//! `performance.now()` (milliseconds since navigation began) into
//! `body[data-first-render-ms]`. Chromium runs with `--remote-debugging-pipe`
//! (the DevTools protocol as NUL-separated JSON on its descriptors 3 and 4,
//! given it by `sh` from our pipes): a new tab opens the page with a fresh
//! profile (nothing cached), and `Runtime.evaluate` reads the mark.

use crate::peers::Skip;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `GET path` on a connection of its own: the status and the body.
///
/// # Errors
/// The connection failed or the answer is not HTTP.
pub(crate) fn get(addr: SocketAddr, path: &str) -> Result<(u16, Vec<u8>), String> {
    let mut s = TcpStream::connect(addr).map_err(|e| format!("{addr}: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut buf = Vec::with_capacity(64 * 1024);
    s.read_to_end(&mut buf)
        .map_err(|e| format!("{path}: {e}"))?;
    let head_end = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| format!("{path}: no HTTP answer"))?;
    let head = String::from_utf8_lossy(&buf[..head_end]);
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("{path}: no status"))?;
    Ok((status, buf.split_off(head_end + 4)))
}

/// Seconds one `GET path` took, failing unless it answered 200 with a body.
///
/// # Errors
/// Any other answer.
pub(crate) fn timed(addr: SocketAddr, path: &str) -> Result<f64, String> {
    let t = Instant::now();
    match get(addr, path)? {
        (200, b) if !b.is_empty() => Ok(t.elapsed().as_secs_f64()),
        (status, b) => Err(format!(
            "{path}: status {status}: {}",
            String::from_utf8_lossy(&b[..b.len().min(200)])
        )),
    }
}

/// Whether the gateway at `addr` is stopping or gone (its `/readyz` says
/// `stopping`, or nothing answers).
fn stopping(addr: SocketAddr) -> bool {
    match get(addr, "/readyz") {
        Ok((503, b)) => String::from_utf8_lossy(&b).contains("stopping"),
        Ok(_) => false,
        Err(_) => true,
    }
}

/// The `p` quantile (0 to 1) of `v`, by the nearest rank.
pub(crate) fn quantile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let rank = (p * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// Samples: which path, when its answer ended, seconds.
pub(crate) type Samples = Vec<(usize, Instant, f64)>;

/// Times `paths` in turn, again and again, on another thread until
/// stopped or a request fails.
pub(crate) struct Sampler {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<(Samples, Option<(Instant, String)>)>,
}

impl Sampler {
    /// Starts sampling once `addr` answers `/healthz`.
    pub(crate) fn start(addr: SocketAddr, paths: Vec<String>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut out = Vec::new();
            while !flag.load(Ordering::Relaxed) && get(addr, "/healthz").is_err() {
                std::thread::sleep(Duration::from_millis(10));
            }
            while !flag.load(Ordering::Relaxed) {
                for (i, p) in paths.iter().enumerate() {
                    match timed(addr, p) {
                        Ok(s) => out.push((i, Instant::now(), s)),
                        // The gateway's exit (after `--max-packets`) ends
                        // the sampling.
                        Err(_) if stopping(addr) => return (out, None),
                        Err(e) => return (out, Some((Instant::now(), e))),
                    }
                }
            }
            (out, None)
        });
        Self { stop, thread }
    }

    /// Stops; every sample, and the first failure with its time, if one
    /// came before the gateway began to stop.
    pub(crate) fn finish(self) -> (Samples, Option<(Instant, String)>) {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap_or_else(|_| {
            (
                Vec::new(),
                Some((Instant::now(), "the sampler panicked".into())),
            )
        })
    }
}

/// `clients` threads requesting `paths` in turn (each from its own place)
/// for `secs`; the requests answered.
///
/// # Errors
/// A request that failed.
pub(crate) fn load(
    addr: SocketAddr,
    paths: &[&str],
    clients: usize,
    secs: f64,
) -> Result<usize, String> {
    let end = Instant::now() + Duration::from_secs_f64(secs);
    let threads: Vec<_> = (0..clients)
        .map(|c| {
            let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
            std::thread::spawn(move || -> Result<usize, String> {
                let mut n = 0;
                while Instant::now() < end {
                    timed(addr, &paths[(c + n) % paths.len()])?;
                    n += 1;
                }
                Ok(n)
            })
        })
        .collect();
    let mut total = 0;
    for t in threads {
        total += t.join().map_err(|_| "a client panicked".to_owned())??;
    }
    Ok(total)
}

fn chromium() -> Result<std::path::PathBuf, Skip> {
    wireseal_testkit::chromium::program().map_err(Skip::new)
}

/// Profiles made by this process so far (each browser gets its own).
static PROFILES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Headless Chromium driven over `--remote-debugging-pipe`.
pub(crate) struct Browser {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
    next: u64,
    profile: std::path::PathBuf,
}

impl Browser {
    /// Starts Chromium with a fresh profile.
    ///
    /// # Errors
    /// Chromium is missing or does not start.
    pub(crate) fn start() -> Result<Self, Skip> {
        let exe = chromium()?;
        let profile = crate::peers::cache_dir()?.join(format!(
            "bench-chromium-{}-{}",
            std::process::id(),
            PROFILES.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&profile);
        // `sh` hands Chromium our pipes as its descriptors 3 and 4.
        let mut child = Command::new("sh")
            .arg("-c")
            .arg("exec \"$0\" \"$@\" 3<&0 4>&1 </dev/null >/dev/null 2>/dev/null")
            .arg(exe)
            .args(wireseal_testkit::chromium::HEADLESS)
            .arg("--remote-debugging-pipe")
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Skip::new(format!("cannot start chromium: {e}")))?;
        let to = child.stdin.take().expect("piped");
        let from = BufReader::new(child.stdout.take().expect("piped"));
        Ok(Self {
            child,
            to,
            from,
            next: 1,
            profile,
        })
    }

    /// Sends `method` (to `session`, if given) and waits for its result.
    fn call(
        &mut self,
        method: &str,
        params: serde_json::Value,
        session: Option<&str>,
    ) -> Result<serde_json::Value, String> {
        let id = self.next;
        self.next += 1;
        let mut m = serde_json::json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            m["sessionId"] = s.into();
        }
        let mut bytes = m.to_string().into_bytes();
        bytes.push(0);
        self.to
            .write_all(&bytes)
            .and_then(|()| self.to.flush())
            .map_err(|e| format!("chromium: {e}"))?;
        loop {
            let mut msg = Vec::new();
            if self
                .from
                .read_until(0, &mut msg)
                .map_err(|e| e.to_string())?
                == 0
            {
                return Err("chromium closed its pipe".into());
            }
            msg.pop();
            let v: serde_json::Value = serde_json::from_slice(&msg).map_err(|e| e.to_string())?;
            if v["id"] == id {
                return match v.get("error") {
                    Some(e) => Err(format!("{method}: {e}")),
                    None => Ok(v["result"].clone()),
                };
            }
        }
    }

    /// Opens `url` in a new tab; milliseconds from navigation to the page's
    /// first render as the page measured it (see the module's docs).
    ///
    /// # Errors
    /// The protocol failed or the page did not render within `timeout`.
    pub(crate) fn first_render_ms(&mut self, url: &str, timeout: Duration) -> Result<f64, String> {
        let t = self.call(
            "Target.createTarget",
            serde_json::json!({ "url": url }),
            None,
        )?;
        let target = t["targetId"].clone();
        let a = self.call(
            "Target.attachToTarget",
            serde_json::json!({ "targetId": target, "flatten": true }),
            None,
        )?;
        let session = a["sessionId"].as_str().unwrap_or_default().to_owned();
        let end = Instant::now() + timeout;
        let ms = loop {
            let r = self.call(
                "Runtime.evaluate",
                serde_json::json!({
                    "expression": "document.body ? (document.body.dataset.firstRenderMs || '') : ''",
                    "returnByValue": true,
                }),
                Some(&session),
            )?;
            if let Some(ms) = r["result"]["value"]
                .as_str()
                .and_then(|v| v.parse::<f64>().ok())
            {
                break ms;
            }
            if Instant::now() > end {
                return Err(format!("{url} did not render within {timeout:?}"));
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        self.call(
            "Target.closeTarget",
            serde_json::json!({ "targetId": target }),
            None,
        )?;
        Ok(ms)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.call("Browser.close", serde_json::json!({}), None);
        let end = Instant::now() + Duration::from_secs(5);
        while Instant::now() < end && !matches!(self.child.try_wait(), Ok(Some(_))) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_quantiles() {
        let mut v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(quantile(&mut v, 0.99), 99.0);
        assert_eq!(quantile(&mut v, 0.5), 50.0);
        assert_eq!(quantile(&mut v, 1.0), 100.0);
        assert_eq!(quantile(&mut [3.0, 1.0, 2.0], 0.99), 3.0);
        assert_eq!(quantile(&mut [], 0.99), 0.0);
    }
}
