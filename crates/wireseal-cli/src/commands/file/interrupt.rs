//! Ctrl-C, SIGTERM and SIGHUP (ctrlc's `termination` feature): the handler
//! looks at what the run is doing, under the same lock the run holds while
//! it moves the output into place, so what it says is what is on disk.
//!
//! - before any output: nothing written, exit 130;
//! - writing a partial file: the file is removed, OUT is as it was, exit 130;
//! - streaming into stdout, a FIFO or a device: what was written stays
//!   written and the message says it is incomplete, exit 130;
//! - after the rename: OUT is complete and the message says so, exit 0.

use std::path::PathBuf;
use std::sync::Mutex;

/// What the run is doing, for the signal handler.
#[derive(Debug)]
enum Phase {
    /// Nothing written yet.
    Idle,
    /// Writing `partial`, to be renamed to `output` (which exists when
    /// `replacing`).
    Partial {
        partial: PathBuf,
        output: String,
        replacing: bool,
    },
    /// Writing straight into `output` (stdout, a FIFO, a device).
    Streaming { output: String },
    /// `output` holds the complete result.
    Done { output: String },
}

static PHASE: Mutex<Phase> = Mutex::new(Phase::Idle);

fn set(p: Phase) {
    if let Ok(mut g) = PHASE.lock() {
        *g = p;
    }
}

/// Installs the handler (once per process).
pub(super) fn install() {
    // A second call finds the handler installed; nothing to do.
    let _ = ctrlc::set_handler(|| {
        // Held until exit, so the run cannot move the output meanwhile.
        let guard = PHASE.lock();
        let (msg, code) = match guard.as_deref() {
            Ok(Phase::Partial {
                partial,
                output,
                replacing,
            }) => {
                let _ = std::fs::remove_file(partial);
                let what = if *replacing {
                    "left as it was"
                } else {
                    "not written"
                };
                (format!("interrupted; {output} {what}"), 130)
            }
            Ok(Phase::Streaming { output }) => (
                format!("interrupted; {output} received an incomplete output"),
                130,
            ),
            Ok(Phase::Done { output }) => (
                format!("signal received after {output} was complete; completed"),
                0,
            ),
            Ok(Phase::Idle) | Err(_) => ("interrupted; nothing was written".to_owned(), 130),
        };
        eprintln!("\nwireseal: {msg}");
        std::process::exit(code);
    });
}

/// The run is writing the partial file `partial` for `output`, which
/// exists when `replacing`.
pub(super) fn writing_partial(partial: PathBuf, output: &str, replacing: bool) {
    set(Phase::Partial {
        partial,
        output: output.to_owned(),
        replacing,
    });
}

/// The run is writing into `output` directly.
pub(super) fn streaming(output: &str) {
    set(Phase::Streaming {
        output: output.to_owned(),
    });
}

/// The run has finished writing `output`.
pub(super) fn done(output: &str) {
    set(Phase::Done {
        output: output.to_owned(),
    });
}

/// Runs `rename` (which moves the partial file to OUT) with the handler
/// held off, and records its success: a signal is handled either before it
/// (the partial file is removed) or after it (OUT is complete).
pub(super) fn commit<T, E>(output: &str, rename: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    let mut guard = PHASE.lock().ok();
    let r = rename();
    if let (Some(g), true) = (guard.as_mut(), r.is_ok()) {
        **g = Phase::Done {
            output: output.to_owned(),
        };
    }
    r
}
