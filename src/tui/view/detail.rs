//! The detail pane's lines: the selected group's SID, its items (id, title, brand,
//! categories; identical titles flagged), what a `*_zcr` sibling did to it, and its prefix
//! group's reassignment table, with the verdict (who moves, totals, saving, caveats) to pin
//! under the scrolling text. Text is wrapped here, so scrolling counts screen lines exactly.

use std::collections::HashMap;

use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::report::groups::GroupRow;
use crate::report::{self, Align, Table, reassign};
use crate::sid;
use crate::usecase::item_view::{self, Tokenized};

use super::text::{counted, cut_apart, fit_middle, pad, progress_text, thousands};
use super::{Screen, table, wrap};
use crate::tui::data::{PrefixEntry, TokenizerData, prefix_key};
use crate::tui::layout::{self, Pane};
use crate::tui::spaces::apart_text;
use crate::tui::state::slot::Slot;

/// The detail pane laid out for an inside area: wrapped lines that scroll, the verdict pinned
/// under them (empty when everything fits or the pane is too short to pin), and how many body
/// lines show.
#[derive(Debug)]
pub struct DetailView {
    /// The scrolling lines, one per screen line.
    pub body: Vec<Line<'static>>,
    /// The pinned lines under them, a rule first.
    pub pinned: Vec<Line<'static>>,
    /// Body lines that show at once.
    pub height: usize,
    /// Body line where the `*_zcr` sibling's section starts, when there is one.
    pub zcr_at: Option<usize>,
}

impl DetailView {
    /// The largest useful scroll: the last body line at the bottom of the view.
    pub fn max_scroll(&self) -> usize {
        self.body.len().saturating_sub(self.height)
    }
}

/// Fewest body lines left above a pinned verdict; shorter panes scroll the verdict too.
const MIN_BODY_LINES: usize = 4;

/// The detail pane for the selected group, laid out in `inner`.
pub fn view(screen: &Screen<'_>, inner: Rect) -> Option<DetailView> {
    let data = screen.tokenizers.data()?;
    let row = screen.tokenizers.selected_row()?;
    let width = inner.width as usize;
    let height = inner.height as usize;
    let parts = lines(screen, data, row, width);
    let zcr_at = parts
        .zcr_at
        .map(|at| wrap::wrap_all(&parts.body[..at], width).len());
    let mut body = wrap::wrap_all(&parts.body, width);
    let verdict = wrap::wrap_all(&parts.verdict, width);
    let fits = body.len() + verdict.len() <= height;
    if fits || verdict.is_empty() || height < verdict.len() + 1 + MIN_BODY_LINES {
        body.extend(verdict);
        return Some(DetailView {
            body,
            pinned: Vec::new(),
            height,
            zcr_at,
        });
    }
    let mut pinned = vec![Line::styled("─".repeat(width), screen.theme.border())];
    pinned.extend(verdict);
    Some(DetailView {
        body,
        height: height - pinned.len(),
        pinned,
        zcr_at,
    })
}

/// The detail pane's inside area, when it is on screen.
fn inner_area(screen: &Screen<'_>) -> Option<Rect> {
    screen.layout().pane(Pane::Detail).map(layout::inner)
}

/// The largest scroll of the detail pane as it is on screen now (0 when hidden).
pub fn max_scroll(screen: &Screen<'_>) -> usize {
    inner_area(screen)
        .and_then(|inner| view(screen, inner))
        .map_or(0, |v| v.max_scroll())
}

/// The body line where the `*_zcr` sibling's section starts, as the pane is on screen.
pub fn zcr_section_line(screen: &Screen<'_>) -> Option<usize> {
    view(screen, inner_area(screen)?)?.zcr_at
}

/// The detail's text before wrapping: what scrolls, and the verdict.
pub struct Parts {
    /// Everything but the verdict.
    pub body: Vec<Line<'static>>,
    /// Who moves, the totals and saving, and caveats about the costs.
    pub verdict: Vec<Line<'static>>,
    /// Line of `body` where the `*_zcr` sibling's section starts.
    pub zcr_at: Option<usize>,
}

/// Every line of the detail pane, before wrapping and scrolling.
pub fn lines(screen: &Screen<'_>, data: &TokenizerData, row: &GroupRow, width: usize) -> Parts {
    let theme = screen.theme;
    let collisions = &data.collisions;
    let prefix = collisions.prefix_of_group(row.group);
    let n_levels = row.codes.len();
    let prefix_codes = &row.codes[..n_levels.saturating_sub(1)];
    let shared_codes = (prefix.first_group..prefix.end_group)
        .filter(|&g| collisions.size(g) > 1)
        .count();
    let mut out = vec![
        Line::from(vec![
            Span::styled("SID ", theme.dim()),
            Span::styled(row.sid.clone(), theme.header()),
            Span::styled(
                format!(
                    "  {} items share it · native codes {}",
                    row.size,
                    codes_text(&row.codes)
                ),
                theme.text(),
            ),
        ]),
        Line::from(vec![
            Span::styled("prefix ", theme.dim()),
            Span::raw(sid::format_sid(prefix_codes)),
            Span::styled(
                format!(
                    "  {} items · {} shared last code{}",
                    thousands(collisions.prefix_size(prefix) as usize),
                    shared_codes,
                    if shared_codes == 1 { "" } else { "s" }
                ),
                theme.dim(),
            ),
        ]),
    ];
    if let Some(apart) = screen
        .scatter
        .spreads
        .as_ref()
        .filter(|s| s.tokenizer == screen.tokenizers.selected)
        .and_then(|s| s.by_group.get(&row.group))
    {
        out.push(Line::from(vec![
            Span::styled("spread ", theme.dim()),
            Span::styled(apart_text(apart), theme.text()),
        ]));
    }
    out.push(Line::raw(""));
    out.extend(member_lines(screen, row, width));
    if let Slot::Missing(how) | Slot::Failed(how) = screen.items {
        out.push(Line::styled(how.clone(), theme.dim()));
    }
    out.push(Line::raw(""));
    out.extend(credit_lines(screen, row));
    out.push(Line::raw(""));
    out.push(Line::styled(
        format!(
            "Reassignment of prefix {}: ZCR vs greedy",
            sid::format_sid(prefix_codes)
        ),
        theme.header(),
    ));
    let zcr = zcr_lines(screen, data, row, width);
    let zcr_at = (!zcr.is_empty()).then(|| out.len() + 1);
    if !zcr.is_empty() {
        out.push(Line::raw(""));
        out.extend(zcr);
    }
    let (reassign, verdict) = reassign_lines(screen, row, width);
    out.extend(reassign);
    Parts {
        body: out,
        verdict,
        zcr_at,
    }
}

/// The group's items: id, title, brand and categories (titles cut in the middle, where
/// near-identical titles differ), the selected item marked `›`, identical titles marked `=`.
fn member_lines(screen: &Screen<'_>, row: &GroupRow, width: usize) -> Vec<Line<'static>> {
    let theme = screen.theme;
    let texts = screen.items.ready();
    let member = screen.tokenizers.shown().map_or(0, |t| t.detail.member);
    let key = |t: &Option<String>| t.as_deref().map(|t| t.trim().to_lowercase());
    let mut same: HashMap<String, usize> = HashMap::new();
    for item in &row.items {
        if let Some(k) = key(&item.title) {
            *same.entry(k).or_default() += 1;
        }
    }
    let id_width = row
        .items
        .iter()
        .map(|i| i.id.len())
        .max()
        .unwrap_or(2)
        .max(2);
    let rest = width.saturating_sub(id_width + 3);
    let (title_w, brand_w) = if rest >= 60 {
        (rest * 5 / 10, rest * 2 / 10)
    } else {
        (rest, 0)
    };
    let cat_w = rest.saturating_sub(title_w + brand_w + 2);
    let mut header = vec![
        Span::styled(
            "  ".to_string() + &pad("id", id_width) + " ",
            theme.header(),
        ),
        Span::styled(pad("title", title_w), theme.header()),
    ];
    if brand_w > 0 {
        header.push(Span::styled(
            " ".to_string() + &pad("brand", brand_w),
            theme.header(),
        ));
        header.push(Span::styled(
            " ".to_string() + &pad("categories", cat_w),
            theme.header(),
        ));
    }
    let mut out = vec![Line::from(header)];
    let titles: Vec<&str> = row
        .items
        .iter()
        .map(|i| i.title.as_deref().unwrap_or("—"))
        .collect();
    let titles = cut_apart(&titles, title_w);
    for (n, item) in row.items.iter().enumerate() {
        let info = texts.and_then(|t| t.get(&item.id));
        let twin = key(&item.title).is_some_and(|k| same[&k] > 1);
        let marker = match (n == member, twin) {
            (true, true) => "›=",
            (true, false) => "› ",
            (false, true) => " =",
            (false, false) => "  ",
        };
        let mut spans = vec![
            Span::raw(format!("{marker}{} ", pad(&item.id, id_width))),
            Span::raw(pad(&titles[n], title_w)),
        ];
        if brand_w > 0 {
            let brand = info.and_then(|i| i.brand.clone()).unwrap_or_default();
            let cats = info.and_then(|i| i.categories.clone()).unwrap_or_default();
            spans.push(Span::styled(
                " ".to_string() + &pad(&brand, brand_w),
                theme.dim(),
            ));
            spans.push(Span::styled(
                " ".to_string() + &pad(&cats, cat_w),
                theme.dim(),
            ));
        }
        let line = Line::from(spans);
        out.push(if n == member && screen.focus == Pane::Detail {
            line.style(theme.selected())
        } else {
            line
        });
    }
    let mut twins: Vec<(&String, &usize)> = same.iter().filter(|(_, n)| **n > 1).collect();
    twins.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (title, n) in twins {
        let shown = row
            .items
            .iter()
            .find_map(|i| {
                i.title
                    .clone()
                    .filter(|t| &t.trim().to_lowercase() == title)
            })
            .unwrap_or_default();
        out.push(Line::styled(
            format!(
                "= {n} items have the same title “{}”: the same text, so sharing a SID is no tokenizer fault",
                fit_middle(&shown, 40)
            ),
            theme.warn(),
        ));
    }
    out.push(Line::styled(
        "› the selected item: </> picks another, i shows all its text and every tokenizer",
        theme.dim(),
    ));
    out
}

/// What the `*_zcr` sibling of the tokenizer shown did to the group: each item's last code
/// there (kept or moved) and the size of its group there; empty without a loaded sibling.
fn zcr_lines(
    screen: &Screen<'_>,
    data: &TokenizerData,
    row: &GroupRow,
    width: usize,
) -> Vec<Line<'static>> {
    let theme = screen.theme;
    let Some(t) = screen.tokenizers.shown() else {
        return Vec::new();
    };
    let Some(zcr_name) = item_view::zcr_of(t.name()) else {
        return Vec::new();
    };
    let Some(zcr) = screen.tokenizers.iter().find(|x| x.name() == zcr_name) else {
        return Vec::new();
    };
    let mut out = vec![Line::styled(
        format!("What {zcr_name} did to this group (z jumps here)"),
        theme.header(),
    )];
    let Some(zdata) = zcr.data.ready() else {
        out.push(Line::styled(
            format!("{zcr_name} is not loaded yet"),
            theme.dim(),
        ));
        return out;
    };
    let tokenizers = [
        Tokenized {
            name: t.name(),
            index: &data.index,
            collisions: &data.collisions,
        },
        Tokenized {
            name: zcr.name(),
            index: &zdata.index,
            collisions: &zdata.collisions,
        },
    ];
    let mut table = Table::new(&[
        ("id", Align::Left),
        ("last code", Align::Left),
        ("group there", Align::Left),
        ("title", Align::Left),
    ]);
    let (mut kept, mut moved) = (0, 0);
    for item in &row.items {
        let seen = item_view::across(&item.id, &tokenizers);
        let Some(there) = seen.variants.iter().find(|v| v.name == zcr_name) else {
            table.push(vec![
                item.id.clone(),
                "not in it".into(),
                String::new(),
                String::new(),
            ]);
            continue;
        };
        let change = report::item::last_code_text(&seen, there);
        if change.starts_with("kept") {
            kept += 1;
        } else if change.starts_with("moved") {
            moved += 1;
        }
        let group = if there.group_size == 1 {
            "alone".to_string()
        } else {
            format!("{} items", there.group_size)
        };
        table.push(vec![
            item.id.clone(),
            change,
            group,
            item.title.clone().unwrap_or_default(),
        ]);
    }
    let headers = table.headers.clone();
    match table::widths(&table, &headers, width) {
        Some(w) => out.extend(table::lines(
            &table,
            &headers,
            &w,
            width,
            theme.header(),
            |_| theme.text(),
        )),
        None => out.push(Line::styled(
            "(the pane is too narrow for the table)",
            theme.dim(),
        )),
    }
    out.push(Line::styled(
        format!("{kept} kept their last code, {moved} moved"),
        theme.dim(),
    ));
    out.push(Line::raw(""));
    out
}

/// How the group fared in the beams at K: generated, targets, SID- vs item-level credit.
fn credit_lines(screen: &Screen<'_>, row: &GroupRow) -> Vec<Line<'static>> {
    let theme = screen.theme;
    let Some(t) = screen.tokenizers.shown() else {
        return Vec::new();
    };
    let text = match &t.metrics {
        Slot::Ready(m) => {
            let generated = match m.generated(row.group) {
                1 => "1 user's".to_string(),
                n => format!("{} users'", thousands(n as usize)),
            };
            match m.credit(row.group, screen.metrics.k) {
                Some(c) => format!(
                    "in {generated} beams · target of {} · at K={}: SID-level credit ΣHit {:.2}, item-level ΣItemHit {:.2}, over-credit {:.2}",
                    counted(c.targets as usize, "user"),
                    screen.metrics.k,
                    c.sid,
                    c.item,
                    c.over()
                ),
                None => format!("in {generated} beams · no user's target is in this group"),
            }
        }
        Slot::Loading(p) => format!("beams: evaluating {}", progress_text(p.as_ref())),
        Slot::Missing(why) => format!("beams: {why}"),
        Slot::Failed(_) => "beams: could not be evaluated (see Metrics)".into(),
    };
    vec![Line::styled(text, theme.dim())]
}

/// The prefix group's reassignment: the `sidlens zcr --groups` rows for it (who keeps which
/// code under ZCR and greedy, ΔD) with the group's items marked; and the verdict (who moves,
/// totals, saving, caveats), which the pane pins.
fn reassign_lines(
    screen: &Screen<'_>,
    row: &GroupRow,
    width: usize,
) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
    let theme = screen.theme;
    let Some(t) = screen.tokenizers.shown() else {
        return (Vec::new(), Vec::new());
    };
    let re = match &t.reassign {
        Slot::Ready(re) => re,
        Slot::Loading(p) => {
            let text = format!("planning ZCR and greedy: {}", progress_text(p.as_ref()));
            return (Vec::new(), vec![Line::styled(text, theme.dim())]);
        }
        Slot::Missing(why) => return (Vec::new(), vec![Line::styled(why.clone(), theme.dim())]),
        Slot::Failed(e) => {
            return (
                Vec::new(),
                vec![
                    Line::styled("could not plan the reassignment:", theme.error()),
                    Line::raw(e.clone()),
                ],
            );
        }
    };
    let key = prefix_key(&row.codes);
    let reassign_row = match re.entry(key) {
        Some(PrefixEntry::Row(i)) => &re.rows[i],
        Some(PrefixEntry::Skipped(i)) => {
            let s = &re.skipped[i];
            let text = format!("left unchanged: {}", s.message);
            return (Vec::new(), vec![Line::styled(text, theme.warn())]);
        }
        None => {
            let text = "no collision in this prefix group";
            return (Vec::new(), vec![Line::styled(text, theme.dim())]);
        }
    };
    let library = reassign::groups_table(std::slice::from_ref(reassign_row));
    let members: Vec<&str> = row.items.iter().map(|i| i.id.as_str()).collect();
    let mut columns: Vec<(&str, Align)> = vec![("", Align::Left)];
    columns.extend(
        library.headers[2..]
            .iter()
            .map(String::as_str)
            .zip(library.align[2..].iter().copied()),
    );
    columns.push(("title", Align::Left));
    let mut table = Table::new(&columns);
    for (k, cells) in library.rows.iter().enumerate() {
        let item = reassign_row.items.get(k);
        let marker = match item {
            Some(i) if members.contains(&i.id.as_str()) => "▸",
            _ => "",
        };
        let mut r = vec![marker.to_string()];
        r.extend(cells[2..].iter().cloned());
        r.push(item.and_then(|i| i.title.clone()).unwrap_or_default());
        table.push(r);
    }
    let headers = table.headers.clone();
    let mut out = match table::widths(&table, &headers, width) {
        Some(w) => table::lines(&table, &headers, &w, width, theme.header(), |i| {
            if table.rows[i][0] == "▸" {
                theme.text().add_modifier(Modifier::BOLD)
            } else {
                theme.text()
            }
        }),
        None => vec![Line::styled(
            "(the pane is too narrow for the table)",
            theme.dim(),
        )],
    };
    out.push(Line::styled(
        "▸ items of the selected group; the others share its prefix",
        theme.dim(),
    ));
    let mut verdict = Vec::new();
    let summary = match (reassign_row.optimal_total, reassign_row.greedy_total) {
        (Some(opt), Some(gre)) => {
            let saving = gre - opt;
            let pct = if gre > 0.0 {
                format!(" ({:.1}%)", saving / gre * 100.0)
            } else {
                String::new()
            };
            Line::styled(
                format!(
                    "both move {} item{}: ZCR ΔD {} vs greedy ΔD {} — ZCR saves {}{pct}",
                    reassign_row.min_changes,
                    if reassign_row.min_changes == 1 {
                        ""
                    } else {
                        "s"
                    },
                    report::metric(opt),
                    report::metric(gre),
                    report::metric(saving)
                ),
                if saving > 0.0 {
                    theme.good()
                } else {
                    theme.text()
                },
            )
        }
        _ => Line::styled(
            format!(
                "no vectors loaded, so ΔD is unknown; what is known: at least {} of these {} items must change their last code. Pass --latents FILE (and --codebooks FILE) to compare ZCR with greedy.",
                reassign_row.min_changes, reassign_row.size
            ),
            theme.dim(),
        ),
    };
    verdict.push(summary);
    if re.plan.summary.codebook_estimated {
        verdict.push(Line::styled(
            "codebooks estimated from the latents (mean residual per code)",
            theme.dim(),
        ));
    }
    if let Some(agreement) = re.plan.latent_agreement
        && re.plan.warnings.is_empty()
    {
        verdict.push(Line::styled(
            format!(
                "the latents reproduce {:.0} % of the native last codes",
                100.0 * agreement
            ),
            theme.dim(),
        ));
    }
    for w in &re.plan.warnings {
        verdict.push(Line::styled(format!("warning: {w}"), theme.warn()));
    }
    (out, verdict)
}

/// Codes as `127 244 179 206`, the form `/` also searches.
pub fn codes_text(codes: &[sid::Code]) -> String {
    codes
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}
