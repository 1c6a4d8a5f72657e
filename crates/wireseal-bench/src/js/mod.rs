//! The npm package `wireseal` (crates/wireseal-wasm + js/, packed by
//! `scripts/js-build`) against the same jobs composed by hand from
//! `@noble/*` (pure JavaScript) and from `node:crypto` (Node's OpenSSL), in
//! one Node process, samples alternated: `js/bench/bench.mjs`, embedded here
//! with its pinned `package.json` and `package-lock.json`.
//!
//! The script runs in a cache folder (`~/.cache/wireseal/js-bench-KEY`,
//! keyed by the lock file) where `npm ci` installs the peers once and
//! `npm install --no-save` the packed package whenever it changes. Each
//! workload becomes two rows: ours against `@noble/*`, ours against
//! `node:crypto`. The package and `node` are what is measured, so a missing
//! one fails the section (it names `scripts/js-build`), unlike a missing
//! peer elsewhere.
//!
//! "Ours" is the package's Node entry, which registers `node:crypto` under
//! the library's bulk primitives (`wireseal::host`: AES-256-CBC,
//! HMAC-SHA256, ChaCha20-Poly1305 from 1 KiB, PBKDF2 from 64 rounds); the
//! rows it changes (AES Crypt, large BIP324 packets) say so in their notes.

mod script;

use crate::{Better, Ctx, Row};
use script::Workload;
use std::path::PathBuf;

const SECTION: &str = "js";

/// The formats the npm package holds (the size plot's x).
const PACKAGE_FORMATS: f64 = 6.0;

/// The packed package `scripts/js-build` writes: `$WIRESEAL_JS_PACKAGE`, else
/// this checkout's `target/js/wireseal-VERSION.tgz`.
fn package_tgz() -> PathBuf {
    std::env::var_os("WIRESEAL_JS_PACKAGE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
            let checkout = crate_dir.ancestors().nth(2).unwrap_or(crate_dir);
            checkout.join(concat!(
                "target/js/wireseal-",
                env!("CARGO_PKG_VERSION"),
                ".tgz"
            ))
        })
}

/// The section's rows: two per workload, or one failed row saying what is
/// missing.
pub fn run(ctx: &Ctx) -> Vec<Row> {
    match script::prepare(&package_tgz()).and_then(|bench| bench.run(ctx.full)) {
        Ok(workloads) => workloads.iter().flat_map(rows).collect(),
        Err(why) => vec![Row::new(
            SECTION,
            "the npm package against @noble/* and node:crypto",
            "-",
            Better::Lower,
            0.0,
            "-",
            None,
        )
        .failed(why)],
    }
}

/// A workload's rows: ours against each peer, or one failed row.
fn rows(w: &Workload) -> Vec<Row> {
    let better = if w.better_higher {
        Better::Higher
    } else {
        Better::Lower
    };
    if let Some(why) = &w.left_out {
        let why = crate::peers::Skip::new(why.clone());
        return vec![Row::new(SECTION, &w.workload, &w.unit, better, 0.0, "-", None).skipped(&why)];
    }
    if let Some(why) = &w.failed {
        return vec![
            Row::new(SECTION, &w.workload, &w.unit, better, w.ours, "-", None).failed(why.clone()),
        ];
    }
    w.peers
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let row = Row::with_peer(
                SECTION,
                &w.workload,
                &w.unit,
                better,
                w.ours,
                &p.name,
                p.value.as_ref().map(|v| *v),
            );
            let note: Vec<&str> = [w.note.as_deref(), p.note.as_deref()]
                .into_iter()
                .flatten()
                .collect();
            let row = if w.id == "package_size" && i == 0 {
                // The report plots the package against its budget.
                row.at("js-size", "wireseal (npm, all formats)", PACKAGE_FORMATS)
            } else {
                row
            };
            if note.is_empty() {
                row
            } else {
                row.seed(note.join("; "))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workload_is_two_rows_with_ratios_or_reasons() {
        let line = r#"{"id":"x","workload":"w","unit":"µs","better":"lower","ours":2,
            "peers":{"noble":{"name":"n","value":8,"note":"slow"},
                     "node":{"name":"c","skipped":"built in"}},"note":"all"}"#;
        let w = script::parse_line(line).unwrap();
        let r = rows(&w);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].ratio, Some(4.0));
        assert_eq!(r[0].seed_figure.as_deref(), Some("all; slow"));
        assert_eq!(r[1].ratio, None);
        assert_eq!(r[1].skipped.as_deref(), Some("built in"));
    }

    #[test]
    fn a_failed_workload_fails_its_row() {
        let line = r#"{"id":"x","workload":"w","unit":"-","better":"lower","ours":0,"peers":{},"failed":"check failed"}"#;
        let r = rows(&script::parse_line(line).unwrap());
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].failed.as_deref(), Some("check failed"));
    }

    #[test]
    fn a_workload_left_out_says_why() {
        let line = r#"{"id":"x","workload":"w","unit":"µs","better":"lower","ours":0,"peers":{},"left_out":"no bip324"}"#;
        let r = rows(&script::parse_line(line).unwrap());
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].skipped.as_deref(), Some("no bip324"));
        assert!(r[0].failed.is_none());
    }

    #[test]
    fn a_peer_without_a_figure_or_a_reason_is_an_error() {
        let line = r#"{"id":"x","workload":"w","unit":"µs","better":"lower","ours":1,"peers":{"noble":{"name":"n"}}}"#;
        assert!(script::parse_line(line).is_err());
    }
}
