//! Text measured in terminal columns: numbers with thousands separators, counts with their
//! noun, cutting and padding to a width (at the end or in the middle, keeping texts apart),
//! and a job's progress in words. Every line model is built with these.

use unicode_width::UnicodeWidthStr;

use crate::tui::state::slot::JobProgress;

/// "reading index", "grouping 45%", "t-SNE 300/1000".
pub fn progress_text(progress: Option<&JobProgress>) -> String {
    match progress {
        None => "starting…".into(),
        Some(p) if p.total > 0 => {
            let pct = (p.done as f64 / p.total as f64 * 100.0).min(100.0);
            format!("{} {pct:.0}%", p.stage)
        }
        Some(p) if p.done > 0 => format!("{} {}…", p.stage, thousands(p.done as usize)),
        Some(p) => format!("{}…", p.stage),
    }
}

/// `12345` → `12,345`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 user`, `2,000 users`: the count with its noun, singular for one (`counted(1, "user")`).
pub fn counted(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        _ => format!("{} {noun}s", thousands(n)),
    }
}

/// `s` cut to `width` terminal columns, with `…` when cut.
pub fn fit(s: &str, width: usize) -> String {
    if s.width() <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > width - 1 {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// `s` cut to `width` columns in the middle (`rkm…v64_zcr`), keeping the end, where names
/// that share a prefix differ.
pub fn fit_middle(s: &str, width: usize) -> String {
    if s.width() <= width || width < 5 {
        return fit(s, width);
    }
    let head_width = (width - 1) / 3;
    let head = fit(s, head_width + 1);
    let head = head.trim_end_matches('…');
    let mut tail: Vec<char> = Vec::new();
    let mut used = 0;
    for c in s.chars().rev() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > width - 1 - head.width() {
            break;
        }
        tail.push(c);
        used += w;
    }
    tail.reverse();
    format!("{head}…{}", tail.into_iter().collect::<String>())
}

/// Texts cut to `width` so that different texts stay different where a cut can do it: from
/// the right when that keeps them apart (`Voxelcraft Mini 3D…`), else in the middle, keeping
/// the end where near-identical titles differ (`HATCHBOX PLA…1.75mm, Red`).
pub fn cut_apart(texts: &[&str], width: usize) -> Vec<String> {
    let distinct = |cut: &[String]| {
        let mut seen = std::collections::HashMap::new();
        texts
            .iter()
            .zip(cut)
            .all(|(t, c)| *seen.entry(c.clone()).or_insert(*t) == *t)
    };
    let right: Vec<String> = texts.iter().map(|t| fit(t, width)).collect();
    if distinct(&right) {
        return right;
    }
    let middle: Vec<String> = texts.iter().map(|t| fit_middle(t, width)).collect();
    if distinct(&middle) { middle } else { right }
}

/// `s` cut or padded to exactly `width` columns, left-aligned.
pub fn pad(s: &str, width: usize) -> String {
    let s = fit(s, width);
    let w = s.width();
    format!("{s}{}", " ".repeat(width.saturating_sub(w)))
}

/// `s` cut or padded to exactly `width` columns, right-aligned.
pub fn pad_left(s: &str, width: usize) -> String {
    let s = fit(s, width);
    let w = s.width();
    format!("{}{s}", " ".repeat(width.saturating_sub(w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn middle_elision_keeps_the_distinguishing_end() {
        assert_eq!(fit_middle("rkmeans_v64_native", 12), "rkm…4_native");
        assert_eq!(fit_middle("rkmeans_v64_zcr", 12), "rkm…_v64_zcr");
        assert_eq!(fit_middle("short", 12), "short");
        assert_eq!(fit_middle("rkmeans_v64_zcr", 12).width(), 12);
    }

    #[test]
    fn text_helpers() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(counted(1, "user"), "1 user");
        assert_eq!(counted(0, "user"), "0 users");
        assert_eq!(counted(2000, "user"), "2,000 users");
        assert_eq!(fit("Mini 3D Printer", 8), "Mini 3D…");
        assert_eq!(fit("abc", 3), "abc");
        assert_eq!(pad("ab", 4), "ab  ");
        assert_eq!(pad_left("ab", 4), "  ab");
        assert_eq!(pad("日本語", 4), "日… ");
    }
}
