//! The progress bar of `wireseal file` and the reader that feeds it.

use std::io::{self, IsTerminal, Read, Write};
use std::time::{Duration, Instant};

/// Counts bytes read for the progress bar.
pub(super) struct Counting<'a, R> {
    pub(super) inner: R,
    pub(super) progress: &'a std::sync::Mutex<Progress>,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Ok(mut p) = self.progress.lock() {
            p.add(n as u64);
        }
        Ok(n)
    }
}

/// A small progress bar on stderr, shown only on a terminal and only for
/// inputs of at least 32 MiB (or of unknown size).
pub(super) struct Progress {
    enabled: bool,
    total: Option<u64>,
    done: u64,
    start: Instant,
    last: Instant,
}

impl Progress {
    pub(super) fn new(total: Option<u64>) -> Self {
        let big = total.is_none_or(|t| t >= 32 << 20);
        let now = Instant::now();
        Self {
            enabled: big && io::stderr().is_terminal(),
            total,
            done: 0,
            start: now,
            last: now,
        }
    }

    pub(super) fn add(&mut self, n: u64) {
        self.done += n;
        if self.enabled && self.last.elapsed() >= Duration::from_millis(200) {
            self.last = Instant::now();
            self.draw();
        }
    }

    fn draw(&self) {
        let mib = self.done as f64 / (1 << 20) as f64;
        let rate = mib / self.start.elapsed().as_secs_f64().max(1e-9);
        let line = match self.total {
            Some(t) if t > 0 => {
                let frac = (self.done as f64 / t as f64).min(1.0);
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

    pub(super) fn done(&mut self) {
        if self.enabled {
            self.draw();
            let _ = io::stderr().write_all(b"\n");
        }
    }
}
