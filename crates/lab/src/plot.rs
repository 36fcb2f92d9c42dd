//! SVG line plots with an embedded font.
//!
//! plotters is built without system-font support (`ab_glyph` only), and the DejaVu Sans
//! font shipped in `assets/` is registered under the family name `sans-serif` before any
//! text is laid out, so rendering never depends on fonts installed on the machine.

use anyhow::{anyhow, Context as _};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// Register the embedded font (idempotent).
pub fn ensure_font() -> anyhow::Result<()> {
    static DONE: OnceLock<bool> = OnceLock::new();
    let ok = *DONE.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err(anyhow!("the embedded DejaVu Sans font could not be parsed"))
    }
}

/// One curve.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend label.
    pub name: String,
    /// Points `(x, y)`; non-finite points are skipped.
    pub points: Vec<(f64, f64)>,
    /// Dashed line (for reference curves: closed forms, limits, the paper's values).
    pub dashed: bool,
    /// Draw markers instead of a line (for simulated points).
    pub markers: bool,
    /// Marker radius in pixels (markers only).
    pub radius: u32,
}

impl Series {
    /// A solid line.
    pub fn line(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            name: name.into(),
            points,
            dashed: false,
            markers: false,
            radius: 4,
        }
    }
    /// A dashed line.
    pub fn dashed(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            dashed: true,
            ..Self::line(name, points)
        }
    }
    /// Markers only.
    pub fn markers(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            markers: true,
            ..Self::line(name, points)
        }
    }
    /// Small dots (scatter plots of many points).
    pub fn dots(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            markers: true,
            radius: 1,
            ..Self::line(name, points)
        }
    }
}

/// A line chart.
#[derive(Debug, Clone, Default)]
pub struct LinePlot {
    /// Title.
    pub title: String,
    /// X-axis label.
    pub x_label: String,
    /// Y-axis label.
    pub y_label: String,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// Curves.
    pub series: Vec<Series>,
    /// Fixed y range (else from the data).
    pub y_range: Option<(f64, f64)>,
}

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

fn extent(plot: &LinePlot) -> anyhow::Result<((f64, f64), (f64, f64))> {
    let ok = |v: f64, log: bool| v.is_finite() && (!log || v > 0.0);
    let pts = plot
        .series
        .iter()
        .flat_map(|s| s.points.iter())
        .filter(|(x, y)| ok(*x, plot.log_x) && ok(*y, plot.log_y));
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        return Err(anyhow!("plot `{}` has no drawable point", plot.title));
    }
    if let Some(r) = plot.y_range {
        (y0, y1) = r;
    }
    let pad = |a: f64, b: f64, log: bool| {
        if log {
            let (la, lb) = (a.ln(), b.ln());
            let d = ((lb - la) * 0.04).max(0.05);
            ((la - d).exp(), (lb + d).exp())
        } else {
            let d = ((b - a) * 0.04).max(1e-9 * a.abs().max(1.0));
            (a - d, b + d)
        }
    };
    let xr = if plot.log_x {
        pad(x0, x1, true)
    } else {
        (x0, x1)
    };
    let yr = if plot.y_range.is_some() {
        (y0, y1)
    } else {
        pad(y0, y1, plot.log_y)
    };
    Ok((xr, yr))
}

macro_rules! draw_with {
    ($root:expr, $plot:expr, $xs:expr, $ys:expr) => {{
        let plot = $plot;
        let mut chart = ChartBuilder::on($root)
            .caption(&plot.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d($xs, $ys)
            .map_err(|e| anyhow!("{e}"))?;
        chart
            .configure_mesh()
            .x_desc(plot.x_label.as_str())
            .y_desc(plot.y_label.as_str())
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 15))
            .draw()
            .map_err(|e| anyhow!("{e}"))?;
        for (i, s) in plot.series.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            let pts: Vec<(f64, f64)> = s
                .points
                .iter()
                .copied()
                .filter(|(x, y)| {
                    x.is_finite()
                        && y.is_finite()
                        && (!plot.log_x || *x > 0.0)
                        && (!plot.log_y || *y > 0.0)
                        && plot.y_range.is_none_or(|(lo, hi)| *y >= lo && *y <= hi)
                })
                .collect();
            let style = ShapeStyle::from(&color).stroke_width(2);
            let anno = if s.markers {
                let dot = if s.radius <= 1 {
                    ShapeStyle::from(&color).filled()
                } else {
                    style
                };
                let r = s.radius.max(1);
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, r, dot)))
                    .map_err(|e| anyhow!("{e}"))?
            } else if s.dashed {
                chart
                    .draw_series(DashedLineSeries::new(pts, 8, 5, style))
                    .map_err(|e| anyhow!("{e}"))?
            } else {
                chart
                    .draw_series(LineSeries::new(pts, style))
                    .map_err(|e| anyhow!("{e}"))?
            };
            // Legend sample: a circle for marker series, a line otherwise (the unused part
            // is drawn fully transparent so both cases have one element type).
            let hidden = ShapeStyle::from(&WHITE.mix(0.0));
            let (radius, line) = if s.markers {
                (s.radius.max(3), hidden)
            } else {
                (0, style)
            };
            anno.label(s.name.clone()).legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + Circle::new((9, 0), radius, style)
                    + PathElement::new(vec![(0, 0), (18, 0)], line)
            });
        }
        chart
            .configure_series_labels()
            .label_font(("sans-serif", 13))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|e| anyhow!("{e}"))?;
    }};
}

fn draw(root: &DrawingArea<SVGBackend<'_>, Shift>, plot: &LinePlot) -> anyhow::Result<()> {
    root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
    let ((x0, x1), (y0, y1)) = extent(plot)?;
    match (plot.log_x, plot.log_y) {
        (false, false) => draw_with!(root, plot, x0..x1, y0..y1),
        (true, false) => draw_with!(root, plot, (x0..x1).log_scale(), y0..y1),
        (false, true) => draw_with!(root, plot, x0..x1, (y0..y1).log_scale()),
        (true, true) => draw_with!(root, plot, (x0..x1).log_scale(), (y0..y1).log_scale()),
    }
    root.present().map_err(|e| anyhow!("{e}"))?;
    Ok(())
}

/// Render `plot` to an SVG file (900×560).
pub fn render_svg(plot: &LinePlot, path: &Path) -> anyhow::Result<()> {
    ensure_font()?;
    // Rendered in memory and written only once complete: a plot that cannot be drawn leaves
    // no file (nor a half-written one over an older plot).
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 560)).into_drawing_area();
        draw(&root, plot).with_context(|| format!("rendering plot {}", path.display()))?;
        root.present()
            .with_context(|| format!("rendering plot {}", path.display()))?;
    }
    std::fs::write(path, svg).with_context(|| format!("writing plot {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plot_renders_text_without_system_fonts() {
        let dir = std::env::temp_dir().join(format!("lab-plot-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (log_x, log_y) in [(false, false), (true, true)] {
            let p = dir.join(format!("t-{log_x}-{log_y}.svg"));
            let plot = LinePlot {
                title: "Rendering check".into(),
                x_label: "flow size".into(),
                y_label: "E[T]".into(),
                log_x,
                log_y,
                series: vec![
                    Series::line("PS", vec![(1.0, 1.0), (10.0, 10.0)]),
                    Series::dashed("LAS", vec![(1.0, 2.0), (10.0, 5.0)]),
                    Series::markers("sim", vec![(2.0, 2.0), (5.0, 6.0)]),
                ],
                y_range: None,
            };
            render_svg(&plot, &p).unwrap();
            let svg = std::fs::read_to_string(&p).unwrap();
            assert!(svg.contains("<svg"));
            assert!(svg.contains("Rendering check"), "title text missing");
            assert!(svg.contains("flow size") && svg.contains("LAS"));
            assert!(svg.matches("<text").count() > 8, "axis labels missing");
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_plot_without_points_is_an_error() {
        let plot = LinePlot {
            title: "empty".into(),
            series: vec![Series::line("x", vec![(f64::NAN, 1.0)])],
            ..Default::default()
        };
        let p = std::env::temp_dir().join(format!("lab-plot-empty-{}.svg", std::process::id()));
        assert!(render_svg(&plot, &p).is_err());
        assert!(!p.exists(), "a plot that failed left a file");
    }
}
