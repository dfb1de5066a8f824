//! The app: the TUI's state, one plain struct per concern (see `state`), and
//! [`App::update`], the only place it changes. Updates do no I/O; work that needs it (loading,
//! evaluation, ZCR, t-SNE) is asked for through the returned [`Command`]s, which the event
//! loop hands to `jobs`. What an action does across concerns is split by role: `background`
//! (jobs asked for and answered), `groups`, `metrics`, `scatter` (camera and picking),
//! `prompt` (prompts and search), `navigate` (panes, tokenizers, items) and `mouse`.

mod background;
mod groups;
mod metrics;
mod mouse;
mod navigate;
mod prompt;
mod scatter;

use std::collections::HashMap;
use std::sync::Arc;

use ratatui::layout::Rect;

use super::action::Action;
use super::jobs::{Request, Topic};
use super::keys::InputMode;
use super::layout::{Layout, Pane};
use super::sources::Sources;
use super::state::groups::GroupOrder;
use super::state::metrics::MetricsState;
use super::state::overlays::Overlays;
use super::state::prompt::{PromptKind, PromptState};
use super::state::scatter::ScatterState;
use super::state::slot::Slot;
use super::state::status::Notice;
use super::state::tokenizers::{TokenizerTab, Tokenizers};
use super::theme::Theme;
use super::view::{self, Screen};
use crate::load::ItemTexts;

/// Something the event loop must do for the app.
#[derive(Debug)]
pub enum Command {
    /// Start a background job answering with this generation.
    Start(Request, u64),
}

/// The whole state of the TUI: what is on screen and where keys go, then one struct per
/// concern.
#[derive(Debug)]
pub struct App {
    /// What the header calls the data.
    pub title: String,
    /// Colours.
    pub theme: Theme,
    /// The terminal area.
    pub area: Rect,
    /// How keys are read now.
    pub mode: InputMode,
    /// The focused pane.
    pub focus: Pane,
    /// Metrics or Scatter, whichever shares a slot in the three-pane layout.
    pub companion: Pane,
    /// Set when the user asked to quit.
    pub should_quit: bool,
    /// Every tokenizer, in key order, with its data, group list and detail position; and
    /// the one shown.
    pub tokenizers: Tokenizers,
    /// Item metadata shared by all tokenizers.
    pub items: Slot<Arc<ItemTexts>>,
    /// How the group lists are ordered and filtered.
    pub groups: GroupOrder,
    /// K, the comparison of the tokenizers and the metrics table's order and scroll.
    pub metrics: MetricsState,
    /// The projections, the spaces and the camera.
    pub scatter: ScatterState,
    /// The open prompt and the active search.
    pub prompt: PromptState,
    /// The help, codebook and item views' state.
    pub overlays: Overlays,
    /// The status-bar message.
    pub notice: Option<Notice>,
    /// The newest request's generation per topic: older answers are dropped.
    generations: HashMap<Topic, u64>,
}

impl<'a> From<&'a App> for Screen<'a> {
    fn from(app: &'a App) -> Screen<'a> {
        Screen {
            title: &app.title,
            theme: &app.theme,
            area: app.area,
            mode: app.mode,
            focus: app.focus,
            companion: app.companion,
            tokenizers: &app.tokenizers,
            items: &app.items,
            groups: &app.groups,
            metrics: &app.metrics,
            scatter: &app.scatter,
            prompt: &app.prompt,
            overlays: &app.overlays,
            notice: app.notice.as_ref(),
        }
    }
}

impl App {
    /// The app for `sources` before anything is loaded, and the commands that load it.
    pub fn new(sources: &Sources, theme: Theme, area: Rect) -> (App, Vec<Command>) {
        let tokenizers = sources.tokenizers.iter().map(TokenizerTab::new).collect();
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
            area,
            mode: InputMode::Normal,
            focus: Pane::Groups,
            companion: Pane::Metrics,
            should_quit: false,
            tokenizers: Tokenizers::new(tokenizers),
            items,
            groups: GroupOrder::default(),
            metrics: MetricsState::new(sources.compat),
            scatter: ScatterState::new(sources),
            prompt: PromptState::default(),
            overlays: Overlays::default(),
            notice: Notice::watching(watching),
            generations: HashMap::new(),
        };
        (app, vec![Command::Start(Request::Load(sources.clone()), 0)])
    }

    /// The state as the screen reads it (what `view` computes from and `ui` draws).
    pub fn screen(&self) -> Screen<'_> {
        Screen::from(self)
    }

    /// The layout for the current terminal size.
    pub fn layout(&self) -> Layout {
        self.screen().layout()
    }

    /// Whether any background job is still running.
    pub fn busy(&self) -> bool {
        self.items.is_loading()
            || self.scatter.busy()
            || self.metrics.tested.is_loading()
            || self.tokenizers.busy()
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
                    self.overlays.help_scroll = 0;
                    InputMode::Help
                };
            }
            Action::ToggleCodebook => {
                self.mode = if self.mode == InputMode::Codebook {
                    InputMode::Normal
                } else {
                    self.overlays.codebook_scroll = 0;
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
            Action::ResetView => self.scatter.camera.reset(),
            Action::CycleColour => {
                let notice = self.scatter.cycle_colour();
                self.say(notice);
            }
            Action::CycleSpace => self.cycle_space(),
            Action::ToggleTightest => {
                let notice = self.scatter.toggle_tightest();
                self.say(notice);
            }
            Action::SortMetrics => self.sort_metrics(false),
            Action::ReverseMetrics => self.sort_metrics(true),
            Action::Up => self.step(-1),
            Action::Down => self.step(1),
            Action::PageUp => self.step(-(view::groups::page(&self.screen()) as isize)),
            Action::PageDown => self.step(view::groups::page(&self.screen()) as isize),
            Action::Top => self.step(isize::MIN / 2),
            Action::Bottom => self.step(isize::MAX / 2),
            Action::Left => self.set_focus(self.layout().neighbour(self.focus, false)),
            Action::Right => self.set_focus(self.layout().neighbour(self.focus, true)),
            Action::NextPane => self.set_focus(self.focus.next()),
            Action::PrevPane => self.set_focus(self.focus.prev()),
            Action::SelectTokenizer(i) => self.select_tokenizer(i),
            Action::PrevTokenizer => {
                let n = self.tokenizers.len().max(1);
                self.select_tokenizer((self.tokenizers.selected + n - 1) % n);
            }
            Action::NextTokenizer => {
                let n = self.tokenizers.len().max(1);
                self.select_tokenizer((self.tokenizers.selected + 1) % n);
            }
            Action::Drill => self.drill(),
            Action::Back => self.back(),
            Action::StartSearch => self.open_prompt(PromptKind::Search),
            Action::PromptK => self.open_prompt(PromptKind::K),
            Action::PromptMinSize => self.open_prompt(PromptKind::MinSize),
            Action::SearchNext => self.jump_to_match(true),
            Action::SearchPrev => self.jump_to_match(false),
            Action::CycleSort => self.cycle_sort(),
            Action::Reload => return self.reevaluate(self.tokenizers.selected, "reload asked"),
            Action::KUp => self.step_k(true),
            Action::KDown => self.step_k(false),
            Action::Input(c) => self.type_char(c),
            Action::InputBackspace => {
                self.prompt.backspace();
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

    /// Shows `notice` in the status line until the next key.
    fn say(&mut self, notice: Notice) {
        self.notice = Some(notice);
    }
}
