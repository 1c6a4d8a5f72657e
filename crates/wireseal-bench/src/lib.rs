//! `wireseal bench`: every registered workload, ours next to a baseline
//! measured in the same run, in one table (and optionally JSON).
//!
//! A section is a function that returns [`Row`]s, in its format's module
//! (`meshtastic/`, `meshtastic/gateway/`, `sphinx/`, `peat/`, `bip324/`,
//! `aescrypt/`, `gpu/`, `embedded/`, `js/`; each `mod.rs` holds what its files
//! share), composed of named row builders; every format's batch API, all
//! cores against one, is in `batch_scaling/`. Register it in [`SECTIONS`].
//! Use [`Ctx::time_per_op`] / [`Ctx::time_job`] to measure, so the quick
//! default and `--full` scale every section alike.
//! Peer programs (Go, Python) come from [`peers`]; a row whose peer is
//! missing keeps our figure and says why with [`Row::skipped()`].

mod aescrypt;
mod batch_scaling;
mod bip324;
mod embedded;
mod gpu;
mod js;
mod meshcore;
mod meshtastic;
mod peat;
pub mod peers;
mod python;
pub mod report;
mod sphinx;
mod timing;

#[cfg(feature = "rust-peers")]
pub use sphinx::ldk::net::with_reason;
pub use timing::Ctx;

use serde::Serialize;
use std::io::Write;

/// How a figure is read: lower is better (times) or higher is better (rates).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    /// Times, sizes: smaller wins.
    Lower,
    /// Rates, throughputs: larger wins.
    Higher,
}

/// One line of the table / one JSON object.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Section (wire format) name.
    pub section: String,
    /// What was measured.
    pub workload: String,
    /// Unit of `ours` and `baseline`.
    pub unit: String,
    /// wireseal's figure.
    pub ours: f64,
    /// What the baseline is.
    pub baseline_name: String,
    /// The baseline's figure, measured in the same run (None when unavailable).
    pub baseline: Option<f64>,
    /// > 1 means wireseal is better, whatever the unit.
    pub ratio: Option<f64>,
    /// A published figure to compare with, if any.
    pub seed_figure: Option<String>,
    /// Why the baseline's peer was not measured (then `baseline` is None).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Where the row sits on a report plot (`--report`), if it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point: Option<Point>,
    /// What went wrong when our output disagreed with the peer's or a
    /// workload's check failed: the run fails.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
}

/// A row's place on a report plot: the plot's id
/// ([`report::plots::PLOTS`]), the series `ours` belongs to, and its x. The
/// row's baseline, when measured, is a point of the series named by
/// `baseline_name` at the same x.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// The plot's id.
    pub plot: &'static str,
    /// The series of `ours`.
    pub series: String,
    /// x, in the plot's x unit.
    pub x: f64,
}

impl Row {
    /// A row comparing `ours` with `baseline` (either may be a time or a rate, per `better`).
    pub fn new(
        section: &str,
        workload: impl Into<String>,
        unit: &str,
        better: Better,
        ours: f64,
        baseline_name: impl Into<String>,
        baseline: Option<f64>,
    ) -> Self {
        let ratio = baseline
            .filter(|b| *b > 0.0 && ours > 0.0)
            .map(|b| match better {
                Better::Lower => b / ours,
                Better::Higher => ours / b,
            });
        Self {
            section: section.into(),
            workload: workload.into(),
            unit: unit.into(),
            ours,
            baseline_name: baseline_name.into(),
            baseline,
            ratio,
            seed_figure: None,
            skipped: None,
            point: None,
            failed: None,
        }
    }

    /// A row whose baseline comes from a peer: its figure when the peer ran,
    /// else no baseline and the reason (see [`Row::skipped()`]).
    #[allow(clippy::too_many_arguments)]
    pub fn with_peer(
        section: &str,
        workload: impl Into<String>,
        unit: &str,
        better: Better,
        ours: f64,
        baseline_name: impl Into<String>,
        baseline: Result<f64, &peers::Skip>,
    ) -> Self {
        match baseline {
            Ok(b) => Self::new(
                section,
                workload,
                unit,
                better,
                ours,
                baseline_name,
                Some(b),
            ),
            Err(why) => {
                Self::new(section, workload, unit, better, ours, baseline_name, None).skipped(why)
            }
        }
    }

    /// Marks the baseline as not measured, with the reason; clears the
    /// baseline and the ratio.
    pub fn skipped(mut self, why: &peers::Skip) -> Self {
        self.baseline = None;
        self.ratio = None;
        self.skipped = Some(why.to_string());
        self
    }

    /// Marks the row as failed (a check of the workload's output did not
    /// hold); [`run`] then prints every row and returns an error.
    pub fn failed(mut self, why: impl Into<String>) -> Self {
        self.baseline = None;
        self.ratio = None;
        self.failed = Some(why.into());
        self
    }

    /// Attaches a published figure.
    pub fn seed(mut self, figure: impl Into<String>) -> Self {
        self.seed_figure = Some(figure.into());
        self
    }

    /// Places the row on report plot `plot`, as a point of `series` at `x`.
    pub fn at(mut self, plot: &'static str, series: impl Into<String>, x: f64) -> Self {
        self.point = Some(Point {
            plot,
            series: series.into(),
            x,
        });
        self
    }
}

/// A registered bench section.
pub struct Section {
    /// Name used by `--section`.
    pub name: &'static str,
    /// Runs the section.
    pub run: fn(&Ctx) -> Vec<Row>,
}

/// Every section, in print order.
pub const SECTIONS: &[Section] = &[
    Section {
        name: "meshtastic",
        run: meshtastic::run,
    },
    // The cache's curves and the DM conversation, in the same section.
    Section {
        name: "meshtastic",
        run: meshtastic::curves::rows,
    },
    // The MQTT gateway's rows, in the same section (`--section meshtastic`).
    Section {
        name: "meshtastic",
        run: meshtastic::gateway::run,
    },
    // Every format's batch API, all cores against one (`batch_scaling`).
    Section {
        name: "meshtastic",
        run: batch_scaling::meshtastic::pkc_open,
    },
    Section {
        name: "meshtastic",
        run: batch_scaling::meshtastic::gateway,
    },
    Section {
        name: "meshcore",
        run: meshcore::run,
    },
    Section {
        name: "peat",
        run: peat::run,
    },
    Section {
        name: "peat",
        run: batch_scaling::peat::rows,
    },
    Section {
        name: "bip324",
        run: bip324::run,
    },
    Section {
        name: "bip324",
        run: batch_scaling::bip324::rows,
    },
    Section {
        name: "aescrypt",
        run: aescrypt::run,
    },
    Section {
        name: "sphinx",
        run: sphinx::run,
    },
    Section {
        name: "sphinx",
        run: batch_scaling::sphinx::rows,
    },
    Section {
        name: "python",
        run: python::run,
    },
    // BIP324 on a CUDA GPU against the library on all cores (a `skipped:`
    // row for the GPU figures without a device).
    Section {
        name: "gpu",
        run: gpu::run,
    },
    // The test firmware on an emulated Cortex-M4 (a `skipped:` row without
    // QEMU or the thumbv7em target).
    Section {
        name: "embedded",
        run: embedded::run,
    },
    // The npm package (wasm) against @noble/* and node:crypto, in Node.
    Section {
        name: "js",
        run: js::run,
    },
];

/// The section names, each once, in print order.
pub fn section_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for s in SECTIONS {
        if !names.contains(&s.name) {
            names.push(s.name);
        }
    }
    names
}

/// Where `run` writes besides the table.
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    /// `--rows FILE`: the rows as a JSON array.
    pub rows: Option<std::path::PathBuf>,
    /// `--report DIR`: the HTML page, one SVG per plot, and the rows.
    pub report: Option<std::path::PathBuf>,
    /// The command line, as the report states it.
    pub command: String,
}

/// Runs the selected sections and prints the table; writes JSON and the
/// report if asked.
///
/// # Errors
///
/// An unknown section name, or a file that cannot be written.
pub fn run(ctx: &Ctx, only: &[String], outputs: &Outputs) -> anyhow::Result<()> {
    for s in only {
        if !SECTIONS.iter().any(|x| x.name == s) {
            anyhow::bail!(
                "unknown bench section {s:?} (known: {})",
                section_names().join(", ")
            );
        }
    }
    let mut rows = Vec::new();
    println!(
        "wireseal bench ({} run, {} threads available)",
        if ctx.full { "full" } else { "quick" },
        rayon::current_num_threads()
    );
    print_header();
    for s in SECTIONS {
        if !only.is_empty() && !only.iter().any(|o| o == s.name) {
            continue;
        }
        for r in (s.run)(ctx) {
            print_row(&r);
            rows.push(r);
        }
    }
    if let Some(path) = &outputs.rows {
        let text = serde_json::to_string_pretty(&rows)?;
        std::fs::write(path, text + "\n")
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        eprintln!("wrote {} rows to {}", rows.len(), path.display());
    }
    if let Some(dir) = &outputs.report {
        let info = report::RunInfo::current(ctx.full, outputs.command.clone());
        let files = report::write(dir, &rows, &info)?;
        eprintln!(
            "wrote the report to {} ({} files; open index.html)",
            dir.display(),
            files.len()
        );
    }
    no_failures(&rows)
}

/// An error naming every failed row, if any.
fn no_failures(rows: &[Row]) -> anyhow::Result<()> {
    let failed: Vec<String> = rows
        .iter()
        .filter_map(|r| Some(format!("{}: {}", r.workload, r.failed.as_ref()?)))
        .collect();
    if !failed.is_empty() {
        anyhow::bail!(
            "{} bench row(s) failed: {}",
            failed.len(),
            failed.join("; ")
        );
    }
    Ok(())
}

fn print_header() {
    println!(
        "{:<11} {:<46} {:>12} {:<9} {:>12}  {:<28} {:>8}  seed figure",
        "section", "workload", "ours", "unit", "baseline", "baseline is", "ratio"
    );
    println!("{}", "-".repeat(150));
}

pub(crate) fn fmt_num(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.3e}", x)
    } else if x >= 100.0 {
        format!("{:.0}", x)
    } else if x >= 1.0 {
        format!("{:.2}", x)
    } else {
        format!("{:.4}", x)
    }
}

fn print_row(r: &Row) {
    let mut out = std::io::stdout().lock();
    let baseline = match (&r.skipped, r.baseline) {
        _ if r.failed.is_some() => "FAILED".into(),
        (Some(_), _) => "skipped".into(),
        (None, Some(b)) => fmt_num(b),
        (None, None) => "-".into(),
    };
    let note = match (&r.failed, &r.skipped) {
        (Some(why), _) => format!("FAILED: {why}"),
        (None, Some(why)) => format!("skipped: {why}"),
        (None, None) => r.seed_figure.clone().unwrap_or_default(),
    };
    let _ = writeln!(
        out,
        "{:<11} {:<46} {:>12} {:<9} {:>12}  {:<28} {:>8}  {}",
        r.section,
        r.workload,
        fmt_num(r.ours),
        r.unit,
        baseline,
        r.baseline_name,
        r.ratio
            .map(|x| format!("{x:.2}x"))
            .unwrap_or_else(|| "-".into()),
        note
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_names_are_listed_once() {
        let names = section_names();
        assert_eq!(names.first(), Some(&"meshtastic"));
        for n in &names {
            assert_eq!(names.iter().filter(|m| m == &n).count(), 1, "{n}");
        }
        assert!(SECTIONS.iter().all(|s| names.contains(&s.name)));
    }

    #[test]
    fn ratio_direction_follows_unit() {
        let t = Row::new("s", "w", "µs", Better::Lower, 2.0, "b", Some(10.0));
        assert_eq!(t.ratio, Some(5.0));
        let r = Row::new("s", "w", "ops/s", Better::Higher, 20.0, "b", Some(10.0));
        assert_eq!(r.ratio, Some(2.0));
        assert_eq!(
            Row::new("s", "w", "x", Better::Higher, 1.0, "b", None).ratio,
            None
        );
    }

    #[test]
    fn a_failed_row_fails_the_run() {
        let ok = Row::new("s", "w", "µs", Better::Lower, 2.0, "b", Some(4.0));
        assert!(no_failures(std::slice::from_ref(&ok)).is_ok());
        let bad = Row::new("s", "gw", "µs", Better::Lower, 2.0, "b", Some(4.0))
            .failed("fields differ from the peer");
        assert_eq!((bad.baseline, bad.ratio), (None, None));
        let e = no_failures(&[ok, bad]).unwrap_err().to_string();
        assert!(e.contains("gw: fields differ from the peer"), "{e}");
    }

    #[test]
    fn skipped_row_keeps_our_figure_and_says_why() {
        let why = peers::Skip::new("`go` is not installed");
        let r = Row::with_peer("s", "w", "µs", Better::Lower, 2.0, "Go", Err(&why));
        assert_eq!((r.ours, r.baseline, r.ratio), (2.0, None, None));
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["baseline"], serde_json::Value::Null);
        assert_eq!(j["skipped"], "`go` is not installed");
        let ok = Row::with_peer("s", "w", "µs", Better::Lower, 2.0, "Go", Ok(4.0));
        assert_eq!(ok.ratio, Some(2.0));
        assert!(serde_json::to_value(&ok).unwrap().get("skipped").is_none());
    }
}
