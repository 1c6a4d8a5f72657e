//! Results on stdout: human text by default, one JSON object per result with
//! `--json`, or raw bytes with `--out-format raw`.

use super::input::OutFormat;
use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

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
        println!("{{{}}}", body.join(","));
        return;
    }
    let shown: Vec<_> = pairs
        .iter()
        .filter(|(k, v)| !v.is_null() && (shown.is_empty() || shown.contains(k)))
        .collect();
    if let [(_, v)] = shown.as_slice() {
        println!("{}", human(v));
        return;
    }
    for (k, v) in shown {
        println!("{}: {}", k.replace('_', "-"), human(v));
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
        OutFormat::Raw => {
            let mut out = std::io::stdout().lock();
            out.write_all(data)
                .and_then(|()| out.flush())
                .context("cannot write to stdout")?;
        }
        OutFormat::Hex => fields(&[(field, Value::String(hex::encode(data)))]),
    }
    Ok(())
}
