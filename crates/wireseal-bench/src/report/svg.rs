//! Draws one plot as SVG text with `plotters` (its SVG backend: no fonts,
//! no system libraries; it escapes the text it writes).

use super::plots::{Axis, PlotSpec, Reference};
use super::Series;
use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use std::ops::Range;

const SIZE: (u32, u32) = (900, 480);

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
        match (spec.x_axis, spec.y_axis) {
            (Axis::Log, Axis::Log) => chart(&root, spec, series, xs.log_scale(), ys.log_scale()),
            (Axis::Log, Axis::Linear) => chart(&root, spec, series, xs.log_scale(), ys),
            (Axis::Linear, Axis::Log) => chart(&root, spec, series, xs, ys.log_scale()),
            (Axis::Linear, Axis::Linear) => chart(&root, spec, series, xs, ys),
        }?;
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
/// a log axis, an eighth of the span on a linear one).
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
    let legend_rows = series.len() + spec.references.len();
    (
        span(&x, spec.x_axis),
        headroom(span(&y, spec.y_axis), spec.y_axis, legend_rows),
    )
}

/// Room above the data for the legend in the upper right: a share of the
/// plot's height per legend row.
fn headroom(r: Range<f64>, axis: Axis, rows: usize) -> Range<f64> {
    let share = (0.07 * rows as f64).min(0.6);
    match axis {
        Axis::Log => {
            let (lo, hi) = (r.start.ln(), r.end.ln());
            r.start..(lo + (hi - lo) / (1.0 - share)).exp()
        }
        Axis::Linear => r.start..(r.start + (r.end - r.start) / (1.0 - share)),
    }
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
        Axis::Log => (lo / 2.0)..(hi * 2.0),
        Axis::Linear => {
            let pad = ((hi - lo) / 8.0).max(hi.abs() / 8.0).max(1e-9);
            (lo - pad).min(0.0)..(hi + pad)
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
            .map_err(plot_err)?
            .label(s.name.as_str())
            .legend(move |(lx, ly)| PathElement::new(vec![(lx, ly), (lx + 20, ly)], style));
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
            Reference::Line { label, y } => {
                chart
                    .draw_series(DashedLineSeries::new([(x_lo, y), (x_hi, y)], 6, 4, dashed))
                    .map_err(plot_err)?
                    .label(label)
                    .legend(move |(lx, ly)| {
                        PathElement::new(vec![(lx, ly), (lx + 20, ly)], dashed)
                    });
            }
            Reference::Point { label, x, y } => {
                chart
                    .draw_series(std::iter::once(TriangleMarker::new(
                        (x, y),
                        7,
                        ShapeStyle::from(&REFERENCE).filled(),
                    )))
                    .map_err(plot_err)?
                    .label(label)
                    .legend(move |(lx, ly)| {
                        TriangleMarker::new((lx + 10, ly), 5, ShapeStyle::from(&REFERENCE).filled())
                    });
            }
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(plot_err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::compact;

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
