//! `wireseal bench --report`: every plot with data is an SVG file that
//! parses as XML and names its axes, its series and the seeds' figures; the
//! page holds every plot inline and needs no network.

use wireseal_bench::report::plots::{Reference, PLOTS};
use wireseal_bench::report::{self, series_of, RunInfo};
use wireseal_bench::{Better, Row};

/// Rows for every plot: two series of ours with a measured baseline, at
/// three x values each.
fn rows() -> Vec<Row> {
    let mut rows = Vec::new();
    for p in PLOTS {
        for (i, x) in [1.0, 16.0, 256.0].into_iter().enumerate() {
            for (series, ours) in [("ours one core", 10.0), ("ours all cores", 5.0)] {
                rows.push(
                    Row::new(
                        p.section,
                        format!("{} {series} at {x}", p.id),
                        "µs",
                        Better::Lower,
                        ours / (i + 1) as f64,
                        "the peer & co",
                        Some(20.0 * (i + 1) as f64),
                    )
                    .at(p.id, series, x),
                );
            }
        }
    }
    rows
}

/// The text of every `<text>` element of an SVG document.
fn texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG parses as XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_owned())
        .collect()
}

#[test]
fn every_plot_is_well_formed_svg_with_its_labels_series_and_references() {
    let dir = tempfile::tempdir().unwrap();
    let rows = rows();
    let info = RunInfo::current(false, "wireseal bench --report DIR".into());
    let files = report::write(dir.path(), &rows, &info).unwrap();
    assert_eq!(files.len(), PLOTS.len() + 2, "{files:?}");
    for p in PLOTS {
        let svg = std::fs::read_to_string(dir.path().join(format!("{}.svg", p.id))).unwrap();
        let t = texts(&svg);
        for want in [
            p.title,
            p.x_label,
            p.y_label,
            "ours one core",
            "ours all cores",
            "the peer & co",
        ] {
            assert!(
                t.iter().any(|x| x == want),
                "{}: no text {want:?} in {t:?}",
                p.id
            );
        }
        for r in p.references {
            let label = match r {
                Reference::Line { label, .. } | Reference::Point { label, .. } => *label,
            };
            assert!(
                t.iter().any(|x| x == label),
                "{}: no reference {label:?}",
                p.id
            );
        }
        assert_eq!(series_of(p.id, &rows).len(), 3, "{}", p.id);
    }
    let page = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    assert_eq!(page.matches("<svg").count(), PLOTS.len());
    for p in PLOTS {
        assert!(page.contains(&report::html(p.caption)), "{}", p.id);
    }
    assert!(
        !page.contains("http://")
            || page.matches("http://").count()
                == page.matches("xmlns=\"http://www.w3.org/2000/svg\"").count(),
        "the page loads nothing from the network"
    );
    assert!(!page.contains("https://") && !page.contains("src="));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("rows.json")).unwrap())
            .unwrap();
    assert_eq!(json.as_array().unwrap().len(), rows.len());
}

#[test]
fn plots_without_data_are_named_on_the_page_and_not_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let rows: Vec<Row> = rows()
        .into_iter()
        .filter(|r| r.section == "sphinx")
        .collect();
    let info = RunInfo::current(false, "wireseal bench --section sphinx --report DIR".into());
    report::write(dir.path(), &rows, &info).unwrap();
    let drawn: Vec<_> = report::plots_with_data(&rows)
        .iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(drawn, ["sphinx-build", "sphinx-peel"]);
    assert!(dir.path().join("sphinx-build.svg").exists());
    assert!(!dir.path().join("bip324-latency.svg").exists());
    let page = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    assert!(page.contains("Not measured in this run"));
    assert_eq!(page.matches("<svg").count(), 2);
}

/// Writes a sample report to `WIRESEAL_REPORT_SAMPLE` (for looking at it).
#[test]
fn sample_report_when_asked() {
    if let Some(dir) = std::env::var_os("WIRESEAL_REPORT_SAMPLE") {
        let info = RunInfo::current(false, "sample".into());
        report::write(std::path::Path::new(&dir), &rows(), &info).unwrap();
    }
}
