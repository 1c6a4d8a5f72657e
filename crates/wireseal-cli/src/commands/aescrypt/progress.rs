//! The progress bar of `wireseal aescrypt` (one for the whole run, however
//! many inputs) and the reader that feeds it.

use std::io::{self, IsTerminal, Read, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Counts bytes read for the progress bar.
pub(super) struct Counting<'a, R> {
    pub(super) inner: R,
    pub(super) progress: &'a Progress,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.add(n as u64);
        Ok(n)
    }
}

/// A small progress bar on stderr, shown only on a terminal and only for
/// runs of at least 32 MiB (or of unknown size). Shared by the threads of a
/// run.
pub(super) struct Progress {
    enabled: bool,
    total: Option<u64>,
    start: Instant,
    state: Mutex<Drawn>,
}

struct Drawn {
    done: u64,
    last: Instant,
}

impl Progress {
    pub(super) fn new(total: Option<u64>) -> Self {
        let big = total.is_none_or(|t| t >= 32 << 20);
        let now = Instant::now();
        Self {
            enabled: big && io::stderr().is_terminal(),
            total,
            start: now,
            state: Mutex::new(Drawn { done: 0, last: now }),
        }
    }

    pub(super) fn add(&self, n: u64) {
        if !self.enabled {
            return;
        }
        let Ok(mut s) = self.state.lock() else { return };
        s.done += n;
        if s.last.elapsed() >= Duration::from_millis(200) {
            s.last = Instant::now();
            self.draw(s.done);
        }
    }

    fn draw(&self, done: u64) {
        let mib = done as f64 / (1 << 20) as f64;
        let rate = mib / self.start.elapsed().as_secs_f64().max(1e-9);
        let line = match self.total {
            Some(t) if t > 0 => {
                let frac = (done as f64 / t as f64).min(1.0);
                let filled = (frac * 30.0) as usize;
                format!(
                    "\r[{}{}] {:5.1}% {:.0} MiB ({:.0} MiB/s)",
                    "#".repeat(filled),
                    ".".repeat(30 - filled),
                    frac * 100.0,
                    mib,
                    rate
                )
            }
            _ => format!("\r{mib:.0} MiB ({rate:.0} MiB/s)"),
        };
        let _ = io::stderr().write_all(line.as_bytes());
    }

    pub(super) fn done(&self) {
        if self.enabled {
            if let Ok(s) = self.state.lock() {
                self.draw(s.done);
            }
            let _ = io::stderr().write_all(b"\n");
        }
    }
}
