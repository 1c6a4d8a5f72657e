//! `wireseal bench --report DIR`: one self-contained HTML page (every plot
//! inline, no network), one SVG file per plot, and the rows as JSON.
//!
//! A plot's data are the rows of the run that carry a [`Point`](crate::Point)
//! naming it ([`plots::PLOTS`] lists the plots); each such row is a point of
//! its own series (ours) and, when its baseline was measured, a point of the
//! baseline's series at the same x. The seeds' published figures are drawn
//! beside them ([`plots::Reference`]).

pub mod plots;
mod svg;

use crate::Row;
use anyhow::{Context, Result};
use plots::{PlotSpec, PLOTS};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What the page says about the run.
#[derive(Debug, Clone)]
pub struct RunInfo {
    /// `quick` or `full`.
    pub mode: &'static str,
    /// The command that produced the rows.
    pub command: String,
    /// The processor, as `/proc/cpuinfo` names it.
    pub cpu: String,
    /// Threads available to the run.
    pub threads: usize,
    /// Date of the run (UTC, `YYYY-MM-DD`).
    pub date: String,
}

impl RunInfo {
    /// The facts of this machine and this run.
    pub fn current(full: bool, command: String) -> Self {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split(':').nth(1))
                    .map(|m| m.trim().to_owned())
            })
            .unwrap_or_else(|| std::env::consts::ARCH.to_owned());
        Self {
            mode: if full { "full" } else { "quick" },
            command,
            cpu,
            threads: rayon::current_num_threads(),
            date: utc_date(std::time::SystemTime::now()),
        }
    }
}

/// One series of a plot: a name and its points, sorted by x.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend label.
    pub name: String,
    /// `(x, y)` points.
    pub points: Vec<(f64, f64)>,
}

/// The series of plot `id` in `rows`: ours first, in the order they appear,
/// then the baselines'. A baseline measured at the same x by several rows
/// keeps its first value.
pub fn series_of(id: &str, rows: &[Row]) -> Vec<Series> {
    let mut ours: Vec<Series> = Vec::new();
    let mut peers: Vec<Series> = Vec::new();
    let add = |list: &mut Vec<Series>, name: &str, x: f64, y: f64| {
        if !(x.is_finite() && y.is_finite()) {
            return;
        }
        let pos = list.iter().position(|s| s.name == name);
        let s = match pos {
            Some(i) => &mut list[i],
            None => {
                list.push(Series {
                    name: name.to_owned(),
                    points: Vec::new(),
                });
                list.last_mut().expect("just pushed")
            }
        };
        if !s.points.iter().any(|&(px, _)| px == x) {
            s.points.push((x, y));
        }
    };
    for r in rows {
        let Some(p) = r.point.as_ref().filter(|p| p.plot == id) else {
            continue;
        };
        add(&mut ours, &p.series, p.x, r.ours);
        if let Some(b) = r.baseline {
            add(&mut peers, &r.baseline_name, p.x, b);
        }
    }
    ours.extend(peers);
    for s in &mut ours {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    ours
}

/// Writes `dir/index.html`, `dir/ID.svg` for every plot with data, and
/// `dir/rows.json`; returns the files written. The page shows the plots
/// with data first, in [`PLOTS`]' order, then names the others in one list.
///
/// # Errors
///
/// When `dir` cannot be created or a file cannot be written.
pub fn write(dir: &Path, rows: &[Row], run: &RunInfo) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    let mut page_plots = String::new();
    let mut missing = Vec::new();
    for spec in PLOTS {
        let series = series_of(spec.id, rows);
        if series.is_empty() {
            missing.push(spec);
            continue;
        }
        let svg = svg::draw(spec, &series)?;
        let path = dir.join(format!("{}.svg", spec.id));
        std::fs::write(&path, &svg).with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
        let _ = writeln!(
            page_plots,
            "<section id=\"{id}\"><h2>{title}</h2>\n{svg}\n<p class=\"caption\">{caption}</p>\
             <p class=\"file\"><a href=\"{id}.svg\">{id}.svg</a></p></section>",
            id = spec.id,
            title = html(spec.title),
            caption = html(spec.caption),
            svg = svg.trim_start_matches(|c| c != '<'),
        );
    }
    page_plots.push_str(&not_measured(&missing));
    let json = dir.join("rows.json");
    std::fs::write(&json, serde_json::to_string_pretty(rows)? + "\n")
        .with_context(|| format!("cannot write {}", json.display()))?;
    written.push(json);
    let index = dir.join("index.html");
    std::fs::write(&index, page(rows, run, &page_plots))
        .with_context(|| format!("cannot write {}", index.display()))?;
    written.push(index);
    Ok(written)
}

/// The section naming the plots without data, after the drawn ones; empty
/// when every plot has data.
fn not_measured(missing: &[&PlotSpec]) -> String {
    if missing.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<section id=\"not-measured\"><h2>Not measured in this run</h2>\
         <p class=\"missing\">These plots' sections were not run or gave no data for them:</p>\
         <ul class=\"missing\">\n",
    );
    for spec in missing {
        let _ = writeln!(
            out,
            "<li>{} (<code>--section {}</code>)</li>",
            html(spec.title),
            html(spec.section)
        );
    }
    out.push_str("</ul></section>\n");
    out
}

/// The plots a report of `rows` draws (those with data).
pub fn plots_with_data(rows: &[Row]) -> Vec<&'static PlotSpec> {
    PLOTS
        .iter()
        .filter(|p| !series_of(p.id, rows).is_empty())
        .collect()
}

fn page(rows: &[Row], run: &RunInfo, plots: &str) -> String {
    let mut table = String::new();
    for r in rows {
        let baseline = match (&r.skipped, r.baseline) {
            (Some(why), _) => format!("skipped: {}", html(why)),
            (None, Some(b)) => crate::fmt_num(b),
            (None, None) => "-".into(),
        };
        let _ =
            writeln!(
            table,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td>\
             <td>{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            html(&r.section),
            html(&r.workload),
            crate::fmt_num(r.ours),
            html(&r.unit),
            baseline,
            html(&r.baseline_name),
            r.ratio.map(|x| format!("{x:.2}x")).unwrap_or_else(|| "-".into()),
            html(r.seed_figure.as_deref().unwrap_or("")),
        );
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>wireseal bench report</title><style>{STYLE}</style></head><body>\n\
         <h1>wireseal bench report</h1>\n<p>{mode} run on {date}: {cpu}, {threads} threads. \
         Command: <code>{command}</code>. Ratios are ours ÷ the baseline measured in the same \
         run, samples alternated; above 1 wireseal is better.</p>\n{plots}\
         <h2>Every row</h2>\n<table><thead><tr><th>section</th><th>workload</th><th>ours</th>\
         <th>unit</th><th>baseline</th><th>baseline is</th><th>ratio</th><th>seed figure</th>\
         </tr></thead><tbody>\n{table}</tbody></table>\n</body></html>\n",
        mode = run.mode,
        date = html(&run.date),
        cpu = html(&run.cpu),
        threads = run.threads,
        command = html(&run.command),
    )
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;\
color:#222}section{margin:2em 0}svg{max-width:100%;height:auto}.caption{font-style:italic}\
.missing{color:#777}table{border-collapse:collapse;font-size:0.85em}td,th{border:1px solid #ccc;\
padding:2px 6px;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}";

/// Escapes text for HTML and SVG.
pub fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// `YYYY-MM-DD` (UTC) of a time.
fn utc_date(t: std::time::SystemTime) -> String {
    let days = t
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Better, Point};

    fn row(plot: &'static str, series: &str, x: f64, ours: f64, peer: Option<f64>) -> Row {
        Row::new("s", "w", "µs", Better::Lower, ours, "peer", peer).at(plot, series, x)
    }

    #[test]
    fn series_gather_ours_then_baselines_sorted_by_x() {
        let rows = vec![
            row("p", "ours", 4.0, 1.0, Some(8.0)),
            row("p", "ours", 1.0, 2.0, Some(9.0)),
            row("q", "other plot", 1.0, 5.0, None),
            Row::new("s", "no point", "µs", Better::Lower, 1.0, "peer", Some(2.0)),
        ];
        let s = series_of("p", &rows);
        assert_eq!(
            s,
            vec![
                Series {
                    name: "ours".into(),
                    points: vec![(1.0, 2.0), (4.0, 1.0)]
                },
                Series {
                    name: "peer".into(),
                    points: vec![(1.0, 9.0), (4.0, 8.0)]
                },
            ]
        );
        assert!(series_of("none", &rows).is_empty());
        assert_eq!(
            rows[0].point,
            Some(Point {
                plot: "p",
                series: "ours".into(),
                x: 4.0
            })
        );
    }

    #[test]
    fn dates_are_civil_utc() {
        let at = |s: u64| std::time::UNIX_EPOCH + std::time::Duration::from_secs(s);
        assert_eq!(utc_date(at(0)), "1970-01-01");
        assert_eq!(utc_date(at(951_782_400)), "2000-02-29");
        assert_eq!(utc_date(at(1_795_564_800)), "2026-11-25");
    }

    #[test]
    fn html_is_escaped() {
        assert_eq!(html("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
    }
}
