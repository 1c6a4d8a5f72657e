//! Draws one plot as SVG text with `plotters` (its SVG backend: no fonts,
//! no system libraries; it escapes the text it writes).

use super::plots::{Axis, PlotSpec, Reference};
use super::Series;
use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use std::ops::Range;

/// The plot's area, left of the legend.
const PLOT_SIZE: (u32, u32) = (860, 480);
/// The legend sits right of the plot, so it never covers data and the axes
/// span the data alone; it is at least this wide, and wider when a label
/// needs it ([`canvas`]).
const LEGEND_MIN_WIDTH: u32 = 340;
/// The legend's text size in px.
const LEGEND_FONT: u32 = 13;
/// The legend's rows: the first one's middle, the step between rows, where
/// the text starts (right of the mark).
const LEGEND_TOP: i32 = 48;
const LEGEND_ROW: i32 = 20;
const LEGEND_TEXT_X: i32 = 38;
/// Room kept right of the longest legend label and below the last row.
const LEGEND_PAD: u32 = 16;

/// Colors of the series, in order (ours first).
const PALETTE: [RGBColor; 8] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x17, 0xbe, 0xcf),
];
const REFERENCE: RGBColor = RGBColor(0x55, 0x55, 0x55);

/// The plot as an SVG document.
///
/// # Errors
///
/// When plotters fails to lay the plot out (it reports its own error).
pub fn draw(spec: &PlotSpec, series: &[Series]) -> Result<String> {
    let (xs, ys) = ranges(spec, series);
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, canvas(spec, series)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let (plot, key) = root.split_horizontally(PLOT_SIZE.0);
        match (spec.x_axis, spec.y_axis) {
            (Axis::Log, Axis::Log) => chart(&plot, spec, series, xs.log_scale(), ys.log_scale()),
            (Axis::Log, Axis::Linear) => chart(&plot, spec, series, xs.log_scale(), ys),
            (Axis::Linear, Axis::Log) => chart(&plot, spec, series, xs, ys.log_scale()),
            (Axis::Linear, Axis::Linear) => chart(&plot, spec, series, xs, ys),
        }?;
        legend(&key, spec, series)?;
        root.present().map_err(plot_err)?;
    }
    Ok(out)
}

/// The legend's labels, top down: the series, then the published figures.
fn legend_labels<'a>(spec: &'a PlotSpec, series: &'a [Series]) -> Vec<&'a str> {
    let references = spec.references.iter().map(|r| match *r {
        Reference::Line { label, .. } | Reference::Point { label, .. } => label,
    });
    series
        .iter()
        .map(|s| s.name.as_str())
        .chain(references)
        .collect()
}

/// The SVG's size: the plot's area, and beside it a legend wide enough for
/// its longest label and tall enough for every row (the plot grows as tall
/// as the legend).
fn canvas(spec: &PlotSpec, series: &[Series]) -> (u32, u32) {
    let labels = legend_labels(spec, series);
    let widest = labels
        .iter()
        .map(|l| text_width(l, LEGEND_FONT))
        .fold(0.0, f64::max);
    let legend = (f64::from(LEGEND_TEXT_X) + widest).ceil() as u32 + LEGEND_PAD;
    let rows = labels.len() as u32;
    let height = LEGEND_TOP as u32 + rows * LEGEND_ROW as u32 + LEGEND_PAD;
    (
        PLOT_SIZE.0 + legend.max(LEGEND_MIN_WIDTH),
        PLOT_SIZE.1.max(height),
    )
}

/// Advances of the printable ASCII characters (from the space), in 1/2048
/// em: for each, the wider of DejaVu Sans and Liberation Sans (Arial's
/// metrics), the faces a browser's `sans-serif` is on Linux and elsewhere.
const ADVANCES: [u16; 95] = [
    651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690, 1303,
    1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716, 1716, 1139, 2079,
    1401, 1405, 1479, 1577, 1366, 1251, 1593, 1540, 604, 1024, 1366, 1141, 1767, 1532, 1612, 1366,
    1612, 1479, 1366, 1251, 1499, 1401, 2025, 1403, 1366, 1403, 799, 690, 799, 1716, 1139, 1024,
    1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995, 1298, 1253, 1300,
    1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075, 1303, 690, 1303, 1716,
];

/// An upper bound on the width in px of `text` set in sans-serif at `px`:
/// [`ADVANCES`] for ASCII, a full em for any other character, and a
/// twentieth more for a face wider still.
fn text_width(text: &str, px: u32) -> f64 {
    let units: u32 = text
        .chars()
        .map(|c| match c {
            ' '..='~' => u32::from(ADVANCES[c as usize - 0x20]),
            _ => 2048,
        })
        .sum();
    f64::from(units) / 2048.0 * f64::from(px) * 1.05
}

/// An axis value in few characters: `950`, `1.5k`, `20M`, `0.063`.
fn compact(v: f64) -> String {
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let text = if scaled.fract().abs() < 1e-9 || scaled.abs() >= 10.0 {
        format!("{scaled:.0}")
    } else if scaled.abs() >= 0.1 {
        format!("{scaled:.1}")
    } else {
        format!("{scaled:.3}")
    };
    format!("{text}{suffix}")
}

fn plot_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing the plot failed: {e:?}")
}

/// The axes' ranges: every point and reference, with a margin (a factor on
/// a log axis, an eighth of the span on a linear one), and nothing else (the
/// legend sits beside the plot).
fn ranges(spec: &PlotSpec, series: &[Series]) -> (Range<f64>, Range<f64>) {
    let mut x: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    let mut y: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .collect();
    for r in spec.references {
        match *r {
            Reference::Line { y: v, .. } => y.push(v),
            Reference::Point { x: px, y: py, .. } => {
                x.push(px);
                y.push(py);
            }
        }
    }
    (span(&x, spec.x_axis), span(&y, spec.y_axis))
}

fn span(v: &[f64], axis: Axis) -> Range<f64> {
    let usable: Vec<f64> = v
        .iter()
        .copied()
        .filter(|x| x.is_finite() && (axis == Axis::Linear || *x > 0.0))
        .collect();
    let lo = usable.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = usable.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() {
        return if axis == Axis::Log {
            0.1..10.0
        } else {
            0.0..1.0
        };
    }
    match axis {
        Axis::Log => (lo / 1.5)..(hi * 1.5),
        Axis::Linear => {
            // From zero when every value is positive (times, rates), with a
            // margin above; below zero only for data that goes there.
            let pad = ((hi - lo) / 8.0).max(1e-9);
            let start = if lo >= 0.0 { 0.0 } else { lo - pad };
            start..(hi + pad)
        }
    }
}

fn chart<DB, X, Y>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    spec: &PlotSpec,
    series: &[Series],
    x: X,
    y: Y,
) -> Result<()>
where
    DB: DrawingBackend,
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(root)
        .caption(spec.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(x, y)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc(spec.x_label)
        .y_desc(spec.y_label)
        .x_label_formatter(&|v| compact(*v))
        .y_label_formatter(&|v| compact(*v))
        .draw()
        .map_err(plot_err)?;
    let (x_lo, x_hi) = {
        let r = chart.x_range();
        (r.start, r.end)
    };
    for (i, s) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let style = ShapeStyle::from(&color).stroke_width(2);
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), style))
            .map_err(plot_err)?;
        chart
            .draw_series(
                s.points
                    .iter()
                    .map(|&p| Circle::new(p, 3, ShapeStyle::from(&color).filled())),
            )
            .map_err(plot_err)?;
    }
    for r in spec.references {
        let dashed = ShapeStyle::from(&REFERENCE).stroke_width(1);
        match *r {
            Reference::Line { y, .. } => {
                chart
                    .draw_series(DashedLineSeries::new([(x_lo, y), (x_hi, y)], 6, 4, dashed))
                    .map_err(plot_err)?;
            }
            Reference::Point { x, y, .. } => {
                chart
                    .draw_series(std::iter::once(TriangleMarker::new(
                        (x, y),
                        7,
                        ShapeStyle::from(&REFERENCE).filled(),
                    )))
                    .map_err(plot_err)?;
            }
        }
    }
    Ok(())
}

/// The legend in its own area: one row per series (its color) and per
/// published figure (dashed line or triangle), top down, in the order of
/// [`legend_labels`].
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    spec: &PlotSpec,
    series: &[Series],
) -> Result<()> {
    let font = ("sans-serif", LEGEND_FONT).into_font().color(&BLACK);
    let labels = legend_labels(spec, series);
    let mut y = LEGEND_TOP;
    for (i, label) in labels.into_iter().enumerate() {
        match spec.references.get(i.wrapping_sub(series.len())) {
            None => {
                let style = ShapeStyle::from(&PALETTE[i % PALETTE.len()]).stroke_width(2);
                area.draw(&PathElement::new(vec![(8, y), (30, y)], style))
                    .map_err(plot_err)?;
                area.draw(&Circle::new((19, y), 3, style.filled()))
                    .map_err(plot_err)?;
            }
            Some(Reference::Line { .. }) => {
                let style = ShapeStyle::from(&REFERENCE).stroke_width(1);
                for (from, to) in [(8, 14), (18, 24), (28, 30)] {
                    area.draw(&PathElement::new(vec![(from, y), (to, y)], style))
                        .map_err(plot_err)?;
                }
            }
            Some(Reference::Point { .. }) => {
                area.draw(&TriangleMarker::new(
                    (19, y),
                    5,
                    ShapeStyle::from(&REFERENCE).filled(),
                ))
                .map_err(plot_err)?;
            }
        }
        area.draw(&Text::new(label, (LEGEND_TEXT_X, y - 7), font.clone()))
            .map_err(plot_err)?;
        y += LEGEND_ROW;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{
        canvas, compact, draw, legend_labels, ranges, text_width, LEGEND_FONT, LEGEND_MIN_WIDTH,
        LEGEND_PAD, LEGEND_ROW, LEGEND_TEXT_X, LEGEND_TOP, PLOT_SIZE,
    };
    use crate::report::plots::PLOTS;
    use crate::report::Series;

    /// `n` series with names as long as a run's, and one far longer.
    fn long_series(n: usize) -> Vec<Series> {
        (0..n)
            .map(|i| Series {
                name: if i == 0 {
                    "wireseal aescrypt encrypt --out-dir (fsync), every file of the folder".into()
                } else {
                    format!("all cores ({i} threads)")
                },
                points: vec![(1.0, 10.0), (64.0, 20.0)],
            })
            .collect()
    }

    #[test]
    fn every_legend_label_fits_its_canvas() {
        for spec in PLOTS {
            for n in [1, 3, 30] {
                let series = long_series(n);
                let (w, h) = canvas(spec, &series);
                let labels = legend_labels(spec, &series);
                let legend = w - PLOT_SIZE.0;
                assert!(legend >= LEGEND_MIN_WIDTH, "{}", spec.id);
                for l in &labels {
                    let right = f64::from(LEGEND_TEXT_X) + text_width(l, LEGEND_FONT);
                    assert!(right <= f64::from(legend), "{}: {l:?} is cut off", spec.id);
                }
                let last = LEGEND_TOP + (labels.len() as i32 - 1) * LEGEND_ROW;
                assert!(
                    last + 7 + LEGEND_PAD as i32 <= h as i32,
                    "{}: {n} rows",
                    spec.id
                );
                let svg = draw(spec, &series).unwrap();
                assert!(
                    svg.contains(&format!("width=\"{w}\" height=\"{h}\"")),
                    "{}: {}",
                    spec.id,
                    &svg[..200.min(svg.len())]
                );
            }
        }
        // The GPU plots' published figures need more than the narrowest legend.
        let gpu = PLOTS.iter().find(|p| p.id == "gpu-seal").unwrap();
        assert!(canvas(gpu, &[]).0 > PLOT_SIZE.0 + LEGEND_MIN_WIDTH);
    }

    #[test]
    fn text_widths_bound_the_faces() {
        // DejaVu Sans: "0" is 1303/2048 em, "i" 569, "M" 1767; a full em
        // outside ASCII.
        let at = |s: &str| text_width(s, 2048) / 1.05;
        assert!((at("0") - 1303.0).abs() < 1e-6);
        assert!((at("iM") - (569.0 + 1767.0)).abs() < 1e-6);
        assert!((at("µ×") - 4096.0).abs() < 1e-6);
        assert_eq!(text_width("", 13), 0.0);
    }

    #[test]
    fn axes_span_the_data_whatever_the_legend_holds() {
        // The peat plot: four published figures and ten series, from
        // thousands to hundreds of millions of documents per second.
        let peat = PLOTS.iter().find(|p| p.id == "peat-docs").unwrap();
        let series: Vec<Series> = (0..10)
            .map(|i| Series {
                name: format!("series {i}"),
                points: vec![(51.0, 2e5 * f64::from(i + 1)), (8192.0, 1.6e8)],
            })
            .collect();
        let (x, y) = ranges(peat, &series);
        assert!(x.start >= 51.0 / 2.0 && x.end <= 8192.0 * 2.0, "{x:?}");
        // The lowest value is a published figure (7,148/s), the highest 1.6e8.
        assert!(y.start >= 7_148.0 / 2.0 && y.start <= 7_148.0, "{y:?}");
        assert!(y.end >= 1.6e8 && y.end <= 1.6e8 * 2.0, "{y:?}");
        // A linear plot starts at zero and ends within an eighth past the top.
        let build = PLOTS.iter().find(|p| p.id == "sphinx-build").unwrap();
        let one = [Series {
            name: "ours".into(),
            points: vec![(1.0, 60.0), (20.0, 1200.0)],
        }];
        let (x, y) = ranges(build, &one);
        assert!(x.start == 0.0 && x.end <= 20.0 * 1.2, "{x:?}");
        assert!(
            y.start == 0.0 && y.end >= 1200.0 && y.end <= 1200.0 * 1.2,
            "{y:?}"
        );
    }

    #[test]
    fn axis_values_are_short() {
        assert_eq!(compact(100_000_000.0), "100M");
        assert_eq!(compact(15_625.0), "16k");
        assert_eq!(compact(2_500.0), "2500");
        assert_eq!(compact(1.5), "1.5");
        assert_eq!(compact(0.063), "0.063");
        assert_eq!(compact(2e9), "2G");
        assert_eq!(compact(0.0), "0");
    }
}
