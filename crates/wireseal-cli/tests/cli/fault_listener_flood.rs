//! `wireseal bip324 listen` under a flood of 1,000 loopback
//! connections that never complete a handshake (a third send garbage, a
//! third stay silent, a third are slow-loris, one byte every 300 ms) for
//! 30 s, while real clients keep connecting: the listener's resident memory
//! (VmRSS from /proc) stays within 2x its idle value, and every real client
//! completes. Flood connections the listener closes (a handshake failure or
//! its deadline) are reopened, so about 1,000 stay open throughout.
//! Loopback only; every wait is bounded.

use std::collections::VecDeque;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support;

use support::{Listener, Rng, BIN};

/// Flood connections held open at once.
const FLOOD: usize = 1_000;
/// How long the flood lasts.
const FLOOD_TIME: Duration = Duration::from_secs(30);
/// Flood connections opened in all, at most (reopens included).
const MAX_OPENED: usize = 40_000;
/// Gap between two bytes of a slow-loris connection.
const LORIS_GAP: Duration = Duration::from_millis(300);
/// Garbage bytes per write, and the gap between writes.
const GARBAGE_CHUNK: usize = 512;
const GARBAGE_GAP: Duration = Duration::from_millis(50);
/// Packets per real client.
const REAL_COUNT: &str = "200";
/// File descriptors the test process needs: the flood plus real clients,
/// pipes and slack.
const FDS_NEEDED: u64 = FLOOD as u64 + 200;

impl Listener {
    /// Starts the listener through `sh`, with its soft descriptor limit
    /// raised to the hard one (`exec` keeps the process id).
    fn start(extra: &[&str]) -> Listener {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(r#"ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@""#)
            .arg(BIN)
            .args(["bip324", "listen", "127.0.0.1:0", "--echo"])
            .args(extra);
        Listener::spawn(cmd)
    }

    /// Resident memory in KiB, from /proc/PID/status.
    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the listener is gone");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("no VmRSS line")
    }
}

/// The soft limit on open files of this process, from /proc/self/limits.
fn soft_nofile() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    let soft = line.split_whitespace().nth(3)?;
    if soft == "unlimited" {
        Some(u64::MAX)
    } else {
        soft.parse().ok()
    }
}

/// One real client: a handshake and `REAL_COUNT` echoed packets.
fn real_client(addr: SocketAddr) -> Result<(), String> {
    let out = Command::new(BIN)
        .args([
            "bip324",
            "connect",
            &addr.to_string(),
            "--count",
            REAL_COUNT,
        ])
        .output()
        .unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Random bytes, `GARBAGE_CHUNK` every `GARBAGE_GAP`.
    Garbage,
    /// Nothing at all.
    Silence,
    /// One random byte every `LORIS_GAP`.
    SlowLoris,
}

struct Conn {
    stream: TcpStream,
    kind: Kind,
    next_write: Instant,
}

/// What the flood did.
#[derive(Default, Debug)]
struct FloodStats {
    opened: usize,
    closed_by_listener: usize,
    connect_failures: usize,
    bytes_sent: u64,
    fewest_open: usize,
}

fn open(addr: SocketAddr, kind: Kind, now: Instant) -> Option<Conn> {
    let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    stream.set_nonblocking(true).ok()?;
    Some(Conn {
        stream,
        kind,
        next_write: now,
    })
}

/// Whether the listener closed `c` (end of stream or an error); whatever it
/// sent is read and dropped.
fn closed(c: &mut Conn) -> bool {
    let mut buf = [0u8; 4096];
    loop {
        match c.stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == ErrorKind::WouldBlock => return false,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => return true,
        }
    }
}

/// Holds `FLOOD` connections open against `addr` until `stop`, reopening
/// every one the listener closes.
fn flood(addr: SocketAddr, stop: &AtomicBool) -> FloodStats {
    let kinds = [Kind::Garbage, Kind::Silence, Kind::SlowLoris];
    let mut rng = Rng(0x0005_EEDF_100D);
    let mut stats = FloodStats {
        fewest_open: usize::MAX,
        ..FloodStats::default()
    };
    let mut conns: VecDeque<Conn> = VecDeque::with_capacity(FLOOD);
    let mut garbage = [0u8; GARBAGE_CHUNK];
    let mut next_kind = 0usize;
    let mut ramped = false;
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        // Top up to FLOOD (bounded in all by MAX_OPENED).
        while conns.len() < FLOOD && stats.opened < MAX_OPENED {
            let kind = kinds[next_kind % kinds.len()];
            next_kind += 1;
            match open(addr, kind, now) {
                Some(c) => {
                    stats.opened += 1;
                    conns.push_back(c);
                }
                None => {
                    // Try again next round.
                    stats.connect_failures += 1;
                    break;
                }
            }
        }
        if conns.len() >= FLOOD {
            ramped = true;
        }
        if ramped {
            stats.fewest_open = stats.fewest_open.min(conns.len());
        }
        let mut kept = VecDeque::with_capacity(conns.len());
        while let Some(mut c) = conns.pop_front() {
            if closed(&mut c) {
                stats.closed_by_listener += 1;
                continue;
            }
            let mut alive = true;
            if now >= c.next_write {
                let (len, gap) = match c.kind {
                    Kind::Garbage => (GARBAGE_CHUNK, GARBAGE_GAP),
                    Kind::SlowLoris => (1, LORIS_GAP),
                    Kind::Silence => (0, Duration::from_secs(3600)),
                };
                if len > 0 {
                    rng.fill(&mut garbage[..len]);
                    match c.stream.write(&garbage[..len]) {
                        Ok(n) => stats.bytes_sent += n as u64,
                        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                        Err(_) => alive = false,
                    }
                }
                c.next_write = now + gap;
            }
            if alive {
                kept.push_back(c);
            } else {
                stats.closed_by_listener += 1;
            }
        }
        conns = kept;
        std::thread::sleep(Duration::from_millis(10));
    }
    if stats.fewest_open == usize::MAX {
        stats.fewest_open = 0;
    }
    stats
}

#[test]
fn listener_memory_stays_bounded_under_a_flood_and_real_clients_are_served() {
    match soft_nofile() {
        Some(n) if n >= FDS_NEEDED => {}
        n => {
            eprintln!(
                "SKIPPED: the flood needs {FDS_NEEDED} open files in the test process, the soft \
                 limit is {n:?}; raise it (`ulimit -n 4096`) and run again"
            );
            return;
        }
    }
    let cap = (FLOOD + 200).to_string();
    let l = Listener::start(&["--max-connections", &cap, "--max-per-ip", &cap]);
    // Idle: after startup and one real client.
    real_client(l.socket_addr()).expect("a real client before the flood");
    std::thread::sleep(Duration::from_millis(300));
    let idle = l.rss_kib();

    let stop = Arc::new(AtomicBool::new(false));
    let flooder = {
        let stop = Arc::clone(&stop);
        let addr = l.socket_addr();
        std::thread::spawn(move || flood(addr, &stop))
    };
    let real: Arc<Mutex<(usize, Vec<String>)>> = Arc::default();
    let clients = {
        let (stop, real, addr) = (Arc::clone(&stop), Arc::clone(&real), l.socket_addr());
        std::thread::spawn(move || {
            // Let the flood build up first.
            std::thread::sleep(Duration::from_secs(2));
            while !stop.load(Ordering::Relaxed) {
                let r = real_client(addr);
                let mut g = real.lock().unwrap();
                match r {
                    Ok(()) => g.0 += 1,
                    Err(e) => g.1.push(e),
                }
                drop(g);
                std::thread::sleep(Duration::from_millis(250));
            }
        })
    };
    let t0 = Instant::now();
    let mut peak = idle;
    let mut samples = 0usize;
    while t0.elapsed() < FLOOD_TIME {
        std::thread::sleep(Duration::from_millis(250));
        peak = peak.max(l.rss_kib());
        samples += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let stats = flooder.join().unwrap();
    clients.join().unwrap();
    let (served, failed) = std::mem::take(&mut *real.lock().unwrap());
    let after = l.rss_kib();
    let ratio = peak as f64 / idle as f64;
    eprintln!(
        "flood of {FLOOD} for {}s: listener RSS idle {idle} KiB, peak {peak} KiB ({ratio:.2}x, \
         {samples} samples), {after} KiB after; flood {stats:?}; real clients served {served}, \
         failed {}",
        FLOOD_TIME.as_secs(),
        failed.len()
    );
    let log = l.log();
    let tail: Vec<&str> = log.lines().rev().take(10).collect();
    assert!(
        stats.fewest_open >= FLOOD * 9 / 10,
        "the flood did not hold {FLOOD} connections: {stats:?}"
    );
    assert!(
        peak <= 2 * idle,
        "listener RSS {peak} KiB is over 2x its idle {idle} KiB; log tail: {tail:?}"
    );
    assert!(
        failed.is_empty(),
        "real clients failed during the flood ({} served): {failed:?}",
        served
    );
    assert!(served >= 5, "only {served} real clients completed");
}
