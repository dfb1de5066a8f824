//! The scatter's legend: one strip under the plot (under both plots side by side, each group
//! once with its distance in both spaces), every line within the width, never over the plot;
//! when rows run short its least needed parts go whole, never half a sentence.

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::projection::CacheOutcome;
use crate::sid;

use crate::tui::data::{Projected, prefix_key};
use crate::tui::spaces::{Space, TIGHTEST_MIN_SIZE, apart_text, distance};
use crate::tui::state::scatter::{ColourBy, HIGHLIGHTED_GROUPS};
use crate::tui::view::Screen;
use crate::tui::view::text::{fit, thousands};
use crate::tui::view::wrap;

/// Legends narrower than this shorten the titles in the key.
const COMPACT: usize = 70;

/// A piece of legend text never broken across lines (unless it is wider than a whole line),
/// and what separates it from the piece before it when both are on one line.
struct Piece {
    lead: Span<'static>,
    spans: Vec<Span<'static>>,
}

impl Piece {
    fn new(lead: Span<'static>, spans: Vec<Span<'static>>) -> Piece {
        Piece { lead, spans }
    }

    fn width(&self) -> usize {
        self.spans.iter().map(|s| s.content.width()).sum()
    }
}

/// Prose as one piece per word, so that it wraps between words.
fn words(text: &str, style: Style) -> Vec<Piece> {
    text.split(' ')
        .filter(|w| !w.is_empty())
        .map(|w| Piece::new(Span::raw(" "), vec![Span::styled(w.to_string(), style)]))
        .collect()
}

/// `pieces` laid out in lines of at most `width` columns.
fn flow(pieces: &[Piece], width: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut line: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for piece in pieces {
        let w = piece.width();
        let lead = piece.lead.content.width();
        if !line.is_empty() && used + lead + w <= width {
            line.push(piece.lead.clone());
            line.extend(piece.spans.iter().cloned());
            used += lead + w;
            continue;
        }
        if !line.is_empty() {
            lines.push(Line::from(std::mem::take(&mut line)));
        }
        if w <= width {
            line.extend(piece.spans.iter().cloned());
            used = w;
        } else {
            lines.extend(wrap::wrap(&Line::from(piece.spans.clone()), width, 0));
            used = 0;
        }
    }
    if !line.is_empty() {
        lines.push(Line::from(line));
    }
    lines
}

/// A part of the legend: its paragraphs, how much it is needed (0 most) and, when it may
/// be cut short, how many leading pieces a cut keeps; `least_need`, when set, is how much
/// its shortest cut is needed, which then gets rows before parts of lower need are whole.
struct Part {
    need: u8,
    paragraphs: Vec<Vec<Piece>>,
    cut_after: Option<usize>,
    least_need: Option<u8>,
}

impl Part {
    fn lines(&self, width: usize) -> Vec<Line<'static>> {
        self.paragraphs
            .iter()
            .flat_map(|p| flow(p, width))
            .collect()
    }

    /// The most of a one-paragraph part that fits `rows`, ending in "…".
    fn cut(&self, width: usize, rows: usize) -> Option<Vec<Line<'static>>> {
        let (keep, [pieces]) = (self.cut_after?, self.paragraphs.as_slice()) else {
            return None;
        };
        (keep..pieces.len()).rev().find_map(|n| {
            let mut shown: Vec<Piece> = pieces[..n]
                .iter()
                .map(|p| Piece::new(p.lead.clone(), p.spans.clone()))
                .collect();
            shown.push(Piece::new(Span::raw(" "), vec![Span::raw("…")]));
            let lines = flow(&shown, width);
            (lines.len() <= rows).then_some(lines)
        })
    }
}

/// The parts in screen order, in the order of need while they fit `rows`: each made as
/// whole as the rows left allow (cut, where it may be), and at its `least_need` first given
/// its shortest cut.
fn arrange(parts: &[Part], width: usize, rows: usize) -> Vec<Line<'static>> {
    let mut steps: Vec<(u8, usize, bool)> = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        steps.push((part.need, i, false));
        if let Some(least) = part.least_need {
            steps.push((least, i, true));
        }
    }
    steps.sort_by_key(|&(need, _, _)| need);
    let whole: Vec<Vec<Line<'static>>> = parts.iter().map(|p| p.lines(width)).collect();
    let mut kept: Vec<Vec<Line<'static>>> = vec![Vec::new(); parts.len()];
    let mut room = rows;
    for (_, i, least) in steps {
        let budget = room + kept[i].len();
        let limit = if least { 1 } else { budget };
        let lines = if whole[i].len() <= limit {
            whole[i].clone()
        } else {
            parts[i].cut(width, limit).unwrap_or_default()
        };
        if lines.len() >= kept[i].len() && lines.len() <= budget {
            room = budget - lines.len();
            kept[i] = lines;
        }
    }
    kept.into_iter().flatten().collect()
}

/// The legend of the spaces drawn (`shown`, in screen order) whose highlighted categories
/// are `top`: at most `rows` lines of at most `width` columns.
pub fn lines(
    screen: &Screen<'_>,
    shown: &[(Space, &Projected)],
    top: &[(u128, usize)],
    width: usize,
    rows: usize,
) -> Vec<Line<'static>> {
    if shown.is_empty() || width == 0 {
        return Vec::new();
    }
    let mut parts = vec![
        key(screen, shown, top, width),
        picked(screen),
        neighbours(screen, shown),
        selected(screen, shown[0].0),
    ];
    parts.extend(facts(screen, shown));
    arrange(&parts, width, rows)
}

/// What the colours mean: one entry per highlighted category (rank, size, first title; the
/// tightest groups with their distance in each space shown).
fn key(
    screen: &Screen<'_>,
    shown: &[(Space, &Projected)],
    top: &[(u128, usize)],
    width: usize,
) -> Part {
    let theme = screen.theme;
    let tightest =
        screen.scatter.tightest && screen.scatter.camera.colour_by == ColourBy::Collision;
    let heading = if tightest {
        let min_size = screen
            .scatter
            .spreads
            .as_ref()
            .map_or(TIGHTEST_MIN_SIZE, |s| s.min_size);
        let here = match shown {
            [_] => "here".to_string(),
            _ => shown
                .iter()
                .map(|(s, _)| s.label())
                .collect::<Vec<_>>()
                .join(" / "),
        };
        format!(
            "{} tightest groups of {min_size}+ items (t), mean cosine distance {here}:",
            top.len()
        )
    } else {
        format!("by {} (c):", screen.scatter.camera.colour_by.label())
    };
    let mut pieces = words(&heading, theme.dim());
    if top.is_empty() && screen.scatter.camera.colour_by == ColourBy::Collision {
        let none = if tightest {
            "none among these points"
        } else {
            "no collision group among these points"
        };
        pieces.extend(words(none, theme.dim()));
    }
    let fixed = pieces.len();
    let title_width = if width < COMPACT { 12 } else { 18 };
    for (rank, &(key, count)) in top.iter().enumerate() {
        let colour = theme.group_colour(rank);
        let style = if colour == Color::Reset {
            theme.text()
        } else {
            Style::new().fg(colour)
        };
        let name = match (screen.scatter.camera.colour_by, screen.tokenizers.data()) {
            (ColourBy::Collision, Some(d)) => {
                let row = d.row_of(key as u32).map(|r| &d.rows[r]);
                let title = row
                    .and_then(|r| r.items.first().and_then(|i| i.title.clone()))
                    .or_else(|| row.map(|r| r.sid.clone()))
                    .unwrap_or_default();
                let number = match row.filter(|_| tightest) {
                    Some(r) => format!("#{} ", r.rank),
                    None => String::new(),
                };
                let apart = screen
                    .scatter
                    .spreads
                    .as_ref()
                    .filter(|_| tightest)
                    .and_then(|s| s.by_group.get(&(key as u32)))
                    .map_or(String::new(), |a| {
                        let each: Vec<String> = shown
                            .iter()
                            .map(|(space, _)| match space {
                                Space::Collaborative => {
                                    a.collaborative.map_or("–".into(), distance)
                                }
                                _ => distance(a.textual),
                            })
                            .collect();
                        format!(" {}", each.join(" / "))
                    });
                format!("{number}{count}×{}{apart}", fit(&title, title_width))
            }
            (ColourBy::FirstCode, _) => {
                format!("{} {count}", sid::format_token(0, key as sid::Code))
            }
            (ColourBy::Prefix, Some(d)) => {
                let codes = screen
                    .scatter
                    .textual
                    .as_ref()
                    .and_then(|v| {
                        v.positions.iter().flatten().find_map(|&p| {
                            let c = d.index.codes(p);
                            (prefix_key(c) == key).then(|| c[..c.len() - 1].to_vec())
                        })
                    })
                    .unwrap_or_default();
                format!("{} {count}", sid::format_sid(&codes))
            }
            _ => String::new(),
        };
        let pointed = tightest && screen.tight_group() == Some(key as u32);
        let lead = if rank == 0 { " " } else { "  " };
        pieces.push(Piece::new(
            Span::raw(lead),
            vec![
                Span::styled(
                    format!("{}■{}", if pointed { "▸" } else { "" }, rank + 1),
                    style,
                ),
                Span::styled(format!(" {name}"), theme.dim()),
            ],
        ));
    }
    Part {
        need: 0,
        paragraphs: vec![pieces],
        cut_after: Some(fixed),
        least_need: None,
    }
}

/// The picked item (`✚`) with its SID.
fn picked(screen: &Screen<'_>) -> Part {
    let mut part = Part {
        need: 2,
        paragraphs: Vec::new(),
        cut_after: None,
        least_need: None,
    };
    let (Some(data), Some(position)) = (screen.tokenizers.data(), screen.picked_position()) else {
        return part;
    };
    let id = data.index.id(position).to_string();
    let title = screen
        .items
        .ready()
        .and_then(|t| t.title(&id))
        .map_or(String::new(), |t| format!(" {}", fit(t, 30)));
    let text = format!("✚ item {id}{title} {}", data.index.sid_string(position));
    part.paragraphs.push(words(&text, screen.theme.text()));
    part
}

/// The picked item's nearest neighbours (`∘`) in the full space the camera looks at, with
/// their SIDs, marking those that share its SID; cut short first when rows run out.
fn neighbours(screen: &Screen<'_>, shown: &[(Space, &Projected)]) -> Part {
    let theme = screen.theme;
    let mut part = Part {
        need: 4,
        paragraphs: Vec::new(),
        cut_after: Some(1),
        least_need: Some(3),
    };
    let (Some(data), Some(position), Some(n)) = (
        screen.tokenizers.data(),
        screen.picked_position(),
        screen.scatter.camera.neighbours.as_ref(),
    ) else {
        return part;
    };
    let camera = screen.scatter.camera_space();
    if n.position != position || n.space != camera || shown.iter().all(|(s, _)| *s != n.space) {
        return part;
    }
    let own = data.index.key(position);
    let heading = match n.space {
        Space::Collaborative => "∘ nearest by interactions:",
        _ => "∘ nearest:",
    };
    let mut pieces = vec![Piece::new(
        Span::raw(""),
        vec![Span::styled(heading, theme.dim())],
    )];
    for (i, &(p, d)) in n.near.iter().enumerate() {
        let same = data.index.key(p) == own;
        let sid = if same {
            "same SID".to_string()
        } else {
            data.index.sid_string(p)
        };
        let lead = if i == 0 { " " } else { " · " };
        pieces.push(Piece::new(
            Span::styled(lead, theme.dim()),
            vec![
                Span::styled(data.index.id(p).to_string(), theme.text()),
                Span::styled(
                    format!(" {sid} d={d:.3}"),
                    if same { theme.warn() } else { theme.dim() },
                ),
            ],
        ));
    }
    part.paragraphs.push(pieces);
    part
}

/// The selected group (`◉`) and how far apart its items are in both spaces, the paper's
/// explanation of the collision in one line: "textually 0.02 apart, 0.71 apart by
/// interactions"; once, however many spaces are drawn.
fn selected(screen: &Screen<'_>, space: Space) -> Part {
    let mut part = Part {
        need: 1,
        paragraphs: Vec::new(),
        cut_after: None,
        least_need: None,
    };
    let (Some(row), Some(scatter)) = (
        screen.tokenizers.selected_row(),
        screen.scatter.view_of(space),
    ) else {
        return part;
    };
    let shown = scatter
        .groups
        .iter()
        .filter(|g| **g == Some(row.group))
        .count();
    let sampled = if shown < row.size {
        format!(", {shown} of them in the sample")
    } else {
        String::new()
    };
    let apart = screen
        .scatter
        .spreads
        .as_ref()
        .filter(|s| s.tokenizer == screen.tokenizers.selected)
        .and_then(|s| s.by_group.get(&row.group))
        .map_or(String::new(), |a| format!(": {}", apart_text(a)));
    let text = format!("◉ group #{} ({} items{sampled}){apart}", row.rank, row.size);
    part.paragraphs.push(words(&text, screen.theme.text()));
    part
}

/// What each projection drawn rests on (zoom, sample, method, cache), one part per space,
/// each fact whole on its line; when rows run short a space's facts are cut after the first.
fn facts(screen: &Screen<'_>, shown: &[(Space, &Projected)]) -> Vec<Part> {
    shown
        .iter()
        .enumerate()
        .map(|(i, (space, projected))| {
            let p = &projected.projection;
            let mut facts = Vec::new();
            if i == 0 && screen.scatter.camera.zoom > 1.0 {
                facts.push(format!(
                    "zoom ×{} (+/- zoom, S-arrows pan, 0 all)",
                    screen.scatter.camera.zoom
                ));
            }
            if p.is_sample() {
                facts.push(format!(
                    "sample of {} of {} items (all {} of the {} largest groups)",
                    thousands(p.rows.len()),
                    thousands(p.total_rows),
                    thousands(projected.must_include),
                    HIGHLIGHTED_GROUPS
                ));
            } else {
                facts.push(format!("all {} items", thousands(p.rows.len())));
            }
            facts.extend(p.notes.iter().filter(|n| !n.contains("sample")).cloned());
            facts.push(match &projected.cache {
                Some(CacheOutcome::Hit(_)) => "from the cache".into(),
                Some(CacheOutcome::Stored(_)) => "computed and cached".into(),
                Some(CacheOutcome::NotStored(why)) => format!("not cached: {why}"),
                None => "cache off".into(),
            });
            if shown.len() > 1 {
                facts[0] = format!("{}: {}", space.label(), facts[0]);
            }
            let style = screen.theme.dim();
            let pieces = facts
                .into_iter()
                .enumerate()
                .map(|(k, fact)| {
                    let lead = if k == 0 { "" } else { " · " };
                    Piece::new(Span::styled(lead, style), vec![Span::styled(fact, style)])
                })
                .collect();
            Part {
                need: 5,
                paragraphs: vec![pieces],
                cut_after: Some(1),
                least_need: Some(3),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    fn entries(names: &[&str]) -> Vec<Piece> {
        let mut pieces = words("key:", Style::new());
        pieces.extend(
            names
                .iter()
                .map(|n| Piece::new(Span::raw("  "), vec![Span::raw(n.to_string())])),
        );
        pieces
    }

    #[test]
    fn entries_are_never_split_and_lines_fit() {
        let lines = flow(
            &entries(&["■1 alpha beta", "■2 gamma", "■3 delta epsilon"]),
            20,
        );
        assert_eq!(
            text(&lines),
            ["key:  ■1 alpha beta", "■2 gamma", "■3 delta epsilon"]
        );
        let long = flow(&words("a sentence longer than the line", Style::new()), 12);
        assert_eq!(text(&long), ["a sentence", "longer than", "the line"]);
        let wide = flow(&entries(&["■1 far wider than the width"]), 10);
        assert!(wide.iter().all(|l| l.width() <= 10), "{:?}", text(&wide));
    }

    /// A colour key of three entries, most needed, which may be cut after its heading.
    fn three_entry_key() -> Part {
        Part {
            need: 0,
            paragraphs: vec![entries(&["■1 one", "■2 two", "■3 three"])],
            cut_after: Some(1),
            least_need: None,
        }
    }

    #[test]
    fn parts_that_do_not_fit_go_whole_in_order_of_need() {
        let prose = |need: u8, s: &str| Part {
            need,
            paragraphs: vec![words(s, Style::new())],
            cut_after: None,
            least_need: None,
        };
        let parts = [
            three_entry_key(),
            prose(2, "third needed, two lines long"),
            prose(1, "second"),
            prose(3, "last"),
        ];
        assert_eq!(
            text(&arrange(&parts, 16, 3)),
            ["key:  ■1 one", "■2 two  ■3 three", "second"]
        );
        assert_eq!(
            text(&arrange(&parts, 16, 4)),
            ["key:  ■1 one", "■2 two  ■3 three", "second", "last"],
            "a part that does not fit leaves room for a later one"
        );
        assert_eq!(
            text(&arrange(&parts, 16, 1)),
            ["key:  ■1 one …"],
            "the key is cut between entries"
        );
        assert!(arrange(&parts, 16, 0).is_empty());
    }

    #[test]
    fn a_least_need_keeps_one_line_of_a_part_before_others_grow() {
        let cuttable = |need: u8, text: &str| Part {
            need,
            paragraphs: vec![words(text, Style::new())],
            cut_after: Some(1),
            least_need: Some(3),
        };
        let parts = [
            three_entry_key(),
            cuttable(4, "nearest one two three four five"),
            cuttable(5, "facts alpha beta gamma delta"),
        ];
        let key = ["key:  ■1 one", "■2 two  ■3 three"];
        assert_eq!(
            text(&arrange(&parts, 16, 4)),
            [&key[..], &["nearest one …", "facts alpha …"]].concat(),
            "each cuttable part keeps a line although the one before could grow"
        );
        assert_eq!(
            text(&arrange(&parts, 16, 5)),
            [
                &key[..],
                &["nearest one two", "three four five", "facts alpha …"]
            ]
            .concat(),
            "rows left over go to the parts in order of need"
        );
        assert_eq!(
            text(&arrange(&parts, 16, 3)),
            [&key[..], &["nearest one …"]].concat(),
            "the key is whole before any least line"
        );
        assert_eq!(text(&arrange(&parts, 16, 6)).len(), 6);
    }
}
