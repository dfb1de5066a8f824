//! Rasterises a figure's SVG to PNG with resvg and a bundled font (a subset of DejaVu Sans,
//! `assets/fonts/`), so `--png` needs no system fonts and gives the same bytes on any machine.

use resvg::{tiny_skia, usvg};

use crate::error::{Error, Result};

/// DejaVu Sans cut to Latin, Greek, punctuation, arrows and maths (`assets/fonts/make_subset.sh`).
const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-subset.ttf");

/// The PNG of `svg` at `scale` × its size (2 gives a sharp picture on high-density screens).
pub fn to_png(svg: &str, scale: f32) -> Result<Vec<u8>> {
    let mut options = usvg::Options::default();
    let fonts = options.fontdb_mut();
    fonts.load_font_data(FONT.to_vec());
    fonts.set_sans_serif_family("DejaVu Sans");
    options.font_family = "DejaVu Sans".to_string();
    let tree = usvg::Tree::from_str(svg, &options)
        .map_err(|e| Error::Invalid(format!("the figure is not valid SVG: {e}")))?;
    let size = tree.size();
    let (w, h) = (
        (size.width() * scale).ceil() as u32,
        (size.height() * scale).ceil() as u32,
    );
    let mut pixmap = tiny_skia::Pixmap::new(w, h)
        .ok_or_else(|| Error::Invalid(format!("cannot make a {w}×{h} picture")))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| Error::Invalid(format!("encoding the PNG failed: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_drawn_with_the_bundled_font() {
        let blank = r#"<svg xmlns="http://www.w3.org/2000/svg" width="60" height="20"></svg>"#;
        let text = r#"<svg xmlns="http://www.w3.org/2000/svg" width="60" height="20"><text x="2" y="15" font-family="sans-serif" font-size="14">ΔD ≤</text></svg>"#;
        let a = to_png(blank, 1.0).unwrap();
        let b = to_png(text, 1.0).unwrap();
        assert_eq!(&b[1..4], b"PNG");
        assert_ne!(a, b, "the text left no pixels");
        assert_eq!(b, to_png(text, 1.0).unwrap());
        assert!(to_png("<svg", 1.0).is_err());
    }
}
