//! Where things go for a terminal size. [`Layout::compute`] is pure and returns every rect it
//! placed, so rendering and mouse hit-testing ([`Layout::hit`]) read the same geometry.

use ratatui::layout::{Position, Rect};

/// The four panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    /// The collision-group list.
    Groups,
    /// The selected group's items and its prefix group's reassignment.
    Detail,
    /// Hit vs ItemHit per tokenizer.
    Metrics,
    /// The t-SNE scatter of item embeddings.
    Scatter,
}

impl Pane {
    /// All panes in Tab order.
    pub const ALL: [Pane; 4] = [Pane::Groups, Pane::Detail, Pane::Metrics, Pane::Scatter];

    /// The pane's title.
    pub fn title(self) -> &'static str {
        match self {
            Pane::Groups => "Groups",
            Pane::Detail => "Detail",
            Pane::Metrics => "Metrics",
            Pane::Scatter => "Scatter",
        }
    }

    fn index(self) -> usize {
        Pane::ALL.iter().position(|&p| p == self).unwrap_or(0)
    }

    /// The next pane in Tab order.
    pub fn next(self) -> Pane {
        Pane::ALL[(self.index() + 1) % Pane::ALL.len()]
    }

    /// The previous pane in Tab order.
    pub fn prev(self) -> Pane {
        Pane::ALL[(self.index() + Pane::ALL.len() - 1) % Pane::ALL.len()]
    }
}

/// How the panes share the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrangement {
    /// All four panes at once.
    Grid,
    /// Groups, Detail, and Metrics or Scatter (whichever was used last).
    Three,
    /// One pane at a time, chosen by a tab bar.
    Tabs,
    /// Too small to show anything useful.
    TooSmall,
}

/// Smallest terminal the TUI draws in.
pub const MIN_SIZE: (u16, u16) = (60, 15);

/// What the header line holds, which decides where the tokenizer tabs go.
#[derive(Debug, Clone, Copy)]
pub struct Header<'a> {
    /// The title at the left (` sidlens · Scientific`).
    pub title: &'a str,
    /// Tokenizer names, in tab order.
    pub tokenizers: &'a [&'a str],
    /// The tokenizer shown.
    pub selected: usize,
}

/// Where a screen cell lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    /// A tokenizer tab in the header.
    Tokenizer(usize),
    /// A pane's tab in the tab bar.
    PaneTab(Pane),
    /// Inside a pane; `row` counts from the first line inside its border.
    Pane {
        /// The pane.
        pane: Pane,
        /// Line inside the border (0 = first), `None` on the border itself.
        row: Option<u16>,
    },
}

/// The geometry of one frame, in one of three arrangements (scatter collapses first):
/// ```text
/// Grid (≥ 140x40)                      Three (≥ 100x28)         Tabs (≥ 60x15)
/// ┌ header: title, tokenizers, K ──┐   header                   header
/// │ Groups        │ Metrics        │   pane tabs                pane tabs
/// │               ├────────────────┤   Groups │ Detail          one pane: the focused one
/// ├───────────────┤ Scatter        │          │ Metrics/Scatter
/// │ Detail        │                │   status                   status
/// └ status, footer ────────────────┘   footer                   footer
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The whole terminal.
    pub area: Rect,
    /// How panes are arranged.
    pub arrangement: Arrangement,
    /// Title, tokenizer tabs, K.
    pub header: Rect,
    /// Hit areas of the tokenizer tabs, by tokenizer index (tabs that did not fit are absent).
    pub tokenizer_tabs: Vec<(usize, Rect)>,
    /// When names do not fit: only the shown tokenizer, between `‹` (previous) and `›` (next)
    /// areas, which are the first and last of `tokenizer_tabs`.
    pub tabs_compact: bool,
    /// The pane tab bar (empty in the grid).
    pub pane_bar: Rect,
    /// Hit areas of the pane tabs.
    pub pane_tabs: Vec<(Pane, Rect)>,
    /// Visible panes and their outer rects (border included).
    pub panes: Vec<(Pane, Rect)>,
    /// Progress, notices and prompts.
    pub status: Rect,
    /// Key hints.
    pub footer: Rect,
}

/// The widest the title at the left of the header gets before tabs.
const MAX_TITLE_WIDTH: u16 = 32;
/// Width kept free at the right of the header for "K=…".
const K_WIDTH: u16 = 8;
/// Tab names are not shortened below this; tabs switch to the compact form instead.
const MIN_TAB_NAME: usize = 8;

impl Layout {
    /// Places everything for a terminal of `area`, with `focus` focused, `companion` (Metrics
    /// or Scatter) sharing a slot in the three-pane arrangement, and these tokenizer names.
    pub fn compute(area: Rect, focus: Pane, companion: Pane, header: &Header<'_>) -> Layout {
        let empty = Rect::new(area.x, area.y, 0, 0);
        let mut layout = Layout {
            area,
            arrangement: Arrangement::TooSmall,
            header: empty,
            tokenizer_tabs: Vec::new(),
            tabs_compact: false,
            pane_bar: empty,
            pane_tabs: Vec::new(),
            panes: Vec::new(),
            status: empty,
            footer: empty,
        };
        if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
            return layout;
        }
        layout.arrangement = if area.width >= 140 && area.height >= 40 {
            Arrangement::Grid
        } else if area.width >= 100 && area.height >= 28 {
            Arrangement::Three
        } else {
            Arrangement::Tabs
        };
        let row = |y: u16, h: u16| Rect::new(area.x, y, area.width, h);
        layout.header = row(area.y, 1);
        (layout.tokenizer_tabs, layout.tabs_compact) = tokenizer_tabs(layout.header, header);
        layout.footer = row(area.bottom() - 1, 1);
        layout.status = row(area.bottom() - 2, 1);
        let mut top = area.y + 1;
        if layout.arrangement != Arrangement::Grid {
            layout.pane_bar = row(top, 1);
            layout.pane_tabs = pane_tabs(layout.pane_bar);
            top += 1;
        }
        let body = Rect::new(area.x, top, area.width, area.bottom() - 2 - top);
        layout.panes = match layout.arrangement {
            Arrangement::Grid => grid(body, header.tokenizers.len()),
            Arrangement::Three => {
                let (left, right) = split_columns(body, body.width / 2);
                let (up, down) = split_rows(right, right.height / 2);
                let shared = if focus == Pane::Scatter || companion == Pane::Scatter {
                    Pane::Scatter
                } else {
                    Pane::Metrics
                };
                vec![(Pane::Groups, left), (Pane::Detail, up), (shared, down)]
            }
            Arrangement::Tabs | Arrangement::TooSmall => vec![(focus, body)],
        };
        layout
    }

    /// The rect of a visible pane.
    pub fn pane(&self, pane: Pane) -> Option<Rect> {
        self.panes.iter().find(|(p, _)| *p == pane).map(|&(_, r)| r)
    }

    /// Whether a pane is on screen.
    pub fn shows(&self, pane: Pane) -> bool {
        self.pane(pane).is_some()
    }

    /// Lines inside a visible pane's border (0 when hidden).
    pub fn inner_height(&self, pane: Pane) -> u16 {
        self.pane(pane).map_or(0, |r| inner(r).height)
    }

    /// What is at a screen cell.
    pub fn hit(&self, column: u16, row: u16) -> Option<Hit> {
        let at = Position::new(column, row);
        if let Some(&(i, _)) = self.tokenizer_tabs.iter().find(|(_, r)| r.contains(at)) {
            return Some(Hit::Tokenizer(i));
        }
        if let Some(&(p, _)) = self.pane_tabs.iter().find(|(_, r)| r.contains(at)) {
            return Some(Hit::PaneTab(p));
        }
        let &(pane, rect) = self.panes.iter().find(|(_, r)| r.contains(at))?;
        let content = inner(rect);
        let row = content.contains(at).then(|| row - content.y);
        Some(Hit::Pane { pane, row })
    }

    /// The visible pane beside `from` on the left (`right == false`) or right: one aligned
    /// with its top, else the one overlapping it most vertically; in tabs, the previous or
    /// next tab.
    pub fn neighbour(&self, from: Pane, right: bool) -> Pane {
        if self.arrangement == Arrangement::Tabs || !self.shows(from) {
            return if right { from.next() } else { from.prev() };
        }
        let Some(src) = self.pane(from) else {
            return from;
        };
        self.panes
            .iter()
            .filter(|(_, r)| {
                if right {
                    r.x >= src.right()
                } else {
                    r.right() <= src.x
                }
            })
            .max_by_key(|(_, r)| {
                let overlap = r.bottom().min(src.bottom()) as i32 - r.y.max(src.y) as i32;
                (r.y == src.y, overlap, -(r.y as i32))
            })
            .map_or(from, |&(p, _)| p)
    }
}

/// The inside of a bordered pane.
pub fn inner(rect: Rect) -> Rect {
    Rect::new(
        rect.x.saturating_add(1),
        rect.y.saturating_add(1),
        rect.width.saturating_sub(2),
        rect.height.saturating_sub(2),
    )
}

fn split_columns(r: Rect, left: u16) -> (Rect, Rect) {
    (
        Rect::new(r.x, r.y, left, r.height),
        Rect::new(r.x + left, r.y, r.width - left, r.height),
    )
}

fn split_rows(r: Rect, top: u16) -> (Rect, Rect) {
    (
        Rect::new(r.x, r.y, r.width, top),
        Rect::new(r.x, r.y + top, r.width, r.height - top),
    )
}

/// Groups over Detail on the left; Metrics (as tall as its rows need) over Scatter on the right.
fn grid(body: Rect, n_tokenizers: usize) -> Vec<(Pane, Rect)> {
    let (left, right) = split_columns(body, body.width / 2);
    let (groups, detail) = split_rows(left, left.height / 2);
    let wanted = (n_tokenizers as u16).saturating_add(8).max(10);
    let (metrics, scatter) = split_rows(right, wanted.min(right.height / 2));
    vec![
        (Pane::Groups, groups),
        (Pane::Detail, detail),
        (Pane::Metrics, metrics),
        (Pane::Scatter, scatter),
    ]
}

/// Pane tabs " Groups " " Detail " … from the left of the bar.
fn pane_tabs(bar: Rect) -> Vec<(Pane, Rect)> {
    let mut x = bar.x;
    let mut tabs = Vec::new();
    for pane in Pane::ALL {
        let w = pane.title().len() as u16 + 2;
        if x + w > bar.right() {
            break;
        }
        tabs.push((pane, Rect::new(x, bar.y, w, 1)));
        x += w + 1;
    }
    tabs
}

/// Tokenizer tabs "1 name" between the title and K, names shortened until they fit; when
/// they would get shorter than [`MIN_TAB_NAME`], the compact form `‹ 3/10 name ›`.
fn tokenizer_tabs(line: Rect, header: &Header<'_>) -> (Vec<(usize, Rect)>, bool) {
    let (names, selected) = (header.tokenizers, header.selected);
    let title = (header.title.chars().count() as u16 + 2).min(MAX_TITLE_WIDTH);
    let start = line.x + title.min(line.width);
    let room = line.right().saturating_sub(K_WIDTH).saturating_sub(start);
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let tab_width = |len: usize, i: usize| {
        let digits = (i + 1).to_string().len();
        (digits + 1 + len.min(names[i].chars().count()) + 2) as u16
    };
    let fits = |len: usize| {
        let total: u16 = (0..names.len()).map(|i| tab_width(len, i)).sum();
        total <= room
    };
    let distinct = |len: usize| {
        let mut shown: Vec<String> = names.iter().map(|n| shortened(n, len)).collect();
        shown.sort();
        shown.dedup();
        shown.len() == names.len()
    };
    let shortest = MIN_TAB_NAME.min(longest).max(1);
    let chosen = (shortest..=longest.max(shortest))
        .rev()
        .find(|&l| fits(l))
        .filter(|&l| distinct(l));
    let Some(len) = chosen else {
        return (compact_tabs(line.y, start, room, names, selected), true);
    };
    let mut x = start;
    let mut tabs = Vec::new();
    for i in 0..names.len() {
        let w = tab_width(len, i);
        tabs.push((i, Rect::new(x, line.y, w, 1)));
        x += w;
    }
    (tabs, false)
}

/// A name as a tab of `len` characters shows it: cut with `…` when longer.
fn shortened(name: &str, len: usize) -> String {
    if name.chars().count() <= len {
        name.to_string()
    } else {
        name.chars()
            .take(len.saturating_sub(1))
            .chain(['…'])
            .collect()
    }
}

/// `‹` (previous), the shown tokenizer's label, `›` (next), as hit areas.
fn compact_tabs(
    y: u16,
    start: u16,
    room: u16,
    names: &[&str],
    selected: usize,
) -> Vec<(usize, Rect)> {
    let n = names.len();
    if n == 0 || room < 8 {
        return Vec::new();
    }
    let selected = selected.min(n - 1);
    let label = format!("{}/{} {}", selected + 1, n, names[selected]);
    let label_w = (label.chars().count() as u16 + 2).min(room - 4);
    vec![
        ((selected + n - 1) % n, Rect::new(start, y, 2, 1)),
        (selected, Rect::new(start + 2, y, label_w, 1)),
        ((selected + 1) % n, Rect::new(start + 2 + label_w, y, 2, 1)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header<'a>(names: &'a [&'a str], selected: usize) -> Header<'a> {
        Header {
            title: " sidlens · Scientific",
            tokenizers: names,
            selected,
        }
    }

    fn at(w: u16, h: u16) -> Layout {
        Layout::compute(
            Rect::new(0, 0, w, h),
            Pane::Groups,
            Pane::Metrics,
            &header(&["rkmeans_native", "rqvae_native"], 0),
        )
    }

    fn no_overlap(l: &Layout) {
        let mut rects: Vec<Rect> = l.panes.iter().map(|&(_, r)| r).collect();
        rects.extend([l.header, l.status, l.footer]);
        if l.pane_bar.height > 0 {
            rects.push(l.pane_bar);
        }
        for (i, a) in rects.iter().enumerate() {
            assert!(l.area.contains(a.as_position()) || a.area() == 0);
            assert!(a.right() <= l.area.right() && a.bottom() <= l.area.bottom());
            for b in &rects[i + 1..] {
                assert!(!a.intersects(*b), "{a:?} overlaps {b:?}");
            }
        }
    }

    #[test]
    fn arrangements_by_size() {
        assert_eq!(at(59, 30).arrangement, Arrangement::TooSmall);
        assert_eq!(at(80, 14).arrangement, Arrangement::TooSmall);
        let small = at(80, 24);
        assert_eq!(small.arrangement, Arrangement::Tabs);
        assert_eq!(small.panes.len(), 1);
        assert_eq!(at(120, 30).arrangement, Arrangement::Three);
        let big = at(160, 48);
        assert_eq!(big.arrangement, Arrangement::Grid);
        assert!(Pane::ALL.iter().all(|&p| big.shows(p)));
        for (w, h) in [
            (60, 15),
            (80, 24),
            (100, 28),
            (139, 60),
            (160, 48),
            (300, 100),
        ] {
            no_overlap(&at(w, h));
        }
    }

    #[test]
    fn three_panes_swap_metrics_for_scatter() {
        let r = Rect::new(0, 0, 120, 30);
        let l = Layout::compute(r, Pane::Scatter, Pane::Metrics, &header(&["a"], 0));
        assert!(l.shows(Pane::Scatter) && !l.shows(Pane::Metrics));
        let l = Layout::compute(r, Pane::Groups, Pane::Scatter, &header(&["a"], 0));
        assert!(l.shows(Pane::Scatter));
    }

    #[test]
    fn hit_testing_follows_the_layout() {
        let l = at(160, 48);
        let groups = l.pane(Pane::Groups).unwrap();
        assert_eq!(
            l.hit(groups.x + 3, groups.y + 2),
            Some(Hit::Pane {
                pane: Pane::Groups,
                row: Some(1)
            })
        );
        assert_eq!(
            l.hit(groups.x, groups.y),
            Some(Hit::Pane {
                pane: Pane::Groups,
                row: None
            })
        );
        let (i, tab) = l.tokenizer_tabs[1];
        assert_eq!(l.hit(tab.x, tab.y), Some(Hit::Tokenizer(i)));
        let small = at(80, 24);
        let (p, tab) = small.pane_tabs[2];
        assert_eq!(small.hit(tab.x + 1, tab.y), Some(Hit::PaneTab(p)));
        assert_eq!(small.hit(0, 23), None);
    }

    #[test]
    fn neighbours() {
        let g = at(160, 48);
        assert_eq!(g.neighbour(Pane::Groups, true), Pane::Metrics);
        assert_eq!(g.neighbour(Pane::Detail, true), Pane::Scatter);
        assert_eq!(g.neighbour(Pane::Scatter, false), Pane::Detail);
        assert_eq!(g.neighbour(Pane::Groups, false), Pane::Groups);
        let t = at(80, 24);
        assert_eq!(t.neighbour(Pane::Groups, true), Pane::Detail);
        assert_eq!(t.neighbour(Pane::Groups, false), Pane::Scatter);
    }

    #[test]
    fn tokenizer_tabs_shorten_names_then_go_compact() {
        let names = ["rkmeans_native", "rqvae_native", "letter_native"];
        let r = Rect::new(0, 0, 100, 30);
        let l = Layout::compute(r, Pane::Groups, Pane::Metrics, &header(&names, 0));
        assert!(!l.tabs_compact);
        assert_eq!(l.tokenizer_tabs.len(), 3);
        for w in l.tokenizer_tabs.windows(2) {
            assert!(w[0].1.right() <= w[1].1.x);
        }
        assert!(l.tokenizer_tabs.last().unwrap().1.right() <= 100 - K_WIDTH);
        let many = ["rkmeans_native_long_name"; 10];
        let l = Layout::compute(
            Rect::new(0, 0, 80, 24),
            Pane::Groups,
            Pane::Metrics,
            &header(&many, 0),
        );
        assert!(l.tabs_compact);
        let ids: Vec<usize> = l.tokenizer_tabs.iter().map(|&(i, _)| i).collect();
        assert_eq!(ids, vec![9, 0, 1], "previous, shown, next");
        assert!(l.tokenizer_tabs[2].1.right() <= 80 - K_WIDTH);
        let (_, prev) = l.tokenizer_tabs[0];
        assert_eq!(l.hit(prev.x, prev.y), Some(Hit::Tokenizer(9)));
        let alike = [
            "rkmeans_v32_native",
            "rkmeans_v64_native",
            "rkmeans_v64_zcr",
        ];
        let l = Layout::compute(
            Rect::new(0, 0, 80, 24),
            Pane::Groups,
            Pane::Metrics,
            &header(&alike, 1),
        );
        assert!(l.tabs_compact, "names cut to the same text are no tabs");
        assert_eq!(shortened("rkmeans_v64_zcr", 8), "rkmeans…");
    }
}
