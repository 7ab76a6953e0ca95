//! The report's charts, drawn as SVG with plotters. Text is left to the browser's fonts
//! (plotters without its `ttf` feature), so nothing here needs system font libraries.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One line of a line chart.
#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    /// Drawn thick and grey underneath the others, and always in the legend.
    pub emphasis: bool,
}

const WIDTH: u32 = 860;
/// Beyond this many lines the legend names only the emphasized ones.
const LEGEND_LIMIT: usize = 12;

/// A plot that could not be drawn, with the drawing library's reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlotError(pub String);

impl std::fmt::Display for PlotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot draw the plot: {}", self.0)
    }
}

impl std::error::Error for PlotError {}

fn failed(e: impl std::fmt::Display) -> PlotError {
    PlotError(e.to_string())
}

/// Lines over a shared x axis starting at 0.
pub fn lines(
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[Series],
) -> Result<String, PlotError> {
    let all = series.iter().flat_map(|s| s.points.iter());
    let (x_max, y_max) = all.fold((0.0f64, 0.0f64), |(x, y), p| (x.max(p.0), y.max(p.1)));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 460)).into_drawing_area();
        root.fill(&WHITE).map_err(failed)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(0f64..x_max.max(1.0) * 1.02, 0f64..y_max.max(1.0) * 1.05)
            .map_err(failed)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_label_formatter(&|x: &f64| format!("{x:.0}"))
            .y_label_formatter(&|y: &f64| format!("{y:.0}"))
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 14))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(failed)?;
        let legend_all = series.len() <= LEGEND_LIMIT;
        // Emphasized lines go underneath, so that the nodes' own lines stay visible on them.
        let mut order: Vec<usize> = (0..series.len()).collect();
        order.sort_by_key(|&i| !series[i].emphasis);
        for i in order {
            let s = &series[i];
            let style = if s.emphasis {
                RGBColor(150, 150, 150).stroke_width(5)
            } else {
                Palette99::pick(i).stroke_width(2)
            };
            let drawn = chart
                .draw_series(LineSeries::new(s.points.iter().copied(), style))
                .map_err(failed)?;
            if legend_all || s.emphasis {
                drawn
                    .label(s.label.clone())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(failed)?;
        root.present().map_err(failed)?;
    }
    Ok(svg)
}

/// A histogram of `values` in at most `bins` equal-width bins.
pub fn histogram(
    title: &str,
    x_desc: &str,
    values: &[usize],
    bins: usize,
) -> Result<String, PlotError> {
    let max = values.iter().copied().max().unwrap_or(0) + 1;
    let width = max.div_ceil(bins.max(1)).max(1);
    let mut counts = vec![0u32; max.div_ceil(width)];
    for &v in values {
        counts[v / width] += 1;
    }
    let top = counts.iter().copied().max().unwrap_or(0).max(1);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 400)).into_drawing_area();
        root.fill(&WHITE).map_err(failed)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..(counts.len() * width) as f64, 0f64..top as f64 * 1.08)
            .map_err(failed)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc("inputs")
            .x_label_formatter(&|x: &f64| format!("{x:.0}"))
            .y_label_formatter(&|y: &f64| format!("{y:.0}"))
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 14))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(failed)?;
        chart
            .draw_series(
                counts
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| **c > 0)
                    .map(|(i, &c)| {
                        let x0 = (i * width) as f64;
                        let mut bar = Rectangle::new(
                            [(x0, 0.0), (x0 + width as f64, f64::from(c))],
                            RGBColor(70, 110, 170).filled(),
                        );
                        bar.set_margin(0, 0, 1, 1);
                        bar
                    }),
            )
            .map_err(failed)?;
        root.present().map_err(failed)?;
    }
    Ok(svg)
}

/// One horizontal bar per label, values in 0..=1, each labelled with its name and percentage.
pub fn shares(title: &str, x_desc: &str, bars: &[(String, f64)]) -> Result<String, PlotError> {
    let height = 90 + 22 * bars.len().max(1) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(failed)?;
        let n = bars.len().max(1) as f64;
        // Room right of 100% for the longest label.
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(12)
            .build_cartesian_2d(0f64..140f64, 0f64..n)
            .map_err(failed)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .x_label_formatter(&|x: &f64| {
                if *x <= 100.0 {
                    format!("{x:.0}%")
                } else {
                    String::new()
                }
            })
            .y_labels(0)
            .disable_y_mesh()
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 14))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(failed)?;
        let label =
            TextStyle::from(("sans-serif", 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
        for (i, (name, share)) in bars.iter().enumerate() {
            let y = n - i as f64;
            let x = share.clamp(0.0, 1.0) * 100.0;
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, y - 0.85), (x, y - 0.15)],
                    RGBColor(60, 150, 90).filled(),
                )))
                .map_err(failed)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    format!("{name}  {:.0}%", share * 100.0),
                    (x + 1.0, y - 0.5),
                    label.clone(),
                )))
                .map_err(failed)?;
        }
        root.present().map_err(failed)?;
    }
    Ok(svg)
}
