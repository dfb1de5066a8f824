//! A Cartesian chart with labelled axes (plotters' `ChartBuilder` and mesh), turned into a
//! mapping from data to pixel coordinates, so every figure draws its markers and lines with the
//! shared shapes of [`super::style`].

use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::{self, GREY, SMALL_SIZE, TEXT_SIZE, TITLE_SIZE, draw_error};
use crate::error::Result;

/// What a chart's axes show.
pub struct AxesSpec<'a> {
    /// Title above the plot.
    pub title: &'a str,
    /// Label of the x axis, with its unit.
    pub x_label: &'a str,
    /// Label of the y axis, with its unit.
    pub y_label: &'a str,
    /// Data range of x.
    pub x: (f64, f64),
    /// Data range of y.
    pub y: (f64, f64),
    /// How tick values are written on x.
    pub x_ticks: &'a dyn Fn(&f64) -> String,
    /// How tick values are written on y.
    pub y_ticks: &'a dyn Fn(&f64) -> String,
    /// Pixels kept free under the x axis label for a caption.
    pub caption_lines: u32,
}

/// Pixel mapping of a drawn chart.
#[derive(Debug, Clone, Copy)]
pub struct Plot {
    x: (f64, f64),
    y: (f64, f64),
    left: i32,
    right: i32,
    top: i32,
    bottom: i32,
}

impl Plot {
    /// The pixel of data point `(x, y)`.
    pub fn px(&self, x: f64, y: f64) -> (i32, i32) {
        let fx = (x - self.x.0) / (self.x.1 - self.x.0);
        let fy = (y - self.y.0) / (self.y.1 - self.y.0);
        (
            self.left + (fx * f64::from(self.right - self.left)).round() as i32,
            self.bottom - (fy * f64::from(self.bottom - self.top)).round() as i32,
        )
    }

    /// The right edge of the plotting area in pixels.
    pub fn right(&self) -> i32 {
        self.right
    }

    /// The top edge of the plotting area in pixels.
    pub fn top(&self) -> i32 {
        self.top
    }

    /// The left edge of the plotting area in pixels.
    pub fn left(&self) -> i32 {
        self.left
    }
}

/// Draws the title, the axes with ticks, labels and a light grid on `area`, and returns the
/// mapping for the data.
pub fn draw_axes<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    spec: &AxesSpec<'_>,
) -> Result<Plot> {
    let caption_px = spec.caption_lines * (SMALL_SIZE + 6);
    let (plot_area, _) = area.split_vertically(area.dim_in_pixel().1 - caption_px);
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(style::label(spec.title, 90), (style::FONT, TITLE_SIZE))
        .margin(14)
        .x_label_area_size(46)
        .y_label_area_size(64)
        .build_cartesian_2d(spec.x.0..spec.x.1, spec.y.0..spec.y.1)
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .light_line_style(WHITE)
        .bold_line_style(GREY.mix(0.5))
        .x_labels(8)
        .y_labels(8)
        .x_label_formatter(spec.x_ticks)
        .y_label_formatter(spec.y_ticks)
        .x_desc(style::label(spec.x_label, 90))
        .y_desc(style::label(spec.y_label, 90))
        .label_style((style::FONT, SMALL_SIZE))
        .axis_desc_style((style::FONT, TEXT_SIZE))
        .draw()
        .map_err(draw_error)?;
    let (left, top) = chart.backend_coord(&(spec.x.0, spec.y.1));
    let (right, bottom) = chart.backend_coord(&(spec.x.1, spec.y.0));
    Ok(Plot {
        x: spec.x,
        y: spec.y,
        left,
        right,
        top,
        bottom,
    })
}

/// Writes caption lines under the chart, left-aligned.
pub fn draw_caption<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lines: &[String],
) -> Result<()> {
    let height = area.dim_in_pixel().1 as i32;
    let step = (SMALL_SIZE + 6) as i32;
    let first = height - step * lines.len() as i32 - 4;
    for (i, line) in lines.iter().enumerate() {
        area.draw(&Text::new(
            style::label(line, 140),
            (14, first + step * i as i32),
            style::text(SMALL_SIZE, BLACK),
        ))
        .map_err(draw_error)?;
    }
    Ok(())
}

/// Tick labels with `decimals` decimals.
pub fn fixed(decimals: usize) -> impl Fn(&f64) -> String {
    move |v| format!("{v:.decimals$}")
}
