//! Input handling: every key of the key table changes the state as documented, mouse clicks
//! and the wheel hit what the layout shows, and random key and mouse sequences never panic.

#[allow(dead_code)]
use crate::fixture;

use fixture::{indexes_only, loaded, screen};
use proptest::prelude::*;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use sidlens::tui;
use tui::action::Action;
use tui::app::App;
use tui::keys::{self, InputMode};
use tui::layout::{Pane, inner};
use tui::state::groups::SortKey;
use tui::state::metrics::MetricsState;
use tui::state::prompt::PromptKind;

/// Presses a key the way the event loop does: map it in the current mode and pane, update.
fn press(app: &mut App, code: KeyCode) {
    press_with(app, code, KeyModifiers::NONE);
}

fn press_with(app: &mut App, code: KeyCode, modifiers: KeyModifiers) {
    if let Some(action) = keys::map(app.mode, app.focus, KeyEvent::new(code, modifiers)) {
        app.update(action);
    }
}

fn chars(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

fn cursor(app: &App) -> usize {
    app.tokenizers.shown().unwrap().list.cursor
}

fn selected_size(app: &App) -> usize {
    app.tokenizers.selected_row().unwrap().size
}

#[test]
fn up_down_and_vim_keys_move_the_group_cursor() {
    let mut app = loaded(80, 24);
    assert_eq!(selected_size(&app), 4, "largest group first");
    press(&mut app, KeyCode::Down);
    assert_eq!(cursor(&app), 1);
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(cursor(&app), 2);
    press(&mut app, KeyCode::Char('k'));
    assert_eq!(cursor(&app), 1);
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Up);
    assert_eq!(cursor(&app), 0);
}

#[test]
fn paging_and_ends() {
    let mut app = loaded(80, 24);
    press(&mut app, KeyCode::PageDown);
    assert_eq!(cursor(&app), 3, "four groups: a page reaches the last");
    press(&mut app, KeyCode::PageUp);
    assert_eq!(cursor(&app), 0);
    press(&mut app, KeyCode::Char('G'));
    assert_eq!(cursor(&app), 3);
    press(&mut app, KeyCode::Char('g'));
    assert_eq!(cursor(&app), 0);
    press(&mut app, KeyCode::End);
    assert_eq!(cursor(&app), 3);
    press(&mut app, KeyCode::Home);
    assert_eq!(cursor(&app), 0);
    press_with(&mut app, KeyCode::Char('f'), KeyModifiers::CONTROL);
    assert_eq!(cursor(&app), 3);
    press_with(&mut app, KeyCode::Char('b'), KeyModifiers::CONTROL);
    assert_eq!(cursor(&app), 0);
}

#[test]
fn tab_shift_tab_and_left_right_move_between_panes() {
    let mut app = loaded(80, 24);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Detail);
    press(&mut app, KeyCode::BackTab);
    assert_eq!(app.focus, Pane::Groups);
    press(&mut app, KeyCode::Char('l'));
    assert_eq!(app.focus, Pane::Detail, "tabs: right is the next tab");
    press(&mut app, KeyCode::Char('h'));
    assert_eq!(app.focus, Pane::Groups);
    let mut big = loaded(160, 48);
    press(&mut big, KeyCode::Right);
    assert_eq!(big.focus, Pane::Metrics, "grid: right of Groups is Metrics");
    press(&mut big, KeyCode::Left);
    assert_eq!(big.focus, Pane::Groups);
}

#[test]
fn digits_and_brackets_pick_tokenizers() {
    let mut app = loaded(80, 24);
    press(&mut app, KeyCode::Char('2'));
    assert_eq!(app.tokenizers.selected, 1);
    assert_eq!(selected_size(&app), 2, "beta has one group of 2");
    press(&mut app, KeyCode::Char('9'));
    assert_eq!(app.tokenizers.selected, 1, "no tokenizer 9");
    assert!(app.notice.as_ref().unwrap().text.contains("no tokenizer 9"));
    press(&mut app, KeyCode::Char('['));
    assert_eq!(app.tokenizers.selected, 0);
    press(&mut app, KeyCode::Char('['));
    assert_eq!(app.tokenizers.selected, 1, "wraps around");
    press(&mut app, KeyCode::Char(']'));
    assert_eq!(app.tokenizers.selected, 0);
}

#[test]
fn enter_drills_and_esc_goes_back() {
    let mut app = loaded(80, 24);
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    assert!(screen(&app).contains("Digital Caliper 150mm"));
    press(&mut app, KeyCode::Down);
    assert_eq!(app.tokenizers.shown().unwrap().detail.scroll, 1);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.focus, Pane::Groups);
    assert_eq!(cursor(&app), 1, "the selection is kept");
    app.update(Action::NextPane);
    app.update(Action::NextPane);
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(
        app.tokenizers.selected, 1,
        "up/down in metrics pick the tokenizer"
    );
    press(&mut app, KeyCode::Enter);
    assert_eq!((app.focus, app.tokenizers.selected), (Pane::Groups, 1));
}

#[test]
fn search_by_title_id_and_sid_with_n_and_shift_n() {
    let mut app = loaded(80, 24);
    press(&mut app, KeyCode::Char('/'));
    assert_eq!(app.mode, InputMode::Typing);
    chars(&mut app, "printer");
    assert_eq!(cursor(&app), 0, "live search jumps to the first match");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.mode, InputMode::Normal);
    assert_eq!(app.prompt.search.as_ref().unwrap().matches, vec![0]);
    press(&mut app, KeyCode::Char('/'));
    chars(&mut app, "Nozzle");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.tokenizers.selected_row().unwrap().items[0].id, "7");
    press(&mut app, KeyCode::Char('/'));
    chars(&mut app, "1 2 3");
    press(&mut app, KeyCode::Enter);
    let matches = app.prompt.search.as_ref().unwrap().matches.clone();
    assert_eq!(matches.len(), 2, "two groups start with 1 2 3");
    let first = cursor(&app);
    press(&mut app, KeyCode::Char('n'));
    assert_ne!(cursor(&app), first);
    press(&mut app, KeyCode::Char('N'));
    assert_eq!(cursor(&app), first);
    press(&mut app, KeyCode::Char('/'));
    chars(&mut app, "<b_6>");
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected_size(&app), 3);
    press(&mut app, KeyCode::Char('/'));
    chars(&mut app, "10");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.tokenizers.selected_row().unwrap().items[1].id, "10");
    press(&mut app, KeyCode::Char('/'));
    chars(&mut app, "12");
    press(&mut app, KeyCode::Enter);
    let notice = app.notice.clone().unwrap().text;
    assert!(
        notice.contains("item 12 has SID <a_9><b_9><c_9><d_9> to itself"),
        "{notice}"
    );
    press(&mut app, KeyCode::Esc);
    assert!(app.prompt.search.is_none(), "Esc clears the search");
    press(&mut app, KeyCode::Char('/'));
    chars(&mut app, "q");
    assert!(!app.should_quit, "q is text while typing");
    press(&mut app, KeyCode::Backspace);
    assert_eq!(app.prompt.open.as_ref().unwrap().text, "");
    press(&mut app, KeyCode::Esc);
    assert_eq!(
        (app.mode, app.prompt.search.is_none()),
        (InputMode::Normal, true)
    );
}

#[test]
fn sort_cycles_and_says_what_it_needs() {
    let mut app = loaded(80, 24);
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(app.groups.sort, SortKey::Inflation);
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(app.groups.sort, SortKey::Saving);
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(app.groups.sort, SortKey::Size);
}

#[test]
fn m_filters_by_minimum_size() {
    let mut app = loaded(80, 24);
    press(&mut app, KeyCode::Char('m'));
    assert_eq!(app.prompt.open.as_ref().unwrap().kind, PromptKind::MinSize);
    chars(&mut app, "3x");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.groups.min_size, 3);
    assert_eq!(app.tokenizers.shown().unwrap().list.order.len(), 2);
    press(&mut app, KeyCode::Char('m'));
    chars(&mut app, "1");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.groups.min_size, 3, "1 is refused");
    press(&mut app, KeyCode::Char('m'));
    chars(&mut app, "9");
    press(&mut app, KeyCode::Enter);
    assert!(screen(&app).contains("no group has 9 or more items"));
    press(&mut app, KeyCode::Char('m'));
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.groups.min_size, 2, "empty means the default");
}

#[test]
fn plus_minus_and_k_prompt_set_k() {
    let mut app = indexes_only(80, 24);
    assert_eq!(app.metrics.k, 10);
    press(&mut app, KeyCode::Char('+'));
    assert_eq!(app.metrics.k, 20);
    press(&mut app, KeyCode::Char('+'));
    assert_eq!(app.metrics.k, 20, "20 is the largest step without beams");
    press(&mut app, KeyCode::Char('-'));
    press(&mut app, KeyCode::Char('-'));
    assert_eq!(app.metrics.k, 5);
    press(&mut app, KeyCode::Char('='));
    assert_eq!(app.metrics.k, 10);
    press(&mut app, KeyCode::Char('K'));
    chars(&mut app, "7");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.metrics.k, 7);
    press(&mut app, KeyCode::Char('+'));
    assert_eq!(app.metrics.k, 10, "from 7, + goes to the next step");
    press(&mut app, KeyCode::Char('K'));
    chars(&mut app, "0");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.metrics.k, 10, "0 is refused");
    assert!(app.notice.as_ref().unwrap().text.contains("from 1 to 20"));
}

#[test]
fn k_stops_at_the_beam_width() {
    let mut app = loaded(80, 24);
    assert_eq!(app.tokenizers.max_k(), 3, "the fixture's longest beam list");
    assert_eq!(MetricsState::k_steps(app.tokenizers.max_k()), vec![1, 3]);
    press(&mut app, KeyCode::Char('+'));
    assert_eq!(app.metrics.k, 10, "already beyond the width");
    press(&mut app, KeyCode::Char('-'));
    assert_eq!(app.metrics.k, 3);
    press(&mut app, KeyCode::Char('-'));
    assert_eq!(app.metrics.k, 1);
    press(&mut app, KeyCode::Char('+'));
    assert_eq!(app.metrics.k, 3);
    press(&mut app, KeyCode::Char('K'));
    chars(&mut app, "4");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.metrics.k, 3, "4 is beyond the width");
    assert!(app.notice.as_ref().unwrap().text.contains("from 1 to 3"));
}

#[test]
fn help_opens_scrolls_and_closes() {
    let mut app = loaded(160, 48);
    press(&mut app, KeyCode::Char('?'));
    assert_eq!(app.mode, InputMode::Help);
    let text = screen(&app);
    for b in keys::BINDINGS.iter().take(12) {
        let start: String = b.description.chars().take(40).collect();
        assert!(text.contains(&start), "help lists {:?}", b.label);
    }
    press(&mut app, KeyCode::Char('j'));
    press(&mut app, KeyCode::PageDown);
    assert!(app.overlays.help_scroll > 1);
    assert_eq!(cursor(&app), 0, "keys scroll the help, not the list");
    press(&mut app, KeyCode::Char('q'));
    assert_eq!(app.mode, InputMode::Normal);
    assert!(!app.should_quit, "q closes the help first");
    press(&mut app, KeyCode::Char('?'));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.mode, InputMode::Normal);
}

#[test]
fn q_and_ctrl_c_quit() {
    let mut app = loaded(80, 24);
    press(&mut app, KeyCode::Char('q'));
    assert!(app.should_quit);
    for setup in ['/', '?', 'K'] {
        let mut app = loaded(80, 24);
        press(&mut app, KeyCode::Char(setup));
        press_with(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert!(app.should_quit, "Ctrl-C quits after {setup}");
    }
}

#[test]
fn mouse_clicks_select_rows_tabs_and_tokenizers() {
    let mut app = loaded(160, 48);
    let layout = app.layout();
    let groups = inner(layout.pane(Pane::Groups).unwrap());
    app.update(Action::Click {
        column: groups.x + 2,
        row: groups.y + 3,
    });
    assert_eq!(cursor(&app), 2, "third group row (after the header line)");
    let detail = layout.pane(Pane::Detail).unwrap();
    app.update(Action::Click {
        column: detail.x + 2,
        row: detail.y + 2,
    });
    assert_eq!(app.focus, Pane::Detail);
    let metrics = inner(layout.pane(Pane::Metrics).unwrap());
    app.update(Action::Click {
        column: metrics.x + 2,
        row: metrics.y + 2,
    });
    assert_eq!((app.focus, app.tokenizers.selected), (Pane::Metrics, 1));
    let (i, tab) = layout.tokenizer_tabs[0];
    app.update(Action::Click {
        column: tab.x + 1,
        row: tab.y,
    });
    assert_eq!(app.tokenizers.selected, i);
    let mut small = loaded(80, 24);
    let (pane, tab) = small.layout().pane_tabs[3];
    small.update(Action::Click {
        column: tab.x,
        row: tab.y,
    });
    assert_eq!(small.focus, pane);
}

#[test]
fn mouse_wheel_scrolls_the_pane_under_the_pointer() {
    let mut app = loaded(160, 48);
    let groups = inner(app.layout().pane(Pane::Groups).unwrap());
    app.update(Action::ScrollDown {
        column: groups.x + 1,
        row: groups.y + 1,
    });
    assert_eq!(cursor(&app), 3);
    app.update(Action::ScrollUp {
        column: groups.x + 1,
        row: groups.y + 1,
    });
    assert_eq!(cursor(&app), 0);
    let detail = inner(app.layout().pane(Pane::Detail).unwrap());
    app.update(Action::ScrollDown {
        column: detail.x + 1,
        row: detail.y + 1,
    });
    assert_eq!(app.tokenizers.shown().unwrap().detail.scroll, 3);
    assert_eq!(app.focus, Pane::Groups, "the wheel does not move the focus");
}

#[test]
fn resizing_keeps_the_selection_visible() {
    let mut app = loaded(160, 48);
    press(&mut app, KeyCode::Char('G'));
    app.update(Action::Resize {
        width: 60,
        height: 15,
    });
    let t = app.tokenizers.shown().unwrap();
    assert!(t.list.offset <= t.list.cursor);
    assert!(screen(&app).contains("Lab Beaker"));
}

fn any_key() -> impl Strategy<Value = KeyEvent> {
    let codes = prop_oneof![
        any::<char>().prop_map(KeyCode::Char),
        prop::sample::select(vec![
            KeyCode::Up,
            KeyCode::Down,
            KeyCode::Left,
            KeyCode::Right,
            KeyCode::PageUp,
            KeyCode::PageDown,
            KeyCode::Home,
            KeyCode::End,
            KeyCode::Tab,
            KeyCode::BackTab,
            KeyCode::Enter,
            KeyCode::Esc,
            KeyCode::Backspace,
        ]),
        prop::sample::select(
            "jkhlgGnNsm+-=K?/[]0123456789q"
                .chars()
                .map(KeyCode::Char)
                .collect::<Vec<_>>()
        ),
    ];
    let modifiers = prop::sample::select(vec![
        KeyModifiers::NONE,
        KeyModifiers::SHIFT,
        KeyModifiers::CONTROL,
    ]);
    (codes, modifiers).prop_map(|(c, m)| KeyEvent::new(c, m))
}

#[derive(Debug, Clone)]
enum Input {
    Key(KeyEvent),
    Mouse(u8, u16, u16),
    Resize(u16, u16),
}

fn any_input() -> impl Strategy<Value = Input> {
    prop_oneof![
        8 => any_key().prop_map(Input::Key),
        2 => (0u8..3, 0u16..200, 0u16..60).prop_map(|(k, x, y)| Input::Mouse(k, x, y)),
        1 => (1u16..200, 1u16..60).prop_map(|(w, h)| Input::Resize(w, h)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_input_never_panics(inputs in prop::collection::vec(any_input(), 1..60)) {
        let mut app = loaded(80, 24);
        for input in inputs {
            let action = match input {
                Input::Key(k) => {
                    // Quitting ends the session; keep exploring instead.
                    let a = keys::map(app.mode, app.focus, k);
                    if a == Some(Action::Quit) { continue; }
                    a
                }
                Input::Mouse(0, column, row) => Some(Action::Click { column, row }),
                Input::Mouse(1, column, row) => Some(Action::ScrollUp { column, row }),
                Input::Mouse(_, column, row) => Some(Action::ScrollDown { column, row }),
                Input::Resize(width, height) => Some(Action::Resize { width, height }),
            };
            if let Some(action) = action {
                app.update(action);
            }
            screen(&app);
            if let Some(t) = app.tokenizers.shown() {
                prop_assert!(t.list.order.is_empty() || t.list.cursor < t.list.order.len());
            }
        }
    }
}

#[test]
fn r_reloads_the_beams_of_the_shown_tokenizer() {
    use tui::app::Command;
    use tui::jobs::Request;

    let mut app = loaded(80, 24);
    press(&mut app, KeyCode::Char('2'));
    let key = KeyEvent::new(KeyCode::Char('r'), KeyModifiers::NONE);
    let action = keys::map(app.mode, app.focus, key).unwrap();
    let commands = app.update(action);
    assert!(matches!(
        &commands[..],
        [Command::Start(Request::Evaluate { tokenizer: 1, .. }, _)]
    ));
    assert!(app.tokenizers[1].metrics.is_loading());
    assert!(
        app.notice
            .as_ref()
            .unwrap()
            .text
            .contains("beta: reload asked")
    );
    fixture::answer_all(&mut app, commands);
    assert!(app.tokenizers[1].metrics.ready().is_some());
    let mut early = fixture::fresh(80, 24);
    assert!(early.update(action).is_empty());
    assert!(early.notice.unwrap().text.contains("not loaded yet"));
}

#[test]
fn bracket_in_detail_follows_the_selected_item() {
    let mut app = loaded(80, 24);
    press(&mut app, KeyCode::Down);
    assert_eq!(
        app.tokenizers.member_id(),
        Some("4"),
        "alpha's group of 3 holds items 4, 5, 6"
    );
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('>'));
    assert_eq!(app.tokenizers.member_id(), Some("5"));
    press(&mut app, KeyCode::Char(']'));
    assert_eq!(app.tokenizers.shown().unwrap().name(), "beta");
    assert_eq!(
        app.tokenizers.member_id(),
        Some("5"),
        "item 5 is in beta's group of items 4 and 5"
    );
    assert_eq!(selected_size(&app), 2);
    press(&mut app, KeyCode::Char('['));
    assert_eq!(app.tokenizers.shown().unwrap().name(), "alpha");
    assert_eq!(app.tokenizers.member_id(), Some("5"));
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Char('<'));
    press(&mut app, KeyCode::Char('<'));
    assert_eq!(app.tokenizers.member_id(), Some("4"));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char(']'));
    let text = screen(&app);
    assert!(
        text.contains("in beta item 0 has SID <a_0><b_0><c_0><d_0> to itself"),
        "{text}"
    );
}

#[test]
fn searching_an_item_id_selects_that_item() {
    let mut app = loaded(80, 24);
    press(&mut app, KeyCode::Char('/'));
    chars(&mut app, "2");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.tokenizers.member_id(), Some("2"));
}

#[test]
fn item_view_opens_moves_between_groupmates_and_tokenizers() {
    let mut app = loaded(80, 24);
    press(&mut app, KeyCode::Char('i'));
    assert_eq!(app.mode, InputMode::Item);
    assert_eq!(app.overlays.item.as_deref(), Some("0"));
    press(&mut app, KeyCode::Right);
    assert_eq!(app.overlays.item.as_deref(), Some("1"));
    press(&mut app, KeyCode::Char(']'));
    assert_eq!(app.tokenizers.shown().unwrap().name(), "beta");
    assert_eq!(
        app.overlays.item.as_deref(),
        Some("1"),
        "the item stays while the tokenizer changes"
    );
    press(&mut app, KeyCode::Char('G'));
    let end = app.overlays.item_scroll;
    press(&mut app, KeyCode::Char('k'));
    assert_eq!(
        app.overlays.item_scroll,
        end.saturating_sub(1),
        "no dead zone after G"
    );
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.mode, InputMode::Normal);
}

#[test]
fn detail_ends_exactly_where_the_text_does() {
    for (w, h) in [(80, 24), (120, 30), (60, 15)] {
        let mut app = loaded(w, h);
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Char('G'));
        let end = app.tokenizers.shown().unwrap().detail.scroll;
        assert!(
            end > 0,
            "{w}x{h}: the fixture's detail is longer than the pane"
        );
        press(&mut app, KeyCode::Char('j'));
        assert_eq!(
            app.tokenizers.shown().unwrap().detail.scroll,
            end,
            "{w}x{h}"
        );
        press(&mut app, KeyCode::Char('k'));
        assert_eq!(
            app.tokenizers.shown().unwrap().detail.scroll,
            end - 1,
            "{w}x{h}"
        );
        press(&mut app, KeyCode::Char('G'));
        press(&mut app, KeyCode::PageUp);
        assert!(
            app.tokenizers.shown().unwrap().detail.scroll < end,
            "{w}x{h}: PgUp at once"
        );
    }
}

#[test]
fn help_g_and_end_reach_the_last_line() {
    let mut app = loaded(80, 24);
    press(&mut app, KeyCode::Char('?'));
    press(&mut app, KeyCode::End);
    let end = app.overlays.help_scroll;
    assert!(end > 0);
    assert!(screen(&app).contains("the selected item; items with the same title"));
    press(&mut app, KeyCode::Up);
    assert_eq!(app.overlays.help_scroll, end - 1);
    press(&mut app, KeyCode::Char('g'));
    assert_eq!(app.overlays.help_scroll, 0);
}

#[test]
fn metrics_sort_by_any_column_and_keep_the_selection() {
    let mut app = loaded(80, 24);
    while app.focus != Pane::Metrics {
        press(&mut app, KeyCode::Tab);
    }
    assert_eq!(app.screen().metrics_order(), vec![0, 1]);
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(app.metrics.sort, Some((0, false)), "by name first");
    press(&mut app, KeyCode::Char('S'));
    assert_eq!(
        app.screen().metrics_order(),
        vec![1, 0],
        "beta before alpha, Z→A"
    );
    press(&mut app, KeyCode::Down);
    assert_eq!(
        app.tokenizers.shown().unwrap().name(),
        "alpha",
        "down follows the shown order"
    );
    let text = screen(&app);
    assert!(text.contains("tokenizer▼"), "{text}");
}

#[test]
fn z_jumps_to_the_zcr_variant_or_says_why_not() {
    let mut app = loaded(80, 24);
    press(&mut app, KeyCode::Char('z'));
    let text = screen(&app);
    assert!(text.contains("alpha is not a *_native variant"), "{text}");
}

#[test]
fn scatter_wheel_zooms_and_a_click_picks_the_nearest_point() {
    let mut app = loaded(160, 48);
    let plot = inner(app.layout().pane(Pane::Scatter).unwrap());
    let (x, y) = (plot.x + plot.width / 2, plot.y + 2);
    app.update(Action::ScrollUp { column: x, row: y });
    assert_eq!(app.scatter.camera.zoom, 2.0);
    app.update(Action::ScrollDown { column: x, row: y });
    assert_eq!(app.scatter.camera.zoom, 1.0);
    assert_eq!(
        app.scatter.camera.centre, None,
        "fully zoomed out shows every point"
    );
    let picked = (plot.y..plot.y + plot.height / 2).any(|row| {
        (plot.x..plot.right()).any(|column| {
            app.update(Action::Click { column, row });
            app.notice
                .as_ref()
                .is_some_and(|n| n.text.starts_with("picked item"))
        })
    });
    assert!(picked, "some cell of the plot picks a point");
    assert_eq!(app.focus, Pane::Scatter);
    assert!(app.screen().picked_position().is_some());
    let near = app
        .scatter
        .camera
        .neighbours
        .as_ref()
        .expect("neighbours of the picked item");
    assert_eq!(near.near.len(), tui::state::scatter::NEIGHBOURS);
    assert!(
        near.near.windows(2).all(|w| w[0].1 <= w[1].1),
        "nearest first"
    );
    press_with(&mut app, KeyCode::Right, KeyModifiers::SHIFT);
    assert!(app.scatter.camera.centre.is_some(), "shift-arrows pan");
    press(&mut app, KeyCode::Char('0'));
    assert_eq!(
        (app.scatter.camera.zoom, app.scatter.camera.centre),
        (1.0, None)
    );
}
