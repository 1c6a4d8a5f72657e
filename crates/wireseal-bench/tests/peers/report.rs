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

/// An axis label's value: `950`, `1.5k`, `20M`, `3G` (what the plots print).
fn label_value(t: &str) -> Option<f64> {
    let (num, scale) = match t.chars().last()? {
        'k' => (&t[..t.len() - 1], 1e3),
        'M' => (&t[..t.len() - 1], 1e6),
        'G' => (&t[..t.len() - 1], 1e9),
        _ => (t, 1.0),
    };
    num.parse::<f64>().ok().map(|v| v * scale)
}

#[test]
fn every_axis_fits_its_data() {
    // Rows like a run's: rates from thousands to hundreds of millions per
    // second on the peat plot (whose legend holds ten entries), other plots
    // as in `rows`.
    let mut rows = rows();
    for (i, x) in [51.0, 633.0, 8192.0].into_iter().enumerate() {
        for k in 0..6 {
            rows.push(
                Row::new(
                    "peat",
                    format!("peat series {k} at {x}"),
                    "docs/s",
                    Better::Higher,
                    1e5 * (k + 1) as f64 * (i + 1) as f64,
                    "plain copy",
                    Some(1.6e8),
                )
                .at("peat-docs", format!("series {k}"), x),
            );
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let info = RunInfo::current(false, "wireseal bench --report DIR".into());
    report::write(dir.path(), &rows, &info).unwrap();
    for p in PLOTS {
        let mut data: Vec<f64> = rows
            .iter()
            .filter(|r| r.point.as_ref().is_some_and(|pt| pt.plot == p.id))
            .flat_map(|r| {
                [
                    r.ours,
                    r.baseline.unwrap_or(r.ours),
                    r.point.as_ref().unwrap().x,
                ]
            })
            .collect();
        for r in p.references {
            match *r {
                Reference::Line { y, .. } => data.push(y),
                Reference::Point { x, y, .. } => data.extend([x, y]),
            }
        }
        let top = data.iter().copied().fold(0.0, f64::max);
        let svg = std::fs::read_to_string(dir.path().join(format!("{}.svg", p.id))).unwrap();
        let labels: Vec<f64> = texts(&svg).iter().filter_map(|t| label_value(t)).collect();
        assert!(!labels.is_empty(), "{}: no axis labels", p.id);
        let highest = labels.iter().copied().fold(f64::MIN, f64::max);
        assert!(
            highest <= top * 2.0,
            "{}: an axis label reads {highest}, the data end at {top}",
            p.id
        );
    }
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
    assert_eq!(drawn, ["sphinx-build", "sphinx-peel", "sphinx-batch"]);
    assert!(dir.path().join("sphinx-build.svg").exists());
    assert!(!dir.path().join("bip324-latency.svg").exists());
    let page = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    assert!(page.contains("Not measured in this run"));
    assert_eq!(page.matches("<svg").count(), 3);
    // The measured plots come first; the others are named once each, after
    // them, in one list.
    let first = page.find("<section id=\"sphinx-build\"").unwrap();
    let missing = page.find("Not measured in this run").unwrap();
    assert!(
        first < missing,
        "a plot without data is named before the plots"
    );
    assert_eq!(page.matches("Not measured in this run").count(), 1);
    for p in PLOTS.iter().filter(|p| p.section != "sphinx") {
        let named = page.find(&report::html(p.title)).unwrap();
        assert!(named > missing, "{}", p.id);
    }
}

/// The first headless-capable browser installed, if any.
fn browser() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            std::process::Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// The page opens in a headless Chromium: the loaded document holds every
/// plot, and the console reports no error and no failed load. Where no
/// Chromium is installed the test says so and passes (`WIRESEAL_REPORT_SAMPLE`
/// names a folder to keep the sample report in, for looking at it).
#[test]
fn the_page_opens_in_a_headless_browser() {
    let dir = tempfile::tempdir().unwrap();
    let keep = std::env::var_os("WIRESEAL_REPORT_SAMPLE").map(std::path::PathBuf::from);
    let out_dir = keep.as_deref().unwrap_or(dir.path());
    let info = RunInfo::current(false, "wireseal bench --report DIR".into());
    report::write(out_dir, &rows(), &info).unwrap();
    let Some(browser) = browser() else {
        println!("skipped: no Chromium installed to open the page (apt-get install chromium)");
        return;
    };
    let page = out_dir.join("index.html").canonicalize().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run the browser");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{browser} failed: {stderr}");
    let dom = String::from_utf8_lossy(&out.stdout);
    assert_eq!(dom.matches("<svg").count(), PLOTS.len(), "{dom}");
    for p in PLOTS {
        assert!(dom.contains(&report::html(p.title)), "{}", p.id);
    }
    let console: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("net::ERR_"))
        .collect();
    assert!(console.is_empty(), "the page logged: {console:?}");
}
