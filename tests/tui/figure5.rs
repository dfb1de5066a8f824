//! The paper's Figure 5 view in the TUI: the collaborative space beside the textual one (tabs
//! at 80x24, side by side when wide), the tightest groups highlighted in both, and each group's
//! mean intra-group distance in both spaces. `INSTA_UPDATE=always cargo test --release --test
//! tui_figure5` accepts new snapshots.

#[allow(dead_code)]
use crate::fixture;

use std::sync::mpsc::channel;

use fixture::{draw, loaded, screen};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use sidlens::load::Latents;
use sidlens::progress::CancelFlag;
use sidlens::projection::ProjectionParams;
use sidlens::tui;
use tui::app::App;
use tui::jobs::{self, JobEvent, Request};
use tui::keys;
use tui::layout::{Pane, inner};
use tui::spaces::Space;

fn press(app: &mut App, c: char) {
    let key = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
    if let Some(action) = keys::map(app.mode, app.focus, key) {
        app.update(action);
    }
}

fn key(app: &mut App, code: KeyCode) {
    if let Some(action) = keys::map(app.mode, app.focus, KeyEvent::new(code, KeyModifiers::NONE)) {
        app.update(action);
    }
}

fn scatter(width: u16, height: u16) -> App {
    let mut app = loaded(width, height);
    while app.focus != Pane::Scatter {
        app.update(tui::action::Action::NextPane);
    }
    app
}

/// Mean of 1 − cos over the pairs of `rows`, written out here to check the app's figure.
fn mean_cosine_distance(space: &Latents, rows: &[usize]) -> f64 {
    let vector = |r: usize| {
        let mut v = vec![0.0; space.dim()];
        space.row_into(r, &mut v);
        v
    };
    let mut sum = 0.0;
    let mut pairs = 0.0;
    for (i, &a) in rows.iter().enumerate() {
        for &b in &rows[i + 1..] {
            let (x, y) = (vector(a), vector(b));
            let dot: f64 = x.iter().zip(&y).map(|(p, q)| p * q).sum();
            let nx = x.iter().map(|p| p * p).sum::<f64>().sqrt();
            let ny = y.iter().map(|p| p * p).sum::<f64>().sqrt();
            sum += 1.0 - dot / (nx * ny).max(1e-12);
            pairs += 1.0;
        }
    }
    sum / pairs
}

/// Two decimals, four below 0.01 (where "0.00" would hide which group is tighter).
fn shown(d: f64) -> String {
    if d != 0.0 && d < 0.01 {
        format!("{d:.4}")
    } else {
        format!("{d:.2}")
    }
}

/// The rows inside the scatter pane: the plots' rows (under the headings or the tab bar)
/// and the legend's rows (from the one that starts with the key to the bottom).
fn plot_and_legend_rows(app: &App, top_rows: u16) -> (Vec<String>, Vec<String>) {
    let area = inner(app.layout().pane(Pane::Scatter).unwrap());
    let terminal = draw(app);
    let buffer = terminal.backend().buffer();
    let rows: Vec<String> = (area.y + top_rows..area.bottom())
        .map(|y| {
            (area.x..area.right())
                .map(|x| buffer[(x, y)].symbol())
                .collect()
        })
        .collect();
    let start = rows
        .iter()
        .position(|r| r.contains("tightest groups of") || r.contains(" (c):"))
        .expect("a legend");
    let legend = rows[start..].to_vec();
    let mut plot = rows;
    plot.truncate(start);
    (plot, legend)
}

fn braille(c: char) -> bool {
    ('\u{2800}'..='\u{28ff}').contains(&c)
}

/// No legend text on the plot rows (only dots, the marks and the group numbers), no dot on
/// the legend rows, and the plot keeps at least half of the rows.
fn assert_apart(plot: &[String], legend: &[String]) {
    for row in plot {
        assert!(
            row.chars().all(|c| braille(c) || " ✚∘◉12345".contains(c)),
            "legend text on a plot row: {row:?}\n{legend:#?}"
        );
    }
    for row in legend {
        assert!(
            !row.chars().any(braille),
            "plot dots on a legend row: {row:?}"
        );
    }
    assert!(
        plot.len() >= legend.len(),
        "{} vs {}",
        plot.len(),
        legend.len()
    );
}

#[test]
fn tabs_at_80x24() {
    let mut app = scatter(80, 24);
    assert!(app.scatter.collaborative.ready().is_some());
    press(&mut app, 'v');
    assert_eq!(app.scatter.space, Space::Collaborative);
    press(&mut app, 't');
    assert!(app.scatter.tightest);
    insta::assert_snapshot!("figure5_tabs_80x24", draw(&app).backend());
    let text = screen(&app);
    assert!(text.contains(" Textual │ Collaborative "), "{text}");
    press(&mut app, 'v');
    assert_eq!(
        app.scatter.space,
        Space::Textual,
        "no room for both: back to the text"
    );
}

#[test]
fn side_by_side_at_200x50() {
    let mut app = scatter(200, 50);
    press(&mut app, 'v');
    press(&mut app, 'v');
    assert_eq!(app.scatter.space, Space::Both);
    press(&mut app, 't');
    key(&mut app, KeyCode::Down);
    insta::assert_snapshot!("figure5_both_200x50", draw(&app).backend());
    let text = screen(&app);
    assert!(text.contains("textual · t-SNE of latents.npy"), "{text}");
    assert!(
        text.contains("collaborative · PPMI + SVD of inter.json"),
        "{text}"
    );
    assert!(text.contains("2 tightest groups of 3+ items"), "{text}");
    press(&mut app, 'v');
    assert_eq!(app.scatter.space, Space::Textual);
}

#[test]
fn side_by_side_the_legend_is_one_strip_under_both_plots() {
    let mut app = scatter(200, 50);
    press(&mut app, 'v');
    press(&mut app, 'v');
    press(&mut app, 't');
    key(&mut app, KeyCode::Down);
    let (plot, legend) = plot_and_legend_rows(&app, 1);
    assert_apart(&plot, &legend);
    let text = legend.join("\n");
    assert!(
        text.contains("mean cosine distance textual / collaborative:"),
        "{text}"
    );
    // Each tightest group once, with its distance in the text and by interactions.
    let data = app.tokenizers.data().unwrap().clone();
    let textual = app.scatter.projection.ready().unwrap().embeddings.clone();
    let cf = app
        .scatter
        .collaborative
        .ready()
        .unwrap()
        .embeddings
        .clone();
    let tight = app.scatter.spreads.clone().unwrap().tightest.clone();
    assert_eq!(tight.len(), 2);
    for (rank, group) in tight.iter().enumerate() {
        let row = &data.rows[data.row_of(*group).unwrap()];
        let rows: Vec<usize> = row.items.iter().map(|i| i.id.parse().unwrap()).collect();
        let want = format!("■{} #{} {}×", rank + 1, row.rank, row.size);
        assert_eq!(text.matches(&want).count(), 1, "{want}\n{text}");
        let apart = format!(
            "{} / {}",
            shown(mean_cosine_distance(&textual, &rows)),
            shown(mean_cosine_distance(&cf, &rows))
        );
        assert_eq!(text.matches(&apart).count(), 1, "{apart}\n{text}");
    }
    assert_eq!(text.matches("▸■2").count(), 1, "↓ points at the second");
    for once in ["✚ item", "∘ nearest", "◉ group"] {
        assert_eq!(text.matches(once).count(), 1, "{once}\n{text}");
    }
    assert!(text.contains("\ntextual: all 16 items"), "{text}");
    assert!(text.contains("\ncollaborative: all 16 items"), "{text}");
}

#[test]
fn tabs_keep_the_legend_under_the_plot_in_whole_lines_at_80x24() {
    let mut app = scatter(80, 24);
    press(&mut app, 't');
    key(&mut app, KeyCode::Down);
    for space in [Space::Textual, Space::Collaborative] {
        assert_eq!(app.scatter.space, space);
        let (plot, legend) = plot_and_legend_rows(&app, 1);
        assert_apart(&plot, &legend);
        let text = legend
            .iter()
            .map(|r| r.trim_end())
            .collect::<Vec<_>>()
            .join(" ");
        let apart = sidlens::tui::spaces::apart_text(
            &app.scatter.spreads.as_ref().unwrap().by_group[&app.screen().tight_group().unwrap()],
        );
        assert!(text.contains(&apart), "{apart}\n{legend:#?}");
        assert!(
            legend
                .iter()
                .any(|r| r.starts_with("▸■2 ") || r.contains(" ▸■2 ")),
            "{legend:#?}"
        );
        // Each group's entry whole on one row: its colour and its distance in this space.
        let embeddings = match space {
            Space::Collaborative => app
                .scatter
                .collaborative
                .ready()
                .unwrap()
                .embeddings
                .clone(),
            _ => app.scatter.projection.ready().unwrap().embeddings.clone(),
        };
        let data = app.tokenizers.data().unwrap().clone();
        for (rank, group) in app
            .scatter
            .spreads
            .clone()
            .unwrap()
            .tightest
            .iter()
            .enumerate()
        {
            let row = &data.rows[data.row_of(*group).unwrap()];
            let rows: Vec<usize> = row.items.iter().map(|i| i.id.parse().unwrap()).collect();
            let mark = format!("■{} ", rank + 1);
            let d = format!(" {}", shown(mean_cosine_distance(&embeddings, &rows)));
            assert!(
                legend
                    .iter()
                    .any(|r| r.split(&mark).nth(1).is_some_and(|entry| entry
                        .split('■')
                        .next()
                        .unwrap()
                        .contains(&d))),
                "{mark}…{d} on one row\n{legend:#?}"
            );
        }
        press(&mut app, 'v');
    }
}

#[test]
fn the_detail_says_how_far_apart_the_group_is_in_both_spaces() {
    let app = loaded(160, 48);
    let row = app.tokenizers.selected_row().unwrap();
    let rows: Vec<usize> = row.items.iter().map(|i| i.id.parse().unwrap()).collect();
    let textual = mean_cosine_distance(&app.scatter.projection.ready().unwrap().embeddings, &rows);
    let cf = mean_cosine_distance(
        &app.scatter.collaborative.ready().unwrap().embeddings,
        &rows,
    );
    assert!(
        cf > textual + 0.3,
        "the fixture's users split the group: {textual} vs {cf}"
    );
    let want = format!(
        "textually {} apart, {} apart by interactions",
        shown(textual),
        shown(cf)
    );
    let text = screen(&app);
    assert!(text.contains(&want), "{want}\n{text}");
}

#[test]
fn tightest_groups_are_the_smallest_mean_distance_of_three_or_more() {
    let mut app = scatter(160, 48);
    press(&mut app, 't');
    let spreads = app.scatter.spreads.clone().unwrap();
    let data = app.tokenizers.data().unwrap().clone();
    let textual = app.scatter.projection.ready().unwrap().embeddings.clone();
    let mut want: Vec<(f64, u32)> = data
        .rows
        .iter()
        .filter(|r| r.size >= 3)
        .map(|r| {
            let rows: Vec<usize> = r.items.iter().map(|i| i.id.parse().unwrap()).collect();
            (mean_cosine_distance(&textual, &rows), r.group)
        })
        .collect();
    want.sort_by(|a, b| a.0.total_cmp(&b.0));
    let want: Vec<u32> = want.iter().take(5).map(|w| w.1).collect();
    assert_eq!(spreads.tightest, want);
    press(&mut app, 't');
    assert!(!app.scatter.tightest);
}

#[test]
fn enter_opens_the_tightest_group_the_legend_points_at() {
    let mut app = scatter(80, 24);
    let largest = app.tokenizers.selected_row().unwrap().group;
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.focus,
        Pane::Detail,
        "without t, Enter opens the selected group"
    );
    assert_eq!(app.tokenizers.selected_row().unwrap().group, largest);
    key(&mut app, KeyCode::Esc);
    while app.focus != Pane::Scatter {
        app.update(tui::action::Action::NextPane);
    }
    press(&mut app, 't');
    let tight = app.scatter.spreads.clone().unwrap().tightest.clone();
    assert_eq!(tight.len(), 2, "the fixture has two groups of 3+ items");
    assert_ne!(tight[0], largest, "the tightest group is not the largest");
    assert_eq!(app.screen().tight_group(), Some(tight[0]));
    assert!(screen(&app).contains("▸■1 "), "{}", screen(&app));
    key(&mut app, KeyCode::Down);
    assert_eq!(app.screen().tight_group(), Some(tight[1]));
    assert_eq!(
        app.tokenizers.selected_row().unwrap().group,
        tight[1],
        "↓ selects it"
    );
    key(&mut app, KeyCode::Down);
    assert_eq!(app.screen().tight_group(), Some(tight[1]), "the last stays");
    key(&mut app, KeyCode::Up);
    insta::assert_snapshot!("figure5_pointed_80x24", draw(&app).backend());
    let text = screen(&app);
    assert!(text.contains("▸■1 ") && !text.contains("▸■2"), "{text}");
    // The list moved elsewhere: Enter still opens the group ▸ marks, not the selected one.
    app.update(tui::action::Action::PrevPane);
    while app.focus != Pane::Groups {
        app.update(tui::action::Action::NextPane);
    }
    app.update(tui::action::Action::Bottom);
    assert_ne!(app.tokenizers.selected_row().unwrap().group, tight[0]);
    while app.focus != Pane::Scatter {
        app.update(tui::action::Action::NextPane);
    }
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Detail);
    assert_eq!(app.tokenizers.selected_row().unwrap().group, tight[0]);
}

#[test]
fn the_collaborative_job_stops_when_cancelled() {
    let app = loaded(80, 24);
    let dir = tempfile::tempdir().unwrap();
    let interactions = dir.path().join("inter.json");
    std::fs::write(&interactions, fixture::INTERACTIONS).unwrap();
    let cancel = CancelFlag::default();
    cancel.cancel();
    let (tx, rx) = channel();
    let request = Request::Collaborative {
        interactions,
        data: app.tokenizers.data().unwrap().clone(),
        n_rows: None,
        params: ProjectionParams::default(),
        highlight: 5,
    };
    jobs::run(request, 3, &cancel, &tx);
    drop(tx);
    let last = rx.into_iter().last().unwrap();
    assert_eq!(last.generation, 3);
    match last.event {
        JobEvent::Failed(e) => assert!(e.contains("cancel"), "{e}"),
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn a_colour_key_without_groups_says_so() {
    let mut app = scatter(80, 24);
    app.update(tui::action::Action::SelectTokenizer(1));
    press(&mut app, 't');
    assert!(app.scatter.tightest);
    let text = screen(&app);
    assert!(
        text.contains("tightest groups of 3+ items (t), mean cosine distance here: none among"),
        "beta's only group has 2 items:\n{text}"
    );
    press(&mut app, 't');
    let text = screen(&app);
    assert!(
        text.contains("by collision group (c): ■1"),
        "beta has one group of 2:\n{text}"
    );
}
