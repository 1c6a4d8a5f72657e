//! The gateway's log: lines to standard error (or another writer), at most
//! `burst` per `period` per kind, the number suppressed said with the next
//! line that gets through. Text from the feed reaches a line only through
//! the library's [`safe_level`] ([`safe_topic`], [`safe_field`]), so a
//! hostile id cannot forge lines or terminal escapes. A log that can no longer be written (its pipe closed)
//! is reported by [`Log::closed`] and the gateway ends cleanly.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, Instant};
use wireseal::meshtastic::untrusted::{safe_level, safe_level_or_label, UNUSABLE_LABEL};

/// Where the lines go.
pub enum LogTarget {
    /// Standard error.
    Stderr,
    /// Nowhere (an embedding program that reads the events instead).
    Discard,
    /// A writer of the caller's.
    Writer(Box<dyn Write + Send>),
}

impl std::fmt::Debug for LogTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LogTarget::Stderr => "Stderr",
            LogTarget::Discard => "Discard",
            LogTarget::Writer(_) => "Writer",
        })
    }
}

/// The rate-limited log.
#[derive(Debug)]
pub struct Log {
    target: LogTarget,
    period: Duration,
    burst: u32,
    kinds: BTreeMap<&'static str, (Instant, u32, u64)>,
    closed: bool,
}

impl Log {
    /// A log to `target`: 5 lines per kind per 10 s.
    pub fn new(target: LogTarget) -> Self {
        Self {
            target,
            period: Duration::from_secs(10),
            burst: 5,
            kinds: BTreeMap::new(),
            closed: false,
        }
    }

    /// Whether writing failed because the reader went away (a closed pipe).
    pub fn closed(&self) -> bool {
        self.closed
    }

    /// Writes `wireseal gateway: MSG` whatever the rate.
    pub fn always(&mut self, msg: &str) {
        self.write(&format!("wireseal gateway: {msg}\n"));
    }

    /// Writes a line as it is (a JSON object of counts).
    pub fn raw(&mut self, line: &str) {
        self.write(&format!("{line}\n"));
    }

    /// Logs `msg` under `kind` unless this kind is over its rate.
    pub fn line(&mut self, kind: &'static str, msg: &str) {
        let now = Instant::now();
        let e = self.kinds.entry(kind).or_insert((now, 0, 0));
        if now.duration_since(e.0) >= self.period {
            *e = (now, 0, e.2);
        }
        if e.1 >= self.burst {
            e.2 += 1;
            return;
        }
        e.1 += 1;
        let suppressed = std::mem::take(&mut e.2);
        let text = match suppressed {
            0 => format!("wireseal gateway: {kind}: {msg}\n"),
            n => format!("wireseal gateway: {kind}: {msg} ({n} similar lines suppressed)\n"),
        };
        self.write(&text);
    }

    fn write(&mut self, text: &str) {
        if self.closed {
            return;
        }
        let r = match &mut self.target {
            LogTarget::Stderr => {
                let mut e = std::io::stderr().lock();
                e.write_all(text.as_bytes()).and_then(|()| e.flush())
            }
            LogTarget::Discard => Ok(()),
            LogTarget::Writer(w) => w.write_all(text.as_bytes()).and_then(|()| w.flush()),
        };
        if r.is_err() {
            self.closed = true;
        }
    }
}

/// A topic for a log line: each level through the library's check (a level
/// it refuses shows as its label), at most 12 levels.
pub fn safe_topic(topic: &str) -> String {
    let mut out: Vec<&str> = topic
        .split('/')
        .take(12)
        .map(|l| {
            if l.is_empty() {
                ""
            } else {
                safe_level_or_label(l)
            }
        })
        .collect();
    if topic.split('/').count() > 12 {
        out.push("…");
    }
    out.join("/")
}

/// An id or name from the feed for a log line: itself when the library
/// takes it, else its label.
pub fn safe_field(text: &str) -> &str {
    match safe_level(text) {
        Ok(t) => t,
        Err(_) => UNUSABLE_LABEL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);

    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn rate_limited_and_closed_pipes_seen() {
        let buf = Buf::default();
        let mut log = Log::new(LogTarget::Writer(Box::new(buf.clone())));
        for i in 0..8 {
            log.line("malformed", &format!("message {i}"));
        }
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text.lines().count(), 5, "{text}");
        assert!(!log.closed());
        let mut log = Log::new(LogTarget::Writer(Box::new(Closed)));
        log.always("x");
        assert!(log.closed());
    }

    #[test]
    fn topics_and_fields_cannot_forge_lines() {
        assert_eq!(
            safe_topic("msh/US/2/e/LongFast/!0a0b0c0d"),
            "msh/US/2/e/LongFast/!0a0b0c0d"
        );
        assert_eq!(
            safe_topic("msh/US/2/e/x\nwireseal gateway: fake/!gw"),
            format!("msh/US/2/e/{UNUSABLE_LABEL}/!gw")
        );
        assert_eq!(safe_field("\x1b[2J"), UNUSABLE_LABEL);
        assert!(safe_topic(&"a/".repeat(100)).ends_with('…'));
    }
}
