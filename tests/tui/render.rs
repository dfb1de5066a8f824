//! Snapshot tests of every pane at 80x24 and 160x48 on fixed data (ratatui `TestBackend` +
//! insta). `INSTA_UPDATE=always cargo test --release --test tui_render` accepts new ones.

#[allow(dead_code)]
use crate::fixture;

use fixture::{draw, fresh, loaded, screen};
use ratatui::style::Modifier;
use sidlens::tui;
use tui::action::Action;
use tui::jobs::{JobEvent, JobMsg, Topic};
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
        target: Topic::Index(0),
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
        text.contains("loading: items starting… · alpha index grouping…"),
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
fn metrics_at_k1_show_inflation_and_the_rank_flip() {
    let mut app = focus(80, 24, Pane::Metrics);
    app.update(Action::KDown);
    app.update(Action::KDown);
    assert_eq!(app.metrics.k, 1);
    insta::assert_snapshot!("metrics_k1_80x24", draw(&app).backend());
    let text = screen(&app);
    assert!(
        text.contains("alpha ranks above beta by Hit@1 but below it by ItemHit@1"),
        "{text}"
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
        target: Topic::Index(0),
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

/// The TUI's group rows are the library's, so they equal `sidlens groups --json` on the same
/// files, and the screen lists them in that order.
#[test]
fn group_rows_agree_with_sidlens_groups() {
    use sidlens::load::TokenizerFiles;
    use std::sync::mpsc::channel;
    use tui::jobs::{JobEvent, Payload, Request, run};
    use tui::sources::Sources;

    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("alpha.index.json");
    std::fs::write(&index, fixture::ALPHA).unwrap();
    let items = dir.path().join("items.json");
    let texts: serde_json::Map<String, serde_json::Value> = (0..16)
        .map(|i| {
            let title = fixture::texts().title(&i.to_string()).unwrap().to_string();
            (i.to_string(), serde_json::json!({ "title": title }))
        })
        .collect();
    std::fs::write(&items, serde_json::to_string(&texts).unwrap()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sidlens"))
        .args(["groups", "--json", "--index"])
        .arg(&index)
        .arg("--items")
        .arg(&items)
        .output()
        .unwrap();
    assert!(out.status.success());
    let cli: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    let sources = Sources {
        title: "t".into(),
        tokenizers: vec![TokenizerFiles::index_only("alpha", &index)],
        items: Some(items.clone()),
        ..Sources::default()
    };
    let (tx, rx) = channel();
    run(Request::Load(sources.clone()), 0, &Default::default(), &tx);
    drop(tx);
    let mut app = tui::app::App::new(
        &sources,
        tui::theme::Theme::new(false),
        ratatui::layout::Rect::new(0, 0, 80, 24),
    )
    .0;
    let mut rows = None;
    for msg in rx {
        if let JobEvent::Done(Payload::Index(d)) = &msg.event {
            rows = Some(serde_json::to_value(&d.rows).unwrap());
        }
        app.on_job(msg);
    }
    assert_eq!(rows.unwrap(), cli);
    let text = screen(&app);
    let mut last = 0;
    for row in cli.as_array().unwrap() {
        let title = row["items"][0]["title"].as_str().unwrap();
        let line = format!(
            "┃{} {:>4} ",
            row["rank"].as_u64().unwrap(),
            row["size"].as_u64().unwrap()
        );
        let at = text
            .find(&line)
            .unwrap_or_else(|| panic!("{line:?} on screen:\n{text}"));
        assert!(at > last, "rows in the CLI's order");
        assert!(text[at..].lines().next().unwrap().contains(title));
        last = at;
    }
}

/// The reassignment rows the detail pane draws are the library's, so they equal
/// `sidlens zcr --groups --json` on the same files (titles aside, which the TUI adds).
#[test]
fn reassignment_rows_agree_with_sidlens_zcr() {
    use tui::state::slot::Slot;

    let dir = tempfile::tempdir().unwrap();
    let sources = fixture::write_files(dir.path());
    let alpha = &sources.tokenizers[0];
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sidlens"))
        .args([
            "zcr",
            "--groups",
            "--json",
            "--codebook-size",
            "16",
            "--index",
        ])
        .arg(&alpha.index)
        .arg("--latents")
        .arg(alpha.latents.as_ref().unwrap())
        .arg("--codebooks")
        .arg(alpha.codebooks.as_ref().unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let app = loaded(80, 24);
    let Slot::Ready(reassigned) = &app.tokenizers[0].reassign else {
        panic!("alpha's reassignment is loaded");
    };
    // Through text, as the CLI's output went: serde_json's float parsing may round the last
    // bit, and then it does so on both sides.
    let text = serde_json::to_string(&reassigned.rows).unwrap();
    let mut rows: serde_json::Value = serde_json::from_str(&text).unwrap();
    for row in rows.as_array_mut().unwrap() {
        for item in row["items"].as_array_mut().unwrap() {
            assert!(item.as_object_mut().unwrap().remove("title").is_some());
        }
    }
    assert_eq!(rows, cli["groups"]);
    assert_eq!(
        reassigned.plan.summary.optimal.total_delta,
        cli["optimal"]["total_delta"].as_f64()
    );
}

/// Sorting by inflation puts the most over-credited group first, by ZCR saving the group whose
/// prefix group saves most; both follow the library's numbers.
#[test]
fn sorting_by_inflation_and_saving_follows_the_library() {
    use tui::data::prefix_key;
    use tui::state::groups::SortKey;
    use tui::state::slot::Slot;

    let mut app = loaded(80, 24);
    app.update(Action::KDown);
    app.update(Action::KDown);
    app.update(Action::CycleSort);
    assert_eq!(app.groups.sort, SortKey::Inflation);
    let t = &app.tokenizers[0];
    let (Slot::Ready(data), Slot::Ready(m)) = (&t.data, &t.metrics) else {
        panic!("loaded");
    };
    let data = data.clone();
    let over: Vec<f64> = t
        .list
        .order
        .iter()
        .map(|&r| m.credit(data.rows[r].group, 1).map_or(0.0, |c| c.over()))
        .collect();
    assert!(over.windows(2).all(|w| w[0] >= w[1]), "{over:?}");
    assert!(over[0] > 0.0);
    assert!(screen(&app).contains("by inflation"));
    app.update(Action::CycleSort);
    assert_eq!(app.groups.sort, SortKey::Saving);
    let t = &app.tokenizers[0];
    let Slot::Ready(re) = &t.reassign else {
        panic!("loaded");
    };
    let saving: Vec<f64> = t
        .list
        .order
        .iter()
        .map(|&r| {
            re.saving(prefix_key(&data.rows[r].codes))
                .unwrap_or(f64::NEG_INFINITY)
        })
        .collect();
    assert!(saving.windows(2).all(|w| w[0] >= w[1]), "{saving:?}");
}

#[test]
fn detail_80x24_reaches_its_last_line_and_moves_at_once() {
    let mut app = focus(80, 24, Pane::Detail);
    let top = screen(&app);
    assert!(
        top.contains("ZCR saves 0.0315 (8.2%)"),
        "verdict pinned:\n{top}"
    );
    app.update(Action::Bottom);
    let end = screen(&app);
    assert!(
        end.contains("▸ items of the selected group; the others share its prefix"),
        "G shows the last line:\n{end}"
    );
    assert!(end.contains("ZCR saves 0.0315 (8.2%)"), "{end}");
    insta::assert_snapshot!("detail_end_80x24", draw(&app).backend());
    app.update(Action::Up);
    assert_ne!(screen(&app), end, "one k after G moves the view");
    app.update(Action::Bottom);
    app.update(Action::PageUp);
    assert_ne!(
        screen(&app),
        end,
        "PgUp after G moves the view the first time"
    );
}

/// A page of the detail pane moves by the lines it shows, never past lines no one saw: the
/// pinned verdict does not scroll, so it is not part of a page.
#[test]
fn detail_pages_skip_no_line_at_80x24() {
    let mut app = focus(80, 24, Pane::Detail);
    app.update(Action::Top);
    let inner = sidlens::tui::layout::inner(app.layout().pane(Pane::Detail).unwrap());
    let view = sidlens::tui::view::detail::view(&app.screen(), inner).unwrap();
    let page = sidlens::tui::view::groups::page(&app.screen());
    assert_eq!(page, view.height, "a page is the lines the pane scrolls");
    let before = app.tokenizers.shown().unwrap().detail.scroll;
    app.update(Action::PageDown);
    let moved = app.tokenizers.shown().unwrap().detail.scroll - before;
    assert!(moved > 0 && moved <= view.height, "PgDn moved {moved}");
}

#[test]
fn item_view_shows_all_text_and_every_tokenizer() {
    for (w, h) in [(80, 24), (160, 48)] {
        let mut app = loaded(w, h);
        app.update(Action::OpenItem);
        let text = screen(&app);
        assert!(text.contains("colour       graphite"), "{text}");
        assert!(text.contains("In every tokenizer"), "{text}");
        insta::assert_snapshot!(format!("item_{w}x{h}"), draw(&app).backend());
        app.update(Action::Bottom);
        let end = screen(&app);
        assert!(end.contains("greedy"), "{end}");
    }
}

#[test]
fn help_end_and_legend() {
    let mut app = loaded(80, 24);
    app.update(Action::ToggleHelp);
    app.update(Action::Bottom);
    let text = screen(&app);
    assert!(text.contains("Columns and marks"), "{text}");
    insta::assert_snapshot!("help_end_80x24", draw(&app).backend());
}

#[test]
fn metrics_sorted_by_hit() {
    let mut app = focus(80, 24, Pane::Metrics);
    for _ in 0..4 {
        app.update(Action::SortMetrics);
    }
    assert_eq!(app.metrics.sort, Some((3, true)));
    insta::assert_snapshot!("metrics_by_hit_80x24", draw(&app).backend());
}

#[test]
fn scatter_zoomed_coloured_by_prefix_with_neighbours() {
    let mut app = focus(160, 48, Pane::Scatter);
    app.update(Action::ZoomIn);
    app.update(Action::CycleColour);
    app.update(Action::CycleColour);
    let text = screen(&app);
    assert!(text.contains("by prefix group (c)"), "{text}");
    assert!(text.contains("∘ nearest: "), "{text}");
    assert!(text.contains("zoom ×2"), "{text}");
    insta::assert_snapshot!("scatter_zoomed_160x48", draw(&app).backend());
}

#[test]
fn codebook_view_with_and_without_interactions() {
    use sidlens::collab::interactions::CollisionInteractions;
    use sidlens::load::{Interactions, SidIndex, TokenizerFiles};
    use sidlens::tui::data::TokenizerData;
    use sidlens::usecase::Tokenizer;
    use sidlens::usecase::stats::IndexReport;
    use std::path::Path;
    use std::sync::Arc;

    let mut app = loaded(80, 24);
    app.update(Action::ToggleCodebook);
    insta::assert_snapshot!("codebook_80x24", draw(&app).backend());
    let text = screen(&app);
    assert!(text.contains("no sidecar says"), "{text}");
    assert!(text.contains("sidlens stats --interactions"), "{text}");

    let index =
        SidIndex::parse(fixture::ALPHA.as_bytes(), Path::new("alpha.json"), Some(16)).unwrap();
    let tokenizer = Tokenizer::of_index(TokenizerFiles::index_only("alpha", "alpha.json"), index);
    let interactions = Interactions::from_sequences(
        Path::new("i.json"),
        (0..6).map(|u| {
            let items: Vec<String> = (0..5).map(|k| ((u * 3 + k * k) % 16).to_string()).collect();
            (format!("u{u}"), items)
        }),
    )
    .unwrap();
    let mut report = IndexReport::of(&tokenizer, None).unwrap();
    report.interactions = Some((
        "i.json".into(),
        CollisionInteractions::compute(&tokenizer.index, &tokenizer.collisions, &interactions),
    ));
    let mut data = TokenizerData::new(tokenizer, report, None);
    data.remedy = Some("zcr optimal · over capacity: append".into());
    let _ = app.on_job(JobMsg {
        target: Topic::Index(0),
        generation: 0,
        event: JobEvent::Done(tui::jobs::Payload::Index(Arc::new(data))),
    });
    insta::assert_snapshot!("codebook_interactions_80x24", draw(&app).backend());
    let text = screen(&app);
    assert!(text.contains("benign:"), "{text}");
    assert!(text.contains("over capacity: append"), "{text}");
    app.update(Action::ToggleCodebook);
    assert!(!screen(&app).contains("Codebook ·"));
}
