//! Draws one plot as SVG text with `plotters` (its SVG backend: no fonts,
//! no system libraries; it escapes the text it writes).

use super::plots::{Axis, PlotSpec, Reference};
use super::Series;
use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use std::ops::Range;

const SIZE: (u32, u32) = (1200, 480);
/// Width of the legend, right of the plot: the legend never covers data,
/// so the axes span the data alone.
const LEGEND_WIDTH: u32 = 340;

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
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let (plot, key) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
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

/// The legend in its own area: one line per series (its color) and per
/// published figure (dashed line or triangle), top down.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    spec: &PlotSpec,
    series: &[Series],
) -> Result<()> {
    const ROW: i32 = 20;
    let font = ("sans-serif", 13).into_font().color(&BLACK);
    let mut y = 48;
    for (i, s) in series.iter().enumerate() {
        let style = ShapeStyle::from(&PALETTE[i % PALETTE.len()]).stroke_width(2);
        area.draw(&PathElement::new(vec![(8, y), (30, y)], style))
            .map_err(plot_err)?;
        area.draw(&Circle::new((19, y), 3, style.filled()))
            .map_err(plot_err)?;
        area.draw(&Text::new(s.name.clone(), (38, y - 7), font.clone()))
            .map_err(plot_err)?;
        y += ROW;
    }
    for r in spec.references {
        let (label, dashed) = match *r {
            Reference::Line { label, .. } => (label, true),
            Reference::Point { label, .. } => (label, false),
        };
        let style = ShapeStyle::from(&REFERENCE).stroke_width(1);
        if dashed {
            area.draw(&PathElement::new(vec![(8, y), (14, y)], style))
                .map_err(plot_err)?;
            area.draw(&PathElement::new(vec![(18, y), (24, y)], style))
                .map_err(plot_err)?;
            area.draw(&PathElement::new(vec![(28, y), (30, y)], style))
                .map_err(plot_err)?;
        } else {
            area.draw(&TriangleMarker::new(
                (19, y),
                5,
                ShapeStyle::from(&REFERENCE).filled(),
            ))
            .map_err(plot_err)?;
        }
        area.draw(&Text::new(label, (38, y - 7), font.clone()))
            .map_err(plot_err)?;
        y += ROW;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{compact, ranges};
    use crate::report::plots::PLOTS;
    use crate::report::Series;

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
