//! The TUI's state in plain structs, and [`App::update`]: the only place it changes. Updates do
//! no I/O; work that needs it (loading, evaluation, ZCR, t-SNE) is asked for through the
//! returned [`Command`]s, which the event loop hands to `jobs`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::compare::pairwise::TestSettings;
use crate::load::ItemTexts;
use crate::metrics::{Compat, Decode};
use crate::progress::NoProgress;
use crate::projection::{ItemRows, ProjectionParams};
use crate::report::groups::GroupRow;
use crate::usecase::{self, CompareReport, EvaluatedTokenizer};
use ratatui::layout::Rect;

use super::action::Action;
use super::data::{Evaluated, Projected, Reassigned, TokenizerData, prefix_key};
use super::jobs::{JobEvent, JobMsg, Payload, Request, Topic};
use super::keys::InputMode;
use super::layout::{Header, Hit, Layout, Pane};
use super::search::Query;
use super::sources::Sources;
use super::spaces::{Space, Spreads, TIGHTEST_MIN_SIZE};
use super::theme::Theme;
use super::ui::{codebook, detail, help, item, metrics, scatter};
use crate::load::TokenizerFiles;

/// K values `+` and `-` step through.
pub const K_STEPS: [usize; 4] = [1, 5, 10, 20];
/// K when nothing says otherwise.
pub const DEFAULT_K: usize = 10;
/// The largest K accepted while no beams are loaded.
const K_WITHOUT_BEAMS: usize = 20;
/// Lines the mouse wheel moves.
const WHEEL_LINES: usize = 3;
/// Largest groups drawn in their own colour in the scatter (and kept in its sample).
pub const HIGHLIGHTED_GROUPS: usize = 5;

/// Something the event loop must do for the app.
#[derive(Debug)]
pub enum Command {
    /// Start a background job answering with this generation.
    Start(Request, u64),
}

/// A piece of data that arrives in the background.
#[derive(Debug, Clone)]
pub enum Slot<T> {
    /// Not given; the text says how to provide it.
    Missing(String),
    /// Being computed; the latest progress.
    Loading(Option<JobProgress>),
    /// Available.
    Ready(T),
    /// Could not be computed; the message names the file and the place.
    Failed(String),
}

impl<T> Slot<T> {
    /// The value, when ready.
    pub fn ready(&self) -> Option<&T> {
        match self {
            Slot::Ready(v) => Some(v),
            _ => None,
        }
    }

    /// Whether it is still being computed.
    pub fn is_loading(&self) -> bool {
        matches!(self, Slot::Loading(_))
    }
}

/// The latest progress of a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobProgress {
    /// What it is doing.
    pub stage: String,
    /// Units done.
    pub done: u64,
    /// Units in the stage (0 when unknown).
    pub total: u64,
}

/// Orders of the group list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// Largest group first (the library's order).
    Size,
    /// Most SID-level credit beyond item-level credit at K first (needs beams).
    Inflation,
    /// Largest ZCR saving over greedy in the group's prefix group first (needs vectors).
    Saving,
}

impl SortKey {
    /// The key's name in the pane title.
    pub fn label(self) -> &'static str {
        match self {
            SortKey::Size => "size",
            SortKey::Inflation => "inflation",
            SortKey::Saving => "ZCR saving",
        }
    }

    fn next(self) -> SortKey {
        match self {
            SortKey::Size => SortKey::Inflation,
            SortKey::Inflation => SortKey::Saving,
            SortKey::Saving => SortKey::Size,
        }
    }
}

/// What an open prompt is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// `/`: a search query.
    Search,
    /// `K`: a cutoff.
    K,
    /// `m`: a minimum group size.
    MinSize,
}

/// An open prompt and what has been typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// What it is for.
    pub kind: PromptKind,
    /// The text so far.
    pub text: String,
}

/// An active search over the group list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    /// What was typed.
    pub text: String,
    /// The parsed query.
    pub query: Query,
    /// Positions in the list (not row ids) of matching groups, in list order.
    pub matches: Vec<usize>,
}

/// How important a notice is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// For information.
    Info,
    /// Something did not work as asked.
    Warn,
}

/// A one-line message in the status bar until the next key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The message.
    pub text: String,
    /// How important it is.
    pub level: Level,
}

/// The group list of one tokenizer: order after sort and filter, cursor and scroll.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListView {
    /// Row ids (into `TokenizerData::rows`) in display order.
    pub order: Vec<usize>,
    /// Position of the selected row in `order`.
    pub cursor: usize,
    /// Position of the first visible row.
    pub offset: usize,
}

/// One tokenizer as the app tracks it.
#[derive(Debug)]
pub struct Tokenizer {
    /// Where it comes from.
    pub source: TokenizerFiles,
    /// Its index, groups and rows.
    pub data: Slot<Arc<TokenizerData>>,
    /// Its evaluated beams.
    pub metrics: Slot<Arc<Evaluated>>,
    /// Its reassignment plan.
    pub reassign: Slot<Arc<Reassigned>>,
    /// Its group list.
    pub view: ListView,
    /// Lines the detail pane is scrolled down (screen lines, after wrapping).
    pub detail_scroll: usize,
    /// The selected item of the selected group (position in its id-ordered items): what
    /// `i` opens and what `]` follows into the next tokenizer.
    pub member: usize,
}

/// The scatter's points seen through the tokenizer shown: each point's collision group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScatterView {
    /// The tokenizer these groups belong to.
    pub tokenizer: usize,
    /// Per projected point, its collision group (`None`: the item's SID is its own).
    pub groups: Vec<Option<u32>>,
    /// Per projected point, the item's position in the tokenizer's index.
    pub positions: Vec<Option<usize>>,
}

/// What colours the scatter's points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColourBy {
    /// The largest collision groups.
    Collision,
    /// The most frequent first-level codes.
    FirstCode,
    /// The largest prefix groups (first L−1 codes).
    Prefix,
}

impl ColourBy {
    /// The mode's name in the legend.
    pub fn label(self) -> &'static str {
        match self {
            ColourBy::Collision => "collision group",
            ColourBy::FirstCode => "first-level code",
            ColourBy::Prefix => "prefix group",
        }
    }

    fn next(self) -> ColourBy {
        match self {
            ColourBy::Collision => ColourBy::FirstCode,
            ColourBy::FirstCode => ColourBy::Prefix,
            ColourBy::Prefix => ColourBy::Collision,
        }
    }
}

/// The scatter's camera, picked point and the picked item's nearest neighbours.
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterCamera {
    /// 1 shows every point; each zoom step doubles it.
    pub zoom: f64,
    /// The centre of the view in projection coordinates (`None`: the centre of all points).
    pub centre: Option<[f64; 2]>,
    /// What colours the points.
    pub colour_by: ColourBy,
    /// An item picked with the mouse (its index position, so it is the same item in both
    /// spaces); without one, the selected item of the selected group is the picked item.
    pub pick: Option<usize>,
    /// The picked item's nearest neighbours, once computed.
    pub neighbours: Option<Neighbours>,
}

/// The nearest neighbours of one item in the space the scatter's camera looks at.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbours {
    /// The tokenizer whose index positions these are.
    pub tokenizer: usize,
    /// The item's position in that index.
    pub position: usize,
    /// The space searched.
    pub space: Space,
    /// Nearest first: (index position, Euclidean distance).
    pub near: Vec<(usize, f64)>,
}

/// Neighbours listed for the picked point.
pub const NEIGHBOURS: usize = 5;
/// The deepest zoom.
const MAX_ZOOM: f64 = 256.0;

impl Tokenizer {
    /// The tokenizer's name.
    pub fn name(&self) -> &str {
        &self.source.name
    }
}

/// The whole state of the TUI.
#[derive(Debug)]
pub struct App {
    /// What the header calls the data.
    pub title: String,
    /// Colours.
    pub theme: Theme,
    /// Every tokenizer, in key order.
    pub tokenizers: Vec<Tokenizer>,
    /// The tokenizer shown.
    pub selected: usize,
    /// Item metadata shared by all tokenizers.
    pub items: Slot<Arc<ItemTexts>>,
    /// The focused pane.
    pub focus: Pane,
    /// Metrics or Scatter, whichever shares a slot in the three-pane layout.
    pub companion: Pane,
    /// How keys are read now.
    pub mode: InputMode,
    /// The open prompt, if any.
    pub prompt: Option<Prompt>,
    /// Lines the help overlay is scrolled down.
    pub help_scroll: usize,
    /// First line of the codebook view on screen.
    pub codebook_scroll: usize,
    /// The item the item view shows.
    pub item: Option<String>,
    /// Lines the item view is scrolled down.
    pub item_scroll: usize,
    /// The metrics table's order: a column of the library's comparison table and whether
    /// largest first; `None` keeps tokenizer order.
    pub metrics_sort: Option<(usize, bool)>,
    /// The group order.
    pub sort: SortKey,
    /// Smallest group size listed.
    pub min_size: usize,
    /// The active search.
    pub search: Option<Search>,
    /// The metrics cutoff.
    pub k: usize,
    /// The terminal area.
    pub area: Rect,
    /// The status-bar message.
    pub notice: Option<Notice>,
    /// Set when the user asked to quit.
    pub should_quit: bool,
    /// Semantics of the metrics.
    pub compat: Compat,
    /// Every loaded tokenizer ranked by Hit@K and ItemHit@K at the current K, seeds as
    /// mean ± std, without tests (computed at once, so the table never waits for them).
    pub comparison: Option<CompareReport>,
    /// The same comparison with the paired tests `sidlens compare` runs (a background job).
    pub tested: Slot<Arc<CompareReport>>,
    /// Set when the comparison changed and its tests should start after this update.
    tests_due: bool,
    /// Lines the metrics pane's flip list is scrolled down (screen lines, after wrapping).
    pub metrics_scroll: usize,
    /// The embeddings file the scatter projects.
    pub embeddings: Option<PathBuf>,
    /// The scatter's projection.
    pub projection: Slot<Arc<Projected>>,
    /// The projection's points grouped by the tokenizer shown.
    pub scatter: Option<ScatterView>,
    /// The interactions the collaborative space is built from.
    pub interactions: Option<PathBuf>,
    /// The collaborative space and its projection (same items as `projection`).
    pub collaborative: Slot<Arc<Projected>>,
    /// The collaborative projection's points grouped by the tokenizer shown.
    pub cf_scatter: Option<ScatterView>,
    /// Which space the scatter shows.
    pub space: Space,
    /// Whether the scatter highlights the tightest groups instead of the largest.
    pub tightest: bool,
    /// Which of the highlighted tightest groups the scatter points at (↑/↓ there step
    /// through them, Enter opens it).
    pub tight_at: usize,
    /// How far apart each group's items are in both spaces (tokenizer shown).
    pub spreads: Option<Arc<Spreads>>,
    /// How the scatter is looked at.
    pub camera: ScatterCamera,
    generations: HashMap<Topic, u64>,
}

impl App {
    /// The app for `sources` before anything is loaded, and the commands that load it.
    pub fn new(sources: &Sources, theme: Theme, area: Rect) -> (App, Vec<Command>) {
        let tokenizers = sources
            .tokenizers
            .iter()
            .map(|source| Tokenizer {
                source: source.clone(),
                data: Slot::Loading(None),
                metrics: Slot::Missing(match source.beams_file() {
                    Some(_) => "waiting for the index".into(),
                    None => format!("no beams: pass --beams {}=FILE", source.name),
                }),
                reassign: Slot::Missing("waiting for the index".into()),
                view: ListView::default(),
                detail_scroll: 0,
                member: 0,
            })
            .collect();
        let projection = match &sources.embeddings {
            Some(_) => Slot::Missing("waiting for the index".into()),
            None => Slot::Missing(
                "no embeddings: pass --embeddings FILE.npy (N×d, row i = item id i), or open a dataset folder with DS.emb-NAME.npy"
                    .into(),
            ),
        };
        let collaborative = match (&sources.interactions, &sources.embeddings) {
            (Some(_), _) => Slot::Missing("waiting for the index".into()),
            (None, _) => Slot::Missing(
                "no interactions: pass --interactions FILE (or open a dataset folder with DS.inter.json) for the collaborative space"
                    .into(),
            ),
        };
        let watching = if sources.watch_beams {
            sources.beams_files()
        } else {
            0
        };
        let items = if sources.items.is_some() {
            Slot::Loading(None)
        } else {
            Slot::Missing("no item metadata: pass --items FILE for titles".into())
        };
        let app = App {
            title: sources.title.clone(),
            theme,
            tokenizers,
            selected: 0,
            items,
            focus: Pane::Groups,
            companion: Pane::Metrics,
            mode: InputMode::Normal,
            prompt: None,
            help_scroll: 0,
            codebook_scroll: 0,
            item: None,
            item_scroll: 0,
            metrics_sort: None,
            sort: SortKey::Size,
            min_size: 2,
            search: None,
            k: DEFAULT_K,
            area,
            notice: (watching > 0).then(|| Notice {
                text: format!(
                    "watching {watching} beams file{} for changes (--no-watch turns this off)",
                    if watching == 1 { "" } else { "s" }
                ),
                level: Level::Info,
            }),
            should_quit: false,
            compat: sources.compat,
            comparison: None,
            tested: Slot::Missing("paired tests need two tokenizers with beams".into()),
            tests_due: false,
            metrics_scroll: 0,
            embeddings: sources.embeddings.clone(),
            projection,
            scatter: None,
            interactions: sources.interactions.clone(),
            collaborative,
            cf_scatter: None,
            space: Space::Textual,
            tightest: false,
            tight_at: 0,
            spreads: None,
            camera: ScatterCamera {
                zoom: 1.0,
                centre: None,
                colour_by: ColourBy::Collision,
                pick: None,
                neighbours: None,
            },
            generations: HashMap::new(),
        };
        (app, vec![Command::Start(Request::Load(sources.clone()), 0)])
    }

    /// The layout for the current terminal size.
    pub fn layout(&self) -> Layout {
        self.layout_for(self.area)
    }

    /// The layout for a given area (rendering passes the frame's).
    pub fn layout_for(&self, area: Rect) -> Layout {
        let names: Vec<&str> = self.tokenizers.iter().map(Tokenizer::name).collect();
        let title = self.header_title();
        let header = Header {
            title: &title,
            tokenizers: &names,
            selected: self.selected,
        };
        Layout::compute(area, self.focus, self.companion, &header)
    }

    /// The header's title, ` sidlens · <data>`.
    pub fn header_title(&self) -> String {
        format!(" sidlens · {}", self.title)
    }

    /// The tokenizer shown, if there is any.
    pub fn tokenizer(&self) -> Option<&Tokenizer> {
        self.tokenizers.get(self.selected)
    }

    /// The loaded data of the tokenizer shown.
    pub fn data(&self) -> Option<&Arc<TokenizerData>> {
        self.tokenizer().and_then(|t| t.data.ready())
    }

    /// The selected group's row, when the tokenizer is loaded and has collisions.
    pub fn selected_row(&self) -> Option<&GroupRow> {
        let t = self.tokenizer()?;
        let row = *t.view.order.get(t.view.cursor)?;
        t.data.ready()?.rows.get(row)
    }

    /// The largest K the loaded beams allow: the longest beam list.
    pub fn max_k(&self) -> usize {
        self.tokenizers
            .iter()
            .filter_map(|t| t.metrics.ready().map(|m| m.beam_width()))
            .max()
            .filter(|&w| w > 0)
            .unwrap_or(K_WITHOUT_BEAMS)
    }

    /// Whether any background job is still running.
    pub fn busy(&self) -> bool {
        self.items.is_loading()
            || self.projection.is_loading()
            || self.collaborative.is_loading()
            || self.tested.is_loading()
            || self
                .tokenizers
                .iter()
                .any(|t| t.data.is_loading() || t.metrics.is_loading() || t.reassign.is_loading())
    }

    /// Lines of group rows the group pane shows (its inside minus the header line).
    pub fn list_height(&self) -> usize {
        let layout = self.layout();
        let pane = if layout.shows(Pane::Groups) {
            Pane::Groups
        } else {
            layout.panes.first().map_or(Pane::Groups, |&(p, _)| p)
        };
        (layout.inner_height(pane) as usize)
            .saturating_sub(1)
            .max(1)
    }

    /// The id of the selected item of the selected group.
    pub fn member_id(&self) -> Option<&str> {
        let t = self.tokenizer()?;
        let row = self.selected_row()?;
        row.items
            .get(t.member.min(row.items.len().saturating_sub(1)))
            .map(|i| i.id.as_str())
    }

    /// Tokenizers in the order the metrics table lists them (its sort, else key order).
    pub fn metrics_order(&self) -> Vec<usize> {
        let all: Vec<usize> = (0..self.tokenizers.len()).collect();
        let (Some((column, descending)), Some(r)) = (self.metrics_sort, self.report()) else {
            return all;
        };
        let rows = &r.comparisons[0].rows;
        let mut order: Vec<usize> = crate::report::compare::report_order_by(r, column, descending)
            .into_iter()
            .filter_map(|i| {
                self.tokenizers
                    .iter()
                    .position(|t| t.name() == rows[i].name)
            })
            .collect();
        let rest: Vec<usize> = all.into_iter().filter(|i| !order.contains(i)).collect();
        order.extend(rest);
        order
    }

    /// The comparison the metrics pane shows: with its tests once they are done.
    pub fn report(&self) -> Option<&CompareReport> {
        match &self.tested {
            Slot::Ready(r) => Some(r),
            _ => self.comparison.as_ref(),
        }
    }

    /// Carries out a user action.
    pub fn update(&mut self, action: Action) -> Vec<Command> {
        let mut commands = self.act(action);
        commands.extend(self.start_tests());
        commands
    }

    fn act(&mut self, action: Action) -> Vec<Command> {
        if !matches!(action, Action::Resize { .. }) {
            self.notice = None;
        }
        match action {
            Action::Quit => self.should_quit = true,
            Action::Resize { width, height } => {
                self.area = Rect::new(0, 0, width, height);
                self.scroll_into_view();
            }
            Action::ToggleHelp => {
                self.mode = if self.mode == InputMode::Help {
                    InputMode::Normal
                } else {
                    self.help_scroll = 0;
                    InputMode::Help
                };
            }
            Action::ToggleCodebook => {
                self.mode = if self.mode == InputMode::Codebook {
                    InputMode::Normal
                } else {
                    self.codebook_scroll = 0;
                    InputMode::Codebook
                };
            }
            Action::OpenItem => self.open_item(),
            Action::CloseItem => self.mode = InputMode::Normal,
            Action::PrevMember => self.step_member(-1),
            Action::NextMember => self.step_member(1),
            Action::JumpToZcr => self.jump_to_zcr(),
            Action::ZoomIn => self.zoom(2.0, None),
            Action::ZoomOut => self.zoom(0.5, None),
            Action::Pan { dx, dy } => self.pan(f64::from(dx), f64::from(dy)),
            Action::ResetView => {
                self.camera.zoom = 1.0;
                self.camera.centre = None;
            }
            Action::CycleColour => {
                self.camera.colour_by = self.camera.colour_by.next();
                let text = format!("scatter coloured by {}", self.camera.colour_by.label());
                self.say(Level::Info, text);
            }
            Action::CycleSpace => self.cycle_space(),
            Action::ToggleTightest => self.toggle_tightest(),
            Action::SortMetrics => self.sort_metrics(false),
            Action::ReverseMetrics => self.sort_metrics(true),
            Action::Up => self.step(-1),
            Action::Down => self.step(1),
            Action::PageUp => self.step(-(self.page() as isize)),
            Action::PageDown => self.step(self.page() as isize),
            Action::Top => self.step(isize::MIN / 2),
            Action::Bottom => self.step(isize::MAX / 2),
            Action::Left => self.set_focus(self.layout().neighbour(self.focus, false)),
            Action::Right => self.set_focus(self.layout().neighbour(self.focus, true)),
            Action::NextPane => self.set_focus(self.focus.next()),
            Action::PrevPane => self.set_focus(self.focus.prev()),
            Action::SelectTokenizer(i) => self.select_tokenizer(i),
            Action::PrevTokenizer => {
                let n = self.tokenizers.len().max(1);
                self.select_tokenizer((self.selected + n - 1) % n);
            }
            Action::NextTokenizer => {
                let n = self.tokenizers.len().max(1);
                self.select_tokenizer((self.selected + 1) % n);
            }
            Action::Drill => self.drill(),
            Action::Back => self.back(),
            Action::StartSearch => self.open_prompt(PromptKind::Search),
            Action::PromptK => self.open_prompt(PromptKind::K),
            Action::PromptMinSize => self.open_prompt(PromptKind::MinSize),
            Action::SearchNext => self.jump_to_match(true),
            Action::SearchPrev => self.jump_to_match(false),
            Action::CycleSort => self.cycle_sort(),
            Action::Reload => return self.reevaluate(self.selected, "reload asked"),
            Action::KUp => self.step_k(true),
            Action::KDown => self.step_k(false),
            Action::Input(c) => self.type_char(c),
            Action::InputBackspace => {
                if let Some(p) = &mut self.prompt {
                    p.text.pop();
                }
                self.after_typing();
            }
            Action::InputSubmit => self.submit_prompt(),
            Action::InputCancel => self.cancel_prompt(),
            Action::Click { column, row } => self.click(column, row),
            Action::ScrollUp { column, row } => self.wheel(column, row, -1),
            Action::ScrollDown { column, row } => self.wheel(column, row, 1),
        }
        self.refresh_neighbours();
        Vec::new()
    }

    /// The picked point of `space`'s scatter (an index into its points): the item clicked,
    /// else the selected item.
    pub fn picked_point(&self, space: Space) -> Option<usize> {
        let position = self.picked_position()?;
        let view = self.scatter_of(space)?;
        view.positions.iter().position(|&p| p == Some(position))
    }

    /// The index position of the picked item (clicked, else the selected item), even when the
    /// sample left it out of the scatter.
    pub fn picked_position(&self) -> Option<usize> {
        if let Some(p) = self.camera.pick {
            return Some(p);
        }
        let id = self.member_id()?;
        self.data()?.index.ids().position(id)
    }

    /// Recomputes the picked item's nearest neighbours when the scatter shows and the pick
    /// changed (exact search over every item: milliseconds for tens of thousands), in the
    /// space the camera looks at.
    fn refresh_neighbours(&mut self) {
        if !self.layout().shows(Pane::Scatter) {
            return;
        }
        let Some(position) = self.picked_position() else {
            self.camera.neighbours = None;
            return;
        };
        let (shown, space) = (self.selected, self.camera_space());
        if self
            .camera
            .neighbours
            .as_ref()
            .is_some_and(|n| (n.tokenizer, n.position, n.space) == (shown, position, space))
        {
            return;
        }
        let (Some(data), Some(projected)) = (self.data(), self.projection_of(space)) else {
            return;
        };
        let near = crate::projection::neighbours::nearest(
            &data.index,
            &projected.embeddings,
            position,
            NEIGHBOURS,
        );
        self.camera.neighbours = Some(Neighbours {
            tokenizer: shown,
            position,
            space,
            near,
        });
    }

    /// Multiplies the zoom by `factor` around `at` (projection coordinates), else around the
    /// picked point, else the view's centre.
    fn zoom(&mut self, factor: f64, at: Option<[f64; 2]>) {
        let zoom = (self.camera.zoom * factor).clamp(1.0, MAX_ZOOM);
        let space = self.camera_space();
        let picked = self
            .picked_point(space)
            .and_then(|i| self.projection_of(space)?.projection.points.get(i).copied());
        if let Some(c) = at.or(if factor > 1.0 { picked } else { None }) {
            self.camera.centre = Some(c);
        }
        self.camera.zoom = zoom;
        if zoom == 1.0 {
            self.camera.centre = None;
        }
    }

    /// Moves the view by a quarter of its extent.
    fn pan(&mut self, dx: f64, dy: f64) {
        let Some(projected) = self.projection_of(self.camera_space()) else {
            return;
        };
        let (x, y) = scatter::view_bounds(self, self.camera_space(), projected);
        let centre = [
            (x[0] + x[1]) / 2.0 + dx * (x[1] - x[0]) / 4.0,
            (y[0] + y[1]) / 2.0 + dy * (y[1] - y[0]) / 4.0,
        ];
        self.camera.centre = Some(centre);
    }

    /// A click on the scatter's plot: picks the nearest point and, when it is in a listed
    /// collision group, selects that group and item.
    fn pick_at(&mut self, column: u16, row: u16) {
        let Some((space, point)) = scatter::point_at(self, column, row) else {
            return;
        };
        let Some(position) = self
            .scatter_of(space)
            .and_then(|v| v.positions.get(point).copied().flatten())
        else {
            return;
        };
        self.camera.pick = Some(position);
        let Some(data) = self.data().cloned() else {
            return;
        };
        let id = data.index.id(position).to_string();
        let group = data.collisions.group_of(position);
        let listed = data.row_of(group).and_then(|r| {
            let t = &self.tokenizers[self.selected];
            t.view.order.iter().position(|&x| x == r).map(|p| (r, p))
        });
        match listed {
            Some((r, p)) => {
                self.set_cursor(p);
                let member = data.rows[r].items.iter().position(|i| i.id == id);
                self.tokenizers[self.selected].member = member.unwrap_or(0);
                self.camera.pick = None;
                self.say(Level::Info, format!("picked item {id} (group #{})", r + 1));
            }
            None => self.say(
                Level::Info,
                format!(
                    "picked item {id}: SID {} {}",
                    data.index.sid_string(position),
                    if data.collisions.size(group) < 2 {
                        "to itself"
                    } else {
                        "(its group is below the minimum size)"
                    }
                ),
            ),
        }
    }

    /// Takes in a message from a background job; messages of superseded requests are dropped.
    pub fn on_job(&mut self, msg: JobMsg) -> Vec<Command> {
        if self.generations.get(&msg.target).copied().unwrap_or(0) != msg.generation {
            return Vec::new();
        }
        let target = msg.target;
        match msg.event {
            JobEvent::Progress { stage, done, total } => {
                let progress = JobProgress { stage, done, total };
                match target {
                    Topic::Items => set_progress(&mut self.items, progress),
                    Topic::Projection => set_progress(&mut self.projection, progress),
                    Topic::Collaborative => set_progress(&mut self.collaborative, progress),
                    Topic::Tests => set_progress(&mut self.tested, progress),
                    Topic::Index(i) | Topic::Metrics(i) | Topic::Reassign(i) => {
                        if let Some(t) = self.tokenizers.get_mut(i) {
                            match target {
                                Topic::Index(_) => set_progress(&mut t.data, progress),
                                Topic::Metrics(_) => set_progress(&mut t.metrics, progress),
                                _ => set_progress(&mut t.reassign, progress),
                            }
                        }
                    }
                }
                Vec::new()
            }
            JobEvent::Done(payload) => {
                let mut commands = self.on_done(target, payload);
                commands.extend(self.start_tests());
                commands
            }
            JobEvent::Failed(e) => {
                let mut commands = self.on_failed(target, e);
                commands.extend(self.start_tests());
                commands
            }
        }
    }

    fn on_done(&mut self, target: Topic, payload: Payload) -> Vec<Command> {
        let mut commands = Vec::new();
        match (target, payload) {
            (Topic::Items, Payload::Items(texts)) => self.items = Slot::Ready(texts),
            (Topic::Index(i), Payload::Index(data)) if i < self.tokenizers.len() => {
                self.tokenizers[i].data = Slot::Ready(data);
                self.rebuild_order(i);
                commands.extend(self.start_analysis(i));
                commands.extend(self.start_projection());
                self.refresh_metrics();
                self.refresh_scatter();
            }
            (Topic::Metrics(i), Payload::Metrics(m)) if i < self.tokenizers.len() => {
                self.tokenizers[i].metrics = Slot::Ready(m);
                self.refresh_metrics();
            }
            (Topic::Reassign(i), Payload::Reassign(r)) if i < self.tokenizers.len() => {
                self.tokenizers[i].reassign = Slot::Ready(r);
                if self.sort == SortKey::Saving {
                    self.rebuild_order(i);
                }
            }
            (Topic::Projection, Payload::Projection(p)) => {
                self.projection = Slot::Ready(p);
                self.scatter = None;
                self.refresh_scatter();
            }
            (Topic::Collaborative, Payload::Collaborative(p)) => {
                self.collaborative = Slot::Ready(p);
                self.cf_scatter = None;
                self.refresh_scatter();
            }
            (Topic::Tests, Payload::Tests(r)) => self.tested = Slot::Ready(r),
            _ => {}
        }
        commands
    }

    fn on_failed(&mut self, target: Topic, error: String) -> Vec<Command> {
        match target {
            Topic::Items => self.items = Slot::Failed(error),
            Topic::Projection => self.projection = Slot::Failed(error),
            Topic::Collaborative => self.collaborative = Slot::Failed(error),
            Topic::Tests => self.tested = Slot::Failed(error),
            Topic::Index(i) | Topic::Metrics(i) | Topic::Reassign(i) => {
                let Some(t) = self.tokenizers.get_mut(i) else {
                    return Vec::new();
                };
                match target {
                    Topic::Index(_) => {
                        t.data = Slot::Failed(error);
                        t.metrics = Slot::Missing("the index did not load".into());
                        t.reassign = Slot::Missing("the index did not load".into());
                        return self.start_projection();
                    }
                    Topic::Metrics(_) => t.metrics = Slot::Failed(error),
                    _ => t.reassign = Slot::Failed(error),
                }
                self.refresh_metrics();
            }
        }
        Vec::new()
    }

    /// A new generation for `request`'s target: answers to older requests are dropped.
    fn request(&mut self, request: Request, target: Topic) -> Command {
        let generation = self.generations.entry(target).or_insert(0);
        *generation += 1;
        Command::Start(request, *generation)
    }

    /// Evaluation and reassignment of tokenizer `i`, once its index is loaded.
    fn start_analysis(&mut self, i: usize) -> Vec<Command> {
        let Some(data) = self.tokenizers[i].data.ready().cloned() else {
            return Vec::new();
        };
        let mut commands = Vec::new();
        let source = self.tokenizers[i].source.clone();
        if !source.beams.is_empty() {
            self.tokenizers[i].metrics = Slot::Loading(None);
            let request = Request::Evaluate {
                tokenizer: i,
                data: data.clone(),
                beams: source.beams.clone(),
                compat: self.compat,
            };
            commands.push(self.request(request, Topic::Metrics(i)));
        }
        self.tokenizers[i].reassign = Slot::Loading(None);
        let request = Request::Reassign {
            tokenizer: i,
            data,
            latents: source.latents,
            codebooks: source.codebooks,
            texts: self.items.ready().cloned(),
        };
        commands.push(self.request(request, Topic::Reassign(i)));
        commands
    }

    /// The projection, once the tokenizer shown (or, when it failed, any tokenizer) is
    /// loaded: its largest groups are kept in the sample.
    fn start_projection(&mut self) -> Vec<Command> {
        let shown_failed = matches!(self.tokenizer().map(|t| &t.data), Some(Slot::Failed(_)));
        let data = if shown_failed {
            self.tokenizers.iter().find_map(|t| t.data.ready().cloned())
        } else {
            self.data().cloned()
        };
        let Some(data) = data else {
            return Vec::new();
        };
        let mut commands = Vec::new();
        if let (Some(embeddings), Slot::Missing(_)) = (self.embeddings.clone(), &self.projection) {
            self.projection = Slot::Loading(None);
            let request = Request::Project {
                embeddings,
                data: data.clone(),
                params: ProjectionParams::default(),
                highlight: HIGHLIGHTED_GROUPS,
            };
            commands.push(self.request(request, Topic::Projection));
        }
        if let (Some(interactions), Slot::Missing(_)) =
            (self.interactions.clone(), &self.collaborative)
        {
            self.collaborative = Slot::Loading(None);
            let request = Request::Collaborative {
                interactions,
                n_rows: None,
                data,
                params: ProjectionParams::default(),
                highlight: HIGHLIGHTED_GROUPS,
            };
            commands.push(self.request(request, Topic::Collaborative));
        }
        commands
    }

    /// Re-evaluates tokenizer `i` after its beams file changed on disk.
    pub fn beams_changed(&mut self, i: usize) -> Vec<Command> {
        self.reevaluate(i, "beams file changed")
    }

    /// Re-reads and re-evaluates tokenizer `i`'s beams file; `why` goes into the notice.
    fn reevaluate(&mut self, i: usize, why: &str) -> Vec<Command> {
        let Some(t) = self.tokenizers.get(i) else {
            return Vec::new();
        };
        let name = t.name().to_string();
        let beams = t.source.beams.clone();
        let Some(first) = beams.first().cloned() else {
            self.say(Level::Warn, format!("{name} has no beams file to reload"));
            return Vec::new();
        };
        let Some(data) = t.data.ready().cloned() else {
            self.say(Level::Warn, format!("{name}: the index is not loaded yet"));
            return Vec::new();
        };
        self.tokenizers[i].metrics = Slot::Loading(None);
        self.refresh_metrics();
        let more = match beams.len() {
            1 => String::new(),
            n => format!(" and {} more seed{}", n - 1, if n == 2 { "" } else { "s" }),
        };
        self.say(
            Level::Info,
            format!("{name}: {why}, re-evaluating {}{more}", first.display()),
        );
        let request = Request::Evaluate {
            tokenizer: i,
            data,
            beams,
            compat: self.compat,
        };
        vec![self.request(request, Topic::Metrics(i))]
    }

    /// Recomputes what depends on K: the comparison table (at once, without tests; the
    /// tests follow in the background once every evaluation is in), and the group order
    /// when it is by inflation (group credit itself is computed where it is shown).
    fn refresh_metrics(&mut self) {
        let loaded: Vec<_> = self
            .tokenizers
            .iter()
            .filter_map(|t| Some((t.name(), t.data.ready()?, t.metrics.ready())))
            .collect();
        let evaluated: Vec<EvaluatedTokenizer> = loaded
            .iter()
            .map(|(name, data, m)| EvaluatedTokenizer {
                name,
                index: &data.index,
                collisions: &data.collisions,
                seeds: m.map(|m| &m.seeds),
                beams_sought: &[],
            })
            .collect();
        let with_beams = evaluated.iter().filter(|e| e.seeds.is_some()).count();
        self.comparison = (!evaluated.is_empty())
            .then(|| {
                usecase::compare_evaluated(
                    &evaluated,
                    &[self.k],
                    self.compat,
                    None,
                    (Decode::Cce, None),
                    &NoProgress,
                )
                .ok()
            })
            .flatten();
        let waiting = self
            .tokenizers
            .iter()
            .filter(|t| t.data.is_loading() || t.metrics.is_loading())
            .count();
        self.tests_due = false;
        self.tested = if with_beams + waiting < 2 {
            Slot::Missing("paired tests need two tokenizers with beams".into())
        } else if waiting > 0 {
            Slot::Missing(format!(
                "paired tests start once {waiting} more evaluation{} {} in",
                if waiting == 1 { "" } else { "s" },
                if waiting == 1 { "is" } else { "are" }
            ))
        } else if with_beams < 2 {
            Slot::Missing("paired tests need two tokenizers with beams".into())
        } else {
            self.tests_due = true;
            Slot::Loading(None)
        };
        self.metrics_scroll = self.metrics_scroll.min(metrics::max_scroll(self));
        if self.sort == SortKey::Inflation {
            self.rebuild_order(self.selected);
            self.refresh_search();
        }
    }

    /// The paired tests of the comparison at the current K, when they are due: the same
    /// library call and defaults as `sidlens compare` (Holm, α 0.05, 10,000 sign flips and
    /// bootstrap resamples, seed 42).
    fn start_tests(&mut self) -> Vec<Command> {
        if !std::mem::take(&mut self.tests_due) {
            return Vec::new();
        }
        let tokenizers = self
            .tokenizers
            .iter()
            .filter_map(|t| {
                let data = t.data.ready()?.clone();
                Some((t.name().to_string(), data, t.metrics.ready().cloned()))
            })
            .collect();
        let request = Request::Test {
            tokenizers,
            k: self.k,
            compat: self.compat,
            settings: TestSettings::default(),
        };
        vec![self.request(request, Topic::Tests)]
    }

    /// Maps both projections' points to the collision groups of the tokenizer shown, and
    /// measures how far apart each group's items are in both spaces.
    fn refresh_scatter(&mut self) {
        let fresh = |view: &Option<ScatterView>| {
            view.as_ref().is_some_and(|s| s.tokenizer == self.selected)
        };
        if !fresh(&self.scatter) {
            self.scatter = self.scatter_view(self.projection.ready());
        }
        if !fresh(&self.cf_scatter) {
            self.cf_scatter = self.scatter_view(self.collaborative.ready());
        }
        self.refresh_spreads();
    }

    fn scatter_view(&self, projected: Option<&Arc<Projected>>) -> Option<ScatterView> {
        let (projected, data) = (projected?, self.data()?);
        let projection = &projected.projection;
        let items = ItemRows::new(&data.index, &data.collisions, projection.total_rows, 0);
        let positions: Vec<Option<usize>> = projection
            .rows
            .iter()
            .map(|&row| items.as_ref().ok()?.position(row))
            .collect();
        let groups = positions
            .iter()
            .map(|&position| {
                let group = data.collisions.group_of(position?);
                (data.collisions.size(group) > 1).then_some(group)
            })
            .collect();
        Some(ScatterView {
            tokenizer: self.selected,
            groups,
            positions,
        })
    }

    /// The mean intra-group distances of the tokenizer shown in both spaces (a pass over the
    /// groups' item pairs: milliseconds), recomputed when the tokenizer, a space or the
    /// minimum size changes.
    fn refresh_spreads(&mut self) {
        let (Some(data), Some(textual)) = (self.data(), self.projection.ready()) else {
            self.spreads = None;
            return;
        };
        let collaborative = self.collaborative.ready();
        let min_size = self.min_size.max(TIGHTEST_MIN_SIZE);
        let current = self.spreads.as_ref().is_some_and(|s| {
            s.tokenizer == self.selected
                && s.with_collaborative == collaborative.is_some()
                && s.min_size == min_size
        });
        if current {
            return;
        }
        self.spreads = Spreads::compute(
            self.selected,
            data,
            &textual.embeddings,
            collaborative.map(|c| c.embeddings.as_ref()),
            min_size,
        )
        .map(Arc::new);
    }

    /// `v`: textual → collaborative → both side by side (where the pane has room).
    fn cycle_space(&mut self) {
        if let Some(why) = slot_missing(&self.collaborative, "the collaborative space") {
            self.space = Space::Textual;
            self.say(Level::Warn, format!("only the textual space: {why}"));
            return;
        }
        let room = scatter::room_for_both(self);
        self.space = self.space.next(room);
        self.camera.zoom = 1.0;
        self.camera.centre = None;
        self.camera.pick = None;
        let hint = if room || self.space == Space::Both {
            String::new()
        } else {
            " (too narrow for side by side: tabs)".to_string()
        };
        self.say(
            Level::Info,
            format!("scatter: {} space{hint}", self.space.label()),
        );
    }

    /// `t`: highlight the tightest groups (smallest mean pairwise cosine distance in the
    /// textual space) instead of the largest.
    fn toggle_tightest(&mut self) {
        if self.spreads.is_none() {
            let why = slot_missing(&self.projection, "the embeddings")
                .unwrap_or_else(|| "the embeddings do not cover the index".into());
            self.say(Level::Warn, format!("no tightest groups: {why}"));
            return;
        }
        self.tightest = !self.tightest;
        self.tight_at = 0;
        self.camera.colour_by = ColourBy::Collision;
        let (found, min_size) = self
            .spreads
            .as_ref()
            .map_or((0, TIGHTEST_MIN_SIZE), |s| (s.tightest.len(), s.min_size));
        let text = if self.tightest {
            format!(
                "{found} tightest groups of {min_size}+ items: ↑/↓ step through them, Enter opens the ▸ one"
            )
        } else {
            format!("scatter highlights the {HIGHLIGHTED_GROUPS} largest groups")
        };
        self.say(Level::Info, text);
    }

    /// The projection a pane of `space` draws (the textual one for `Both`'s left pane).
    pub fn projection_of(&self, space: Space) -> Option<&Arc<Projected>> {
        match space {
            Space::Collaborative => self.collaborative.ready(),
            Space::Textual | Space::Both => self.projection.ready(),
        }
    }

    /// The points-to-groups map of `space`'s projection.
    pub fn scatter_of(&self, space: Space) -> Option<&ScatterView> {
        match space {
            Space::Collaborative => self.cf_scatter.as_ref(),
            Space::Textual | Space::Both => self.scatter.as_ref(),
        }
    }

    /// The space zoom, pan and picks act on: the one shown, the textual one in `Both`.
    pub fn camera_space(&self) -> Space {
        match self.space {
            Space::Collaborative if self.collaborative.ready().is_some() => Space::Collaborative,
            _ => Space::Textual,
        }
    }

    fn say(&mut self, level: Level, text: impl Into<String>) {
        self.notice = Some(Notice {
            text: text.into(),
            level,
        });
    }

    fn set_focus(&mut self, pane: Pane) {
        self.focus = pane;
        if matches!(pane, Pane::Metrics | Pane::Scatter) {
            self.companion = pane;
        }
        self.scroll_into_view();
    }

    fn page(&self) -> usize {
        let layout = self.layout();
        let pane = if layout.shows(self.focus) {
            self.focus
        } else {
            Pane::Groups
        };
        (layout.inner_height(pane) as usize)
            .saturating_sub(2)
            .max(1)
    }

    /// Moves what the focused pane moves by `delta` lines.
    fn step(&mut self, delta: isize) {
        if self.mode == InputMode::Help {
            let most = help::max_scroll(self);
            self.help_scroll = offset_by(self.help_scroll.min(most), delta, most);
            return;
        }
        if self.mode == InputMode::Codebook {
            let most = codebook::max_scroll(self);
            self.codebook_scroll = offset_by(self.codebook_scroll.min(most), delta, most);
            return;
        }
        if self.mode == InputMode::Item {
            let most = item::max_scroll(self);
            self.item_scroll = offset_by(self.item_scroll.min(most), delta, most);
            return;
        }
        match self.focus {
            Pane::Scatter if self.tight_groups().is_some() => self.step_tight(delta),
            Pane::Groups | Pane::Scatter => self.move_cursor(delta),
            Pane::Detail => {
                let most = detail::max_scroll(self);
                if let Some(t) = self.tokenizers.get_mut(self.selected) {
                    t.detail_scroll = offset_by(t.detail_scroll.min(most), delta, most);
                }
            }
            Pane::Metrics => self.step_metrics(delta),
        }
    }

    /// Moves through the metrics pane as one list: the tokenizer rows, then the flip lines
    /// under them (down selects the next tokenizer until the last, then scrolls the flips;
    /// up scrolls back first).
    fn step_metrics(&mut self, delta: isize) {
        let order = self.metrics_order();
        let at = order.iter().position(|&i| i == self.selected).unwrap_or(0);
        let last = order.len().saturating_sub(1);
        let d = delta.unsigned_abs();
        let (row, scroll) = if delta >= 0 {
            let to_last = last.saturating_sub(at);
            if d <= to_last {
                (at + d, self.metrics_scroll)
            } else {
                (last, self.metrics_scroll.saturating_add(d - to_last))
            }
        } else if d <= self.metrics_scroll {
            (at, self.metrics_scroll - d)
        } else {
            (at.saturating_sub(d - self.metrics_scroll), 0)
        };
        if let Some(&i) = order.get(row).filter(|&&i| i != self.selected) {
            self.select_tokenizer(i);
        }
        // The body's length depends on the selected tokenizer's facts: clamp after selecting.
        self.metrics_scroll = scroll.min(metrics::max_scroll(self));
    }

    /// The tightest groups when the scatter highlights them for the tokenizer shown.
    pub fn tight_groups(&self) -> Option<&[u32]> {
        self.spreads
            .as_ref()
            .filter(|s| {
                self.tightest
                    && self.camera.colour_by == ColourBy::Collision
                    && s.tokenizer == self.selected
                    && !s.tightest.is_empty()
            })
            .map(|s| s.tightest.as_slice())
    }

    /// The highlighted tightest group the scatter points at (▸ in its legend).
    pub fn tight_group(&self) -> Option<u32> {
        let groups = self.tight_groups()?;
        groups.get(self.tight_at.min(groups.len() - 1)).copied()
    }

    /// ↑/↓ in the scatter while the tightest groups are highlighted: the next of them, which
    /// becomes the selected group so that the detail and the ◉ follow.
    fn step_tight(&mut self, delta: isize) {
        let Some(n) = self.tight_groups().map(<[u32]>::len) else {
            return;
        };
        self.tight_at = offset_by(self.tight_at.min(n - 1), delta, n - 1);
        self.select_tight();
    }

    /// Selects the tightest group ▸ marks in the group list; false (and a notice) when the
    /// list does not show it (a search or a minimum size hides it).
    fn select_tight(&mut self) -> bool {
        let (Some(group), Some(data)) = (self.tight_group(), self.data().cloned()) else {
            return false;
        };
        let n = self.tight_groups().map_or(1, <[u32]>::len);
        self.tight_at = self.tight_at.min(n - 1);
        let rank = self.tight_at + 1;
        let listed = data.row_of(group).and_then(|r| {
            let t = &self.tokenizers[self.selected];
            t.view.order.iter().position(|&x| x == r).map(|p| (r, p))
        });
        let Some((r, p)) = listed else {
            self.say(
                Level::Warn,
                format!(
                    "tightest group {rank} is not in the list: a search or the minimum size hides it (Esc clears the search, m sets the size)"
                ),
            );
            return false;
        };
        self.set_cursor(p);
        self.camera.pick = None;
        self.say(
            Level::Info,
            format!("tightest group {rank}: group #{} selected", r + 1),
        );
        true
    }

    fn move_cursor(&mut self, delta: isize) {
        let Some(t) = self.tokenizers.get_mut(self.selected) else {
            return;
        };
        let last = t.view.order.len().saturating_sub(1);
        let cursor = offset_by(t.view.cursor, delta, last);
        if cursor != t.view.cursor {
            t.view.cursor = cursor;
            t.detail_scroll = 0;
            t.member = 0;
            self.camera.pick = None;
        }
        self.scroll_into_view();
    }

    /// Keeps the selected group row on screen.
    fn scroll_into_view(&mut self) {
        let height = self.list_height();
        if let Some(t) = self.tokenizers.get_mut(self.selected) {
            t.view.offset = visible_offset(t.view.offset, t.view.cursor, height);
        }
    }

    fn select_tokenizer(&mut self, i: usize) {
        if i >= self.tokenizers.len() {
            let n = self.tokenizers.len();
            self.say(
                Level::Warn,
                format!(
                    "no tokenizer {} (there {} {n})",
                    i + 1,
                    if n == 1 { "is" } else { "are" }
                ),
            );
            return;
        }
        let followed = match (self.mode, self.focus) {
            (InputMode::Item, _) => self.item.clone(),
            (_, Pane::Detail) => self.member_id().map(str::to_string),
            _ => None,
        };
        self.selected = i;
        if self.sort == SortKey::Inflation {
            self.rebuild_order(i);
        }
        self.refresh_search();
        self.refresh_scatter();
        if let Some(id) = followed {
            self.follow(&id);
        }
        self.scroll_into_view();
    }

    /// Selects the group of item `id` in the tokenizer shown, or says why there is none.
    fn follow(&mut self, id: &str) {
        let Some(data) = self.data().cloned() else {
            return;
        };
        let name = self.tokenizers[self.selected].name().to_string();
        let Some(position) = data.index.ids().position(id) else {
            self.say(Level::Warn, format!("{name} has no item {id}"));
            return;
        };
        let group = data.collisions.group_of(position);
        let size = data.collisions.size(group);
        let listed = data.row_of(group).and_then(|row| {
            let t = &self.tokenizers[self.selected];
            t.view
                .order
                .iter()
                .position(|&r| r == row)
                .map(|p| (row, p))
        });
        match listed {
            Some((row, position)) => {
                self.set_cursor(position);
                let t = &mut self.tokenizers[self.selected];
                t.member = data.rows[row].items.iter().position(|i| i.id == id).unwrap_or(0);
                self.say(Level::Info, format!("following item {id} into {name}"));
            }
            None if size < 2 => self.say(
                Level::Info,
                format!(
                    "in {name} item {id} has SID {} to itself (no collision); i shows it in every tokenizer",
                    data.index.sid_string(position)
                ),
            ),
            None => self.say(
                Level::Info,
                format!(
                    "in {name} item {id} is in a group of {size}, below the minimum size {}",
                    self.min_size
                ),
            ),
        }
    }

    fn open_item(&mut self) {
        match self.member_id().map(str::to_string) {
            Some(id) => {
                self.item = Some(id);
                self.item_scroll = 0;
                self.mode = InputMode::Item;
            }
            None => self.say(Level::Warn, "no collision group selected"),
        }
    }

    /// The previous or next item of the group: in the item view, of the shown item's group in
    /// the tokenizer shown; elsewhere, of the selected group.
    fn step_member(&mut self, delta: isize) {
        if self.mode == InputMode::Item {
            let (Some(id), Some(data)) = (self.item.clone(), self.data().cloned()) else {
                return;
            };
            let Some(position) = data.index.ids().position(&id) else {
                return;
            };
            let group = data.collisions.group_of(position);
            let members = &data.collisions.items_in_id_order(&data.index, group);
            if members.len() < 2 {
                let name = self.tokenizers[self.selected].name().to_string();
                self.say(
                    Level::Info,
                    format!("in {name} item {id} has its SID to itself"),
                );
                return;
            }
            let at = members
                .iter()
                .position(|&p| p as usize == position)
                .unwrap_or(0);
            let next = offset_by(at, delta, members.len() - 1);
            self.item = Some(data.index.id(members[next] as usize).to_string());
            self.item_scroll = 0;
            return;
        }
        let Some(size) = self.selected_row().map(|r| r.items.len()) else {
            self.say(Level::Warn, "no collision group selected");
            return;
        };
        if let Some(t) = self.tokenizers.get_mut(self.selected) {
            t.member = offset_by(t.member.min(size - 1), delta, size - 1);
        }
    }

    /// Scrolls the detail pane to what the `*_zcr` sibling of the tokenizer shown did to the
    /// selected group.
    fn jump_to_zcr(&mut self) {
        let name = self
            .tokenizer()
            .map(|t| t.name().to_string())
            .unwrap_or_default();
        let Some(zcr) = crate::usecase::item_view::zcr_of(&name) else {
            self.say(
                Level::Info,
                format!("{name} is not a *_native variant, so there is no *_zcr one to compare"),
            );
            return;
        };
        if !self.tokenizers.iter().any(|t| t.name() == zcr) {
            self.say(Level::Info, format!("no tokenizer {zcr} is loaded"));
            return;
        }
        self.set_focus(Pane::Detail);
        match detail::zcr_section_line(self) {
            Some(line) => {
                let most = detail::max_scroll(self);
                if let Some(t) = self.tokenizers.get_mut(self.selected) {
                    t.detail_scroll = line.min(most);
                }
            }
            None => self.say(Level::Warn, "no collision group selected"),
        }
    }

    /// `s` in Metrics: sort by the next column of the table shown; `S`: flip the direction.
    fn sort_metrics(&mut self, reverse: bool) {
        let headers = self
            .report()
            .map(|r| crate::report::compare::report_table(r, false).headers);
        let columns = headers.as_ref().map_or(1, Vec::len);
        // Numbers read best largest first, names and ranks A→Z / 1→n.
        let descending = |c: usize| {
            headers
                .as_ref()
                .is_some_and(|h| c > 0 && !h[c].starts_with("rank"))
        };
        self.metrics_sort = match (self.metrics_sort, reverse) {
            (None, false) => Some((0, false)),
            (None, true) => Some((0, true)),
            (Some((c, d)), true) => Some((c, !d)),
            (Some((c, _)), false) if c + 1 < columns => Some((c + 1, descending(c + 1))),
            (Some(_), false) => None,
        };
        let text = match (self.metrics_sort, &headers) {
            (Some((c, d)), Some(h)) => format!(
                "metrics sorted by {}, {} (s: next column, S: reverse)",
                h[c.min(h.len() - 1)],
                if d { "largest first" } else { "smallest first" }
            ),
            (Some(_), None) => "metrics sorted once they are computed".into(),
            (None, _) => "metrics in tokenizer order".into(),
        };
        self.say(Level::Info, text);
    }

    fn drill(&mut self) {
        match self.focus {
            Pane::Metrics => self.set_focus(Pane::Groups),
            Pane::Scatter if self.tight_groups().is_some() => {
                if self.select_tight() {
                    self.set_focus(Pane::Detail);
                }
            }
            _ if self.selected_row().is_some() => self.set_focus(Pane::Detail),
            _ => self.say(Level::Warn, "no collision group selected"),
        }
    }

    fn back(&mut self) {
        if self.focus == Pane::Detail {
            self.set_focus(Pane::Groups);
        } else if self.search.take().is_some() {
            self.say(Level::Info, "search cleared");
        }
    }

    fn open_prompt(&mut self, kind: PromptKind) {
        self.prompt = Some(Prompt {
            kind,
            text: String::new(),
        });
        self.mode = InputMode::Typing;
    }

    fn type_char(&mut self, c: char) {
        let Some(p) = &mut self.prompt else {
            return;
        };
        let numeric = matches!(p.kind, PromptKind::K | PromptKind::MinSize);
        if numeric && !c.is_ascii_digit() {
            return;
        }
        if p.text.chars().count() < 200 {
            p.text.push(c);
        }
        self.after_typing();
    }

    /// Searches as the user types, so the list follows the query.
    fn after_typing(&mut self) {
        let Some(Prompt {
            kind: PromptKind::Search,
            text,
        }) = self.prompt.clone()
        else {
            return;
        };
        self.set_search(&text);
        self.jump_to_first_match();
    }

    fn submit_prompt(&mut self) {
        let Some(prompt) = self.prompt.take() else {
            return;
        };
        self.mode = InputMode::Normal;
        match prompt.kind {
            PromptKind::Search => self.finish_search(&prompt.text),
            PromptKind::K => match prompt.text.parse::<usize>() {
                Ok(k) if (1..=self.max_k()).contains(&k) => self.set_k(k),
                _ => self.say(
                    Level::Warn,
                    format!("K must be a whole number from 1 to {}", self.max_k()),
                ),
            },
            PromptKind::MinSize => match prompt.text.parse::<usize>() {
                Ok(m) if m >= 2 => self.set_min_size(m),
                Err(_) if prompt.text.is_empty() => self.set_min_size(2),
                _ => self.say(
                    Level::Warn,
                    "the minimum group size is a number of at least 2",
                ),
            },
        }
    }

    fn cancel_prompt(&mut self) {
        if let Some(p) = self.prompt.take()
            && p.kind == PromptKind::Search
        {
            self.search = None;
        }
        self.mode = InputMode::Normal;
    }

    fn set_search(&mut self, text: &str) {
        let query = Query::parse(text);
        if query == Query::Empty {
            self.search = None;
            return;
        }
        let matches = self.find_matches(&query);
        self.search = Some(Search {
            text: text.to_string(),
            query,
            matches,
        });
    }

    fn find_matches(&self, query: &Query) -> Vec<usize> {
        let Some(t) = self.tokenizer() else {
            return Vec::new();
        };
        let Some(data) = t.data.ready() else {
            return Vec::new();
        };
        t.view
            .order
            .iter()
            .enumerate()
            .filter(|&(_, &row)| query.matches(&data.rows[row]))
            .map(|(pos, _)| pos)
            .collect()
    }

    fn refresh_search(&mut self) {
        if let Some(s) = &self.search {
            let matches = self.find_matches(&s.query);
            if let Some(s) = &mut self.search {
                s.matches = matches;
            }
        }
    }

    fn finish_search(&mut self, text: &str) {
        self.set_search(text);
        let Some(search) = &self.search else {
            return;
        };
        if search.matches.is_empty() {
            let msg = self.explain_miss(&search.query, text);
            self.say(Level::Warn, msg);
        } else {
            self.jump_to_first_match();
            self.say_match_position();
        }
    }

    /// Why a search found nothing, naming the item when the query is an id outside any group.
    fn explain_miss(&self, query: &Query, text: &str) -> String {
        if let (Some(id), Some(data)) = (query.as_item_id(), self.data())
            && let Some(pos) = data.index.ids().position(id)
        {
            let group = data.collisions.group_of(pos);
            if data.collisions.size(group) < 2 {
                return format!(
                    "item {id} has SID {} to itself: it is in no collision group",
                    data.index.sid_string(pos)
                );
            }
            return format!(
                "item {id} is in a group of {} items, below the minimum size {}",
                data.collisions.size(group),
                self.min_size
            );
        }
        format!("no group matches \"{text}\"")
    }

    fn jump_to_first_match(&mut self) {
        let Some(first) = self
            .search
            .as_ref()
            .and_then(|s| s.matches.first().copied())
        else {
            return;
        };
        self.set_cursor(first);
        self.select_searched_item();
    }

    fn jump_to_match(&mut self, forward: bool) {
        let Some(search) = &self.search else {
            self.say(Level::Info, "no search: press / to search");
            return;
        };
        if search.matches.is_empty() {
            self.say(Level::Warn, format!("no group matches \"{}\"", search.text));
            return;
        }
        let cursor = self.tokenizer().map_or(0, |t| t.view.cursor);
        let matches = &search.matches;
        let target = if forward {
            matches.iter().find(|&&m| m > cursor).unwrap_or(&matches[0])
        } else {
            matches
                .iter()
                .rev()
                .find(|&&m| m < cursor)
                .unwrap_or(&matches[matches.len() - 1])
        };
        self.set_cursor(*target);
        self.select_searched_item();
        self.say_match_position();
    }

    fn say_match_position(&mut self) {
        let Some(search) = &self.search else {
            return;
        };
        let cursor = self.tokenizer().map_or(0, |t| t.view.cursor);
        if let Some(i) = search.matches.iter().position(|&m| m == cursor) {
            let text = format!(
                "match {} of {} for \"{}\" (n/N for next/previous)",
                i + 1,
                search.matches.len(),
                search.text
            );
            self.say(Level::Info, text);
        }
    }

    /// After a search for an item id, makes that item the selected member of its group.
    fn select_searched_item(&mut self) {
        let id = match self.search.as_ref().and_then(|s| s.query.as_item_id()) {
            Some(id) => id.to_string(),
            None => return,
        };
        let Some(at) = self
            .selected_row()
            .and_then(|r| r.items.iter().position(|i| i.id == id))
        else {
            return;
        };
        if let Some(t) = self.tokenizers.get_mut(self.selected) {
            t.member = at;
        }
    }

    fn set_cursor(&mut self, position: usize) {
        if let Some(t) = self.tokenizers.get_mut(self.selected)
            && position < t.view.order.len()
        {
            if t.view.cursor != position {
                t.detail_scroll = 0;
                t.member = 0;
            }
            t.view.cursor = position;
        }
        self.scroll_into_view();
    }

    fn cycle_sort(&mut self) {
        self.sort = self.sort.next();
        for i in 0..self.tokenizers.len() {
            self.rebuild_order(i);
        }
        self.refresh_search();
        let Some(t) = self.tokenizer() else {
            return;
        };
        let missing = match self.sort {
            SortKey::Size => None,
            SortKey::Inflation => slot_missing(&t.metrics, "beams"),
            SortKey::Saving => match &t.reassign {
                Slot::Ready(r) if !r.plan.summary.with_vectors => {
                    Some("needs latents (--latents, --codebooks)".to_string())
                }
                other => slot_missing(other, "the reassignment"),
            },
        };
        match missing {
            Some(why) => self.say(
                Level::Warn,
                format!(
                    "sorted by {}: {why}; largest first meanwhile",
                    self.sort.label()
                ),
            ),
            None => self.say(Level::Info, format!("sorted by {}", self.sort.label())),
        }
    }

    fn set_min_size(&mut self, min_size: usize) {
        self.min_size = min_size;
        for i in 0..self.tokenizers.len() {
            self.rebuild_order(i);
        }
        self.refresh_search();
        self.refresh_spreads();
        self.say(Level::Info, format!("groups of at least {min_size} items"));
    }

    /// The K values `+` and `-` step through: 1, 5, 10, 20 up to the beam width, and the
    /// width itself.
    pub fn k_steps(&self) -> Vec<usize> {
        let max = self.max_k();
        let mut steps: Vec<usize> = K_STEPS.iter().copied().filter(|&k| k <= max).collect();
        if !steps.contains(&max) {
            steps.push(max);
        }
        steps
    }

    fn step_k(&mut self, up: bool) {
        let steps = self.k_steps();
        let next = if up {
            steps.iter().copied().find(|&k| k > self.k)
        } else {
            steps.iter().rev().copied().find(|&k| k < self.k)
        };
        match next {
            Some(k) => self.set_k(k),
            None => self.say(
                Level::Info,
                format!(
                    "K stays {} (the beams are {} long; K types any K up to that)",
                    self.k,
                    self.max_k()
                ),
            ),
        }
    }

    fn set_k(&mut self, k: usize) {
        self.k = k;
        self.refresh_metrics();
    }

    /// Recomputes a tokenizer's list after new data, a new sort or a new filter, keeping the
    /// selected group selected when it is still listed.
    fn rebuild_order(&mut self, i: usize) {
        let Some(t) = self.tokenizers.get(i) else {
            return;
        };
        let Some(data) = t.data.ready() else {
            return;
        };
        let mut order: Vec<usize> = (0..data.rows.len())
            .filter(|&r| data.rows[r].size >= self.min_size)
            .collect();
        let values: Option<Vec<f64>> = match (self.sort, &t.metrics, &t.reassign) {
            (SortKey::Inflation, Slot::Ready(m), _) => Some(
                data.rows
                    .iter()
                    .map(|row| m.credit(row.group, self.k).map_or(0.0, |c| c.over()))
                    .collect(),
            ),
            (SortKey::Saving, _, Slot::Ready(r)) if r.plan.summary.with_vectors => Some(
                data.rows
                    .iter()
                    .map(|row| {
                        r.saving(prefix_key(&row.codes))
                            .unwrap_or(f64::NEG_INFINITY)
                    })
                    .collect(),
            ),
            _ => None,
        };
        if let Some(values) = values {
            order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
        }
        let t = &mut self.tokenizers[i];
        let keep = t.view.order.get(t.view.cursor).copied();
        t.view.cursor = keep
            .and_then(|row| order.iter().position(|&r| r == row))
            .unwrap_or(0);
        t.view.order = order;
        if i == self.selected {
            self.scroll_into_view();
        }
    }

    fn click(&mut self, column: u16, row: u16) {
        if matches!(
            self.mode,
            InputMode::Help | InputMode::Item | InputMode::Codebook
        ) {
            self.mode = InputMode::Normal;
            return;
        }
        match self.layout().hit(column, row) {
            Some(Hit::Tokenizer(i)) => self.select_tokenizer(i),
            Some(Hit::PaneTab(pane)) => self.set_focus(pane),
            Some(Hit::Pane {
                pane: Pane::Scatter,
                row: Some(_),
            }) => {
                self.set_focus(Pane::Scatter);
                self.pick_at(column, row);
            }
            Some(Hit::Pane { pane, row }) => {
                self.set_focus(pane);
                match (pane, row) {
                    (Pane::Groups, Some(r)) if r >= 1 => {
                        let offset = self.tokenizer().map_or(0, |t| t.view.offset);
                        self.set_cursor(offset + r as usize - 1);
                    }
                    (Pane::Metrics, Some(r)) if r >= 1 && (r as usize) <= self.tokenizers.len() => {
                        let i = self.metrics_order()[r as usize - 1];
                        self.select_tokenizer(i);
                    }
                    _ => {}
                }
            }
            None => {}
        }
    }

    fn wheel(&mut self, column: u16, row: u16, direction: isize) {
        let delta = direction * WHEEL_LINES as isize;
        if matches!(
            self.mode,
            InputMode::Help | InputMode::Item | InputMode::Codebook
        ) {
            self.step(delta);
            return;
        }
        if let Some(Hit::Pane {
            pane: Pane::Scatter,
            ..
        }) = self.layout().hit(column, row)
        {
            let at = scatter::coordinates_at(self, column, row);
            self.zoom(if direction < 0 { 2.0 } else { 0.5 }, at);
            return;
        }
        if let Some(Hit::Pane { pane, .. }) = self.layout().hit(column, row) {
            let focus = self.focus;
            self.focus = pane;
            self.step(if pane == Pane::Metrics {
                direction
            } else {
                delta
            });
            self.focus = focus;
        }
    }
}

/// Why a slot cannot be used yet, in words.
fn slot_missing<T>(slot: &Slot<T>, what: &str) -> Option<String> {
    match slot {
        Slot::Ready(_) => None,
        Slot::Loading(_) => Some(format!("{what} still loading")),
        Slot::Missing(why) => Some(why.clone()),
        Slot::Failed(_) => Some(format!("{what} could not be loaded")),
    }
}

fn set_progress<T>(slot: &mut Slot<T>, progress: JobProgress) {
    if slot.is_loading() {
        *slot = Slot::Loading(Some(progress));
    }
}

/// `value + delta`, clamped to `0..=max`.
fn offset_by(value: usize, delta: isize, max: usize) -> usize {
    value.saturating_add_signed(delta).min(max)
}

/// The first visible line so that `cursor` is visible in a window of `height` lines, moving
/// the window as little as possible from `offset`.
pub fn visible_offset(offset: usize, cursor: usize, height: usize) -> usize {
    let height = height.max(1);
    if cursor < offset {
        cursor
    } else if cursor >= offset + height {
        cursor + 1 - height
    } else {
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_follow_the_cursor() {
        assert_eq!(visible_offset(0, 3, 10), 0);
        assert_eq!(visible_offset(0, 12, 10), 3);
        assert_eq!(visible_offset(5, 2, 10), 2);
        assert_eq!(visible_offset(5, 7, 0), 7);
        assert_eq!(offset_by(3, -5, 10), 0);
        assert_eq!(offset_by(3, 50, 10), 10);
    }
}
