//! `wireseal bench`: every registered workload, ours next to a baseline
//! measured in the same run, in one table (and optionally JSON).
//!
//! A section is a function in its own file that returns [`Row`]s; register
//! it in [`SECTIONS`]. Use [`Ctx::time_per_op`] / [`Ctx::time_job`] to
//! measure, so the quick default and `--full` scale every section alike.
//! Peer programs (Go, Python) come from [`peers`]; a row whose peer is
//! missing keeps our figure and says why with [`Row::skipped()`].

mod aescrypt;
mod bip324;
pub mod gateway_json;
mod meshtastic;
mod meshtastic_gateway;
mod meshtastic_gateway_broker;
mod meshtastic_gateway_peer;
mod peat;
pub mod peers;
mod python;
mod sphinx;
mod sphinx_attribution;
mod sphinx_baselines;
#[cfg(feature = "rust-peers")]
mod sphinx_ldk;
#[cfg(not(feature = "rust-peers"))]
#[path = "peers/ldk_absent.rs"]
mod sphinx_ldk;
#[cfg(feature = "rust-peers")]
mod sphinx_ldk_net;
#[cfg(feature = "rust-peers")]
mod sphinx_ldk_node;
mod timing;
pub mod traffic;

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

    /// Attaches a published figure.
    pub fn seed(mut self, figure: impl Into<String>) -> Self {
        self.seed_figure = Some(figure.into());
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
    // The MQTT gateway's rows, in the same section (`--section meshtastic`).
    Section {
        name: "meshtastic",
        run: meshtastic_gateway::run,
    },
    Section {
        name: "peat",
        run: peat::run,
    },
    Section {
        name: "bip324",
        run: bip324::run,
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
        name: "python",
        run: python::run,
    },
];

/// Runs the selected sections and prints the table; writes JSON if asked.
pub fn run(ctx: &Ctx, only: &[String], json: Option<&std::path::Path>) -> anyhow::Result<()> {
    for s in only {
        if !SECTIONS.iter().any(|x| x.name == s) {
            let names: Vec<_> = SECTIONS.iter().map(|x| x.name).collect();
            anyhow::bail!("unknown bench section {s:?} (known: {})", names.join(", "));
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
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&rows)?;
        std::fs::write(path, text + "\n")
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        eprintln!("wrote {} rows to {}", rows.len(), path.display());
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

fn fmt_num(x: f64) -> String {
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
        (Some(_), _) => "skipped".into(),
        (None, Some(b)) => fmt_num(b),
        (None, None) => "-".into(),
    };
    let note = match &r.skipped {
        Some(why) => format!("skipped: {why}"),
        None => r.seed_figure.clone().unwrap_or_default(),
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
