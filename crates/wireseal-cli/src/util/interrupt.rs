//! Ctrl-C, SIGTERM and SIGHUP (ctrlc's `termination` feature) while the
//! command line writes a file through a partial file (`aescrypt`'s OUTs,
//! key and mesh-key files): the handler looks at what the run is doing,
//! under the same lock the run holds while it moves an output into place,
//! so what it says is what is on disk.
//!
//! - before any output: nothing written, exit 130;
//! - writing partial files: they are removed, their OUTs are as they were,
//!   and the OUTs already moved into place are complete, exit 130;
//! - streaming into stdout, a FIFO or a device: what was written stays
//!   written and the message says it is incomplete, exit 130;
//! - after the last rename (and what the run prints about it): every OUT
//!   is complete and the message says so, exit 0.

use anyhow::{anyhow, Context, Result};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use wireseal_io::{PartialFile, Replace};

/// A partial file being written.
#[derive(Debug)]
struct Active {
    partial: PathBuf,
    output: String,
    /// OUT exists and is being replaced.
    replacing: bool,
}

/// What the run is doing, for the signal handler.
#[derive(Debug)]
enum Phase {
    /// Nothing written yet.
    Idle,
    /// Writing partial files, each to be renamed to its output; `done` of
    /// `total` outputs are in place.
    Writing {
        active: Vec<Active>,
        done: usize,
        total: usize,
    },
    /// Writing straight into `output` (stdout, a FIFO, a device).
    Streaming { output: String },
    /// `output` holds the complete result.
    Done { output: String },
}

static PHASE: Mutex<Phase> = Mutex::new(Phase::Idle);

fn with<R>(f: impl FnOnce(&mut Phase) -> R) -> Option<R> {
    PHASE.lock().ok().map(|mut g| f(&mut g))
}

/// Installs the handler (once per process).
pub(crate) fn install() {
    // A second call finds the handler installed; nothing to do.
    let _ = ctrlc::set_handler(|| {
        // Held until exit, so the run cannot move an output meanwhile.
        let guard = PHASE.lock();
        let (msg, code) = match guard.as_deref() {
            Ok(Phase::Writing {
                active,
                done,
                total,
            }) => {
                for a in active {
                    let _ = std::fs::remove_file(&a.partial);
                }
                writing_message(active, *done, *total)
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

/// What the handler says while partial files are being written.
fn writing_message(active: &[Active], done: usize, total: usize) -> (String, i32) {
    if active.is_empty() && done == total && total > 0 {
        let msg = if total == 1 {
            "signal received after the output was complete; completed".to_owned()
        } else {
            format!("signal received after all {total} outputs were complete; completed")
        };
        return (msg, 0);
    }
    let what = |a: &Active| {
        let state = if a.replacing {
            "left as it was"
        } else {
            "not written"
        };
        format!("{} {state}", a.output)
    };
    let list: Vec<String> = active.iter().map(what).collect();
    let msg = if total <= 1 {
        match list.first() {
            Some(one) => format!("interrupted; {one}"),
            None => "interrupted; nothing was written".to_owned(),
        }
    } else {
        let mut m = format!("interrupted; {done} of {total} outputs complete");
        if !list.is_empty() {
            m.push_str("; ");
            m.push_str(&list.join(", "));
        }
        m
    };
    (msg, 130)
}

/// The run will write `total` outputs through partial files.
pub(crate) fn expect_outputs(total: usize) {
    with(|p| {
        *p = Phase::Writing {
            active: Vec::new(),
            done: 0,
            total,
        }
    });
}

/// Runs `create`, which creates the partial file for `output` (which
/// exists when `replacing`), with the handler held off, and registers the
/// file it made (`partial` names it): a signal is handled either before it
/// (no partial file yet) or after it (the partial file is removed).
fn create_partial<T, E>(
    output: &str,
    replacing: bool,
    create: impl FnOnce() -> Result<T, E>,
    partial: impl FnOnce(&T) -> PathBuf,
) -> Result<T, E> {
    let mut guard = PHASE.lock().ok();
    let r = create();
    if let (Some(phase), Ok(made)) = (guard.as_deref_mut(), &r) {
        if !matches!(phase, Phase::Writing { .. }) {
            *phase = Phase::Writing {
                active: Vec::new(),
                done: 0,
                total: 1,
            };
        }
        if let Phase::Writing { active, .. } = phase {
            active.push(Active {
                partial: partial(made),
                output: output.to_owned(),
                replacing,
            });
        }
    }
    r
}

/// The partial file `partial` is gone (its run failed and removed it).
pub(crate) fn abandoned(partial: &Path) {
    with(|p| {
        if let Phase::Writing { active, .. } = p {
            active.retain(|a| a.partial != partial);
        }
    });
}

/// The run is writing into `output` directly.
pub(crate) fn streaming(output: &str) {
    with(|p| {
        *p = Phase::Streaming {
            output: output.to_owned(),
        }
    });
}

/// The run has finished writing `output`.
pub(crate) fn done(output: &str) {
    with(|p| {
        *p = Phase::Done {
            output: output.to_owned(),
        }
    });
}

/// Runs `rename` (which moves the partial file `partial` into place) with
/// the handler held off, and records its success: a signal is handled
/// either before it (the partial file is removed) or after it (its OUT is
/// complete).
fn commit<T, E>(partial: &Path, rename: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    let mut guard = PHASE.lock().ok();
    let r = rename();
    if let Some(phase) = guard.as_deref_mut() {
        if let Phase::Writing {
            active,
            done,
            total,
        } = phase
        {
            let output = active
                .iter()
                .position(|a| a.partial == partial)
                .map(|i| active.remove(i).output);
            if r.is_ok() {
                *done += 1;
                if let (1, Some(output)) = (*total, output) {
                    *phase = Phase::Done { output };
                }
            }
        }
    }
    r
}

/// Starts the partial file for OUT (`path`, which exists when
/// `replacing`): says on stderr which partial files of killed runs it
/// removed from the folder. The signal handler knows of the partial file
/// from the moment it exists.
///
/// # Errors
///
/// The partial file cannot be created.
pub(crate) fn begin(output: &str, path: &Path, replacing: bool) -> Result<PartialFile> {
    let replace = if replacing {
        Replace::Allow
    } else {
        Replace::Refuse
    };
    let part = create_partial(
        output,
        replacing,
        || PartialFile::create(path, replace),
        |p| p.path().to_path_buf(),
    )
    .with_context(|| format!("cannot write {output}"))?;
    for p in &part.leftovers().removed {
        eprintln!(
            "wireseal: removed {}, a partial output left by an interrupted run",
            p.display()
        );
    }
    for (p, why) in &part.leftovers().kept {
        eprintln!(
            "wireseal: {} is a partial output left by an interrupted run; cannot remove it: {why}",
            p.display()
        );
    }
    Ok(part)
}

/// Flushes the partial file to disk, moves it over OUT and runs
/// `announce` (what the run prints about OUT), with the signal handler
/// held off from the rename until `announce` returns: a signal is handled
/// before the rename (OUT as it was) or after both (OUT complete and
/// announced).
///
/// # Errors
///
/// Flushing or renaming failed, OUT appeared meanwhile (when not
/// replacing), or OUT became something other than a regular file; the
/// partial file is removed then and `announce` is not run.
pub(crate) fn finish(part: PartialFile, output: &str, announce: impl FnOnce()) -> Result<()> {
    let partial = part.path().to_path_buf();
    part.persist_with(|rename| {
        commit(&partial, || {
            rename()?;
            announce();
            Ok(())
        })
    })
    .map_err(|e| {
        abandoned(&partial);
        anyhow!("cannot move the output into place at {output}: {e}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn active(output: &str, replacing: bool) -> Active {
        Active {
            partial: PathBuf::from(format!(".p-{output}")),
            output: output.to_owned(),
            replacing,
        }
    }

    #[test]
    fn messages_say_what_is_on_disk() {
        assert_eq!(
            writing_message(&[active("a", false)], 0, 1),
            ("interrupted; a not written".to_owned(), 130)
        );
        assert_eq!(
            writing_message(&[active("a", true)], 0, 1),
            ("interrupted; a left as it was".to_owned(), 130)
        );
        assert_eq!(writing_message(&[], 1, 1).1, 0);
        assert_eq!(
            writing_message(&[active("c", false), active("d", true)], 2, 5),
            (
                "interrupted; 2 of 5 outputs complete; c not written, d left as it was".to_owned(),
                130
            )
        );
        assert_eq!(
            writing_message(&[], 3, 3),
            (
                "signal received after all 3 outputs were complete; completed".to_owned(),
                0
            )
        );
    }
}
