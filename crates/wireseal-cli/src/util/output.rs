//! Results on stdout: human text by default, one JSON object per result with
//! `--json`, or raw bytes with `--out-format raw`.

use super::input::OutFormat;
use anyhow::{bail, Result};
use serde_json::Value;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Exit status when stdout is a pipe whose reader went away: what a Unix
/// tool killed by `SIGPIPE` reports (128 + 13).
pub const EXIT_BROKEN_PIPE: u8 = 141;

/// Writes to stdout. A reader that closed the pipe (`wireseal ... | head`)
/// ends the process quietly with [`EXIT_BROKEN_PIPE`]; any other write
/// failure ends it with a message and status 1. Never panics, unlike
/// `println!`.
pub fn stdout_bytes(data: &[u8]) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(data).and_then(|()| out.flush()) {
        stdout_failed(&e);
    }
}

/// [`stdout_bytes`] for formatted text (the [`outln!`](crate::outln) macro).
pub fn stdout_fmt(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        stdout_failed(&e);
    }
}

fn stdout_failed(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(i32::from(EXIT_BROKEN_PIPE));
    }
    let _ = writeln!(
        std::io::stderr(),
        "wireseal: error: cannot write to stdout: {e}"
    );
    std::process::exit(1);
}

/// `println!` that never panics: see [`stdout_bytes`].
#[macro_export]
macro_rules! outln {
    () => {
        $crate::util::output::stdout_bytes(b"\n")
    };
    ($($arg:tt)*) => {
        $crate::util::output::stdout_fmt(format_args!("{}\n", format_args!($($arg)*)))
    };
}

static JSON: AtomicBool = AtomicBool::new(false);

/// Switches every result to JSON (`--json`); set once at start-up.
pub fn set_json(on: bool) {
    JSON.store(on, Ordering::Relaxed);
}

/// Whether `--json` was given.
pub fn json() -> bool {
    JSON.load(Ordering::Relaxed)
}

/// Prints one result made of named fields: a JSON object under `--json`,
/// else one `name: value` line per field (underscores shown as hyphens,
/// strings bare, absent values skipped). A result of one field prints just
/// its value.
pub fn fields(pairs: &[(&str, Value)]) {
    fields_shown(pairs, &[]);
}

/// As [`fields`], but human text shows only the fields named in `shown`
/// (all when it is empty); JSON always has every field.
pub fn fields_shown(pairs: &[(&str, Value)], shown: &[&str]) {
    if json() {
        // Written by hand so the fields keep their documented order.
        let body: Vec<String> = pairs
            .iter()
            .map(|(k, v)| format!("{}:{v}", Value::String((*k).to_owned())))
            .collect();
        crate::outln!("{{{}}}", body.join(","));
        return;
    }
    let shown: Vec<_> = pairs
        .iter()
        .filter(|(k, v)| !v.is_null() && (shown.is_empty() || shown.contains(k)))
        .collect();
    if let [(_, v)] = shown.as_slice() {
        crate::outln!("{}", human(v));
        return;
    }
    for (k, v) in shown {
        crate::outln!("{}: {}", k.replace('_', "-"), human(v));
    }
}

fn human(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Bool(true) => "yes".into(),
        Value::Bool(false) => "no".into(),
        Value::Array(a) => a.iter().map(human).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// Prints a result of bytes: hex (human), `{"FIELD": "HEX"}` (`--json`) or
/// the bytes themselves (`--out-format raw`).
///
/// # Errors
///
/// `--out-format raw` together with `--json`, or stdout cannot be written.
pub fn bytes(field: &str, data: &[u8], format: OutFormat) -> Result<()> {
    match format {
        OutFormat::Raw if json() => bail!("--out-format raw writes bytes; drop --json"),
        OutFormat::Raw => stdout_bytes(data),
        OutFormat::Hex => fields(&[(field, Value::String(hex::encode(data)))]),
    }
    Ok(())
}
