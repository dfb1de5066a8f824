//! The look every figure shares: canvas size, font, a colour-blind-safe palette paired with a
//! marker shape and a dash pattern per series (so a figure reads in black and white too), and
//! the plumbing from plotters' SVG backend to a string.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::{Error, Result};

/// The font family of all text; `--png` maps it to the bundled font.
pub const FONT: &str = "sans-serif";
/// Axis labels and legend text, in pixels.
pub const TEXT_SIZE: u32 = 14;
/// Tick labels, point labels and captions, in pixels.
pub const SMALL_SIZE: u32 = 12;
/// Figure titles, in pixels.
pub const TITLE_SIZE: u32 = 17;

/// Okabe–Ito colours without the yellow (unreadable on white), black first.
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 0, 0),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
];

/// Light grey for context (background points, grid).
pub const GREY: RGBColor = RGBColor(190, 190, 190);

/// The colour of series `i`.
pub fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// A marker shape; series `i` gets `Marker::of(i)`, so neighbours differ in shape and fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// A filled disc.
    Disc,
    /// An open square.
    Square,
    /// A filled triangle.
    Triangle,
    /// An ×.
    Cross,
    /// An open circle.
    Ring,
    /// A filled square.
    Block,
    /// An open triangle.
    OpenTriangle,
    /// A +.
    Plus,
}

const MARKERS: [Marker; 8] = [
    Marker::Disc,
    Marker::Square,
    Marker::Triangle,
    Marker::Cross,
    Marker::Ring,
    Marker::Block,
    Marker::OpenTriangle,
    Marker::Plus,
];

impl Marker {
    /// The marker of series `i`.
    pub fn of(i: usize) -> Marker {
        MARKERS[i % MARKERS.len()]
    }
}

/// A dash pattern (dash length, gap) in pixels for series `i`; `None` is a solid line.
pub fn dash(i: usize) -> Option<(u32, u32)> {
    [
        None,
        Some((8, 4)),
        Some((2, 3)),
        Some((12, 4)),
        Some((5, 2)),
    ][i % 5]
}

/// Draws `marker` of `size` pixels (half-width) at pixel `(x, y)` of `area`.
pub fn draw_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (x, y): (i32, i32),
    marker: Marker,
    size: i32,
    colour: RGBColor,
) -> Result<()> {
    let line = ShapeStyle::from(colour).stroke_width(2);
    let fill = ShapeStyle::from(colour).filled();
    let s = size;
    let triangle = vec![(x, y - s - 1), (x + s + 1, y + s), (x - s - 1, y + s)];
    let r = match marker {
        Marker::Disc => area.draw(&Circle::new((x, y), s, fill)),
        Marker::Ring => area.draw(&Circle::new((x, y), s, line)),
        Marker::Square => area.draw(&Rectangle::new([(x - s, y - s), (x + s, y + s)], line)),
        Marker::Block => area.draw(&Rectangle::new([(x - s, y - s), (x + s, y + s)], fill)),
        Marker::Triangle => area.draw(&Polygon::new(triangle, fill)),
        Marker::OpenTriangle => {
            let mut closed = triangle.clone();
            closed.push(triangle[0]);
            area.draw(&PathElement::new(closed, line))
        }
        Marker::Cross => area
            .draw(&PathElement::new(
                vec![(x - s, y - s), (x + s, y + s)],
                line,
            ))
            .and_then(|()| {
                area.draw(&PathElement::new(
                    vec![(x - s, y + s), (x + s, y - s)],
                    line,
                ))
            }),
        Marker::Plus => area
            .draw(&PathElement::new(
                vec![(x - s - 1, y), (x + s + 1, y)],
                line,
            ))
            .and_then(|()| {
                area.draw(&PathElement::new(
                    vec![(x, y - s - 1), (x, y + s + 1)],
                    line,
                ))
            }),
    };
    r.map_err(draw_error)
}

/// Draws a polyline through pixel `points`, solid or with the dash pattern `dash`.
pub fn draw_line<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    points: &[(i32, i32)],
    dash: Option<(u32, u32)>,
    style: ShapeStyle,
) -> Result<()> {
    match dash {
        None => area.draw(&PathElement::new(points.to_vec(), style)),
        Some((on, off)) => area.draw(&plotters::element::DashedPathElement::new(
            points.iter().copied(),
            on,
            off,
            style,
        )),
    }
    .map_err(draw_error)
}

/// Text as plotters should receive it: C0/C1 control characters (invalid in XML even when
/// escaped) replaced, and cut to `max` characters with an ellipsis. Escaping of `<`, `&`, `"`
/// is the SVG backend's.
pub fn label(text: &str, max: usize) -> String {
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
        .collect();
    if clean.chars().count() <= max {
        clean
    } else {
        let mut cut: String = clean.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// A text style of `size` pixels in `colour`.
pub fn text(size: u32, colour: RGBColor) -> TextStyle<'static> {
    (FONT, size).into_font().color(&colour)
}

/// Renders a figure of `width`×`height` pixels: `draw` paints on a white canvas, the result is
/// the SVG document.
pub fn render_svg(
    width: u32,
    height: u32,
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<()>,
) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        draw(&root)?;
        root.present().map_err(draw_error)?;
    }
    Ok(svg)
}

/// A plotters drawing error as the library's error (drawing into a string only fails on a bug
/// in the figure code, e.g. an empty axis range, so the message says which).
pub fn draw_error<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> Error {
    Error::Invalid(format!("drawing the figure failed: {e}"))
}

/// A range that pads `[lo, hi]` by `pad` of its span and never collapses to a point.
pub fn padded(lo: f64, hi: f64, pad: f64) -> (f64, f64) {
    let (lo, hi) = if lo.is_finite() && hi.is_finite() && lo <= hi {
        (lo, hi)
    } else {
        (0.0, 1.0)
    };
    let span = if hi - lo > 1e-12 {
        hi - lo
    } else {
        lo.abs().max(1.0)
    };
    (lo - pad * span, hi + pad * span)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_drop_control_characters_and_are_cut() {
        assert_eq!(label("a\u{0}b<c>", 10), "a\u{FFFD}b<c>");
        assert_eq!(label("abcdefgh", 5), "abcd…");
    }

    #[test]
    fn series_differ_in_shape_and_dash() {
        assert_ne!(Marker::of(0), Marker::of(1));
        assert_eq!(Marker::of(8), Marker::of(0));
        assert_ne!(dash(0), dash(1));
    }

    #[test]
    fn padded_ranges_never_collapse() {
        assert_eq!(padded(1.0, 1.0, 0.1), (0.9, 1.1));
        assert_eq!(padded(0.0, 10.0, 0.1), (-1.0, 11.0));
        assert_eq!(padded(f64::NAN, 1.0, 0.0), (0.0, 1.0));
    }
}
