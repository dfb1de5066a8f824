//! Snapshot tests of every pane at 80x24 and 160x48 on fixed data (ratatui `TestBackend` +
//! insta). `INSTA_UPDATE=always cargo test --release --test tui_render` accepts new ones.

#[allow(dead_code)]
#[path = "../src/tui/mod.rs"]
mod tui;

#[allow(dead_code)]
#[path = "common/tui_fixture.rs"]
mod fixture;

use fixture::{draw, fresh, loaded, screen};
use ratatui::style::Modifier;
use tui::action::Action;
use tui::jobs::{JobEvent, JobMsg, Target};
use tui::layout::Pane;

fn focus(width: u16, height: u16, pane: Pane) -> tui::app::App {
    let mut app = loaded(width, height);
    while app.focus != pane {
        app.update(Action::NextPane);
    }
    app
}

#[test]
fn loading_state_shows_progress() {
    let mut app = fresh(80, 24);
    insta::assert_snapshot!("loading_80x24", draw(&app).backend());
    app.on_job(JobMsg {
        target: Target::Index(0),
        generation: 0,
        event: JobEvent::Progress {
            stage: "grouping".into(),
            done: 0,
            total: 0,
        },
    });
    let text = screen(&app);
    assert!(text.contains("loading the index: grouping…"), "{text}");
    assert!(
        text.contains("loading: items starting… · alpha grouping…"),
        "{text}"
    );
}

#[test]
fn groups_80x24() {
    insta::assert_snapshot!("groups_80x24", draw(&loaded(80, 24)).backend());
}

#[test]
fn detail_80x24() {
    insta::assert_snapshot!("detail_80x24", draw(&focus(80, 24, Pane::Detail)).backend());
}

#[test]
fn metrics_80x24() {
    insta::assert_snapshot!(
        "metrics_80x24",
        draw(&focus(80, 24, Pane::Metrics)).backend()
    );
}

#[test]
fn scatter_80x24() {
    insta::assert_snapshot!(
        "scatter_80x24",
        draw(&focus(80, 24, Pane::Scatter)).backend()
    );
}

#[test]
fn all_panes_160x48() {
    insta::assert_snapshot!("all_160x48", draw(&loaded(160, 48)).backend());
}

#[test]
fn three_panes_120x30() {
    insta::assert_snapshot!("three_120x30", draw(&loaded(120, 30)).backend());
}

#[test]
fn help_overlay() {
    for (w, h) in [(80, 24), (160, 48)] {
        let mut app = loaded(w, h);
        app.update(Action::ToggleHelp);
        insta::assert_snapshot!(format!("help_{w}x{h}"), draw(&app).backend());
    }
}

#[test]
fn too_small() {
    insta::assert_snapshot!("too_small_50x12", draw(&loaded(50, 12)).backend());
}

#[test]
fn failed_load_names_the_file() {
    let mut app = fresh(80, 24);
    app.on_job(JobMsg {
        target: Target::Index(0),
        generation: 0,
        event: JobEvent::Failed("alpha.json: line 3, column 7: expected a list of codes".into()),
    });
    let text = screen(&app);
    assert!(text.contains("could not load the index:"), "{text}");
    assert!(text.contains("alpha.json: line 3, column 7"), "{text}");
}

#[test]
fn selection_is_reverse_video_without_colour() {
    let app = loaded(80, 24);
    let terminal = draw(&app);
    let buffer = terminal.backend().buffer();
    // Row 4 is the first group row: header, pane tabs, border, column headers.
    let cell = &buffer[(5, 4)];
    assert!(cell.modifier.contains(Modifier::REVERSED));
    assert_eq!(cell.fg, ratatui::style::Color::Reset);
    let unselected = &buffer[(5, 5)];
    assert!(!unselected.modifier.contains(Modifier::REVERSED));
}

#[test]
fn search_matches_are_marked() {
    let mut app = loaded(80, 24);
    for c in "/caliper".chars() {
        let action = if c == '/' {
            Action::StartSearch
        } else {
            Action::Input(c)
        };
        app.update(action);
    }
    app.update(Action::InputSubmit);
    let text = screen(&app);
    assert!(text.contains("match 1 of 1 for \"caliper\""), "{text}");
}
