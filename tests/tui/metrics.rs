//! The metrics pane on demo_data with three seed beams files per tokenizer (derived from the
//! demo beams): mean ± std, † exactly where `sidlens compare --json` calls a difference from
//! the column's best significant, the legend, and every flip with its verdict, scrolled to its
//! end; at 80x24 and 200x50. `INSTA_UPDATE=always cargo test --release --test tui_metrics`.

use crate::common;

use std::path::Path;
use std::sync::mpsc::channel;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use serde_json::Value;
use sidlens::load::TokenizerFiles;
use sidlens::progress::CancelFlag;
use sidlens::tui::action::Action;
use sidlens::tui::app::{App, Command};
use sidlens::tui::jobs;
use sidlens::tui::layout::Pane;
use sidlens::tui::sources::Sources;
use sidlens::tui::state::slot::Slot;
use sidlens::tui::theme::Theme;
use sidlens::tui::{ui, view};

const VARIANTS: [&str; 3] = [
    "rkmeans_v32_native",
    "rkmeans_v64_native",
    "rkmeans_v64_zcr",
];

/// The demo tokenizers, each with three seeds derived from its beams file.
fn seeded_runs(out: &Path) -> Vec<TokenizerFiles> {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo_data/indexes");
    VARIANTS
        .iter()
        .map(|v| TokenizerFiles {
            name: v.to_string(),
            index: demo.join(format!("{v}/Workshop.index.json")),
            beams: [42, 123, 2026]
                .iter()
                .map(|&s| common::derive_seed(&demo.join(format!("{v}/{v}.per_user.json")), s, out))
                .collect(),
            latents: None,
            codebooks: None,
            beams_sought: Vec::new(),
        })
        .collect()
}

/// Runs every command (and what its answers ask for) on this thread until none is left.
fn settle(app: &mut App, commands: Vec<Command>) {
    let mut pending = commands;
    while let Some(Command::Start(request, generation)) = pending.pop() {
        let (tx, rx) = channel();
        jobs::run(request, generation, &CancelFlag::default(), &tx);
        drop(tx);
        for msg in rx {
            pending.extend(app.on_job(msg));
        }
    }
}

/// The app on `runs`, everything loaded and tested, the metrics pane focused.
fn app(width: u16, height: u16, runs: &[TokenizerFiles]) -> App {
    let sources = Sources {
        title: "Workshop, 3 seeds".into(),
        tokenizers: runs.to_vec(),
        ..Sources::default()
    };
    let (mut app, commands) = App::new(&sources, Theme::new(false), Rect::new(0, 0, width, height));
    settle(&mut app, commands);
    while app.focus != Pane::Metrics {
        app.update(Action::NextPane);
    }
    assert!(
        matches!(app.metrics.tested, Slot::Ready(_)),
        "{:?}",
        app.metrics.tested
    );
    app
}

fn draw(app: &App) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(app.area.width, app.area.height)).unwrap();
    terminal.draw(|f| ui::render(app, f)).unwrap();
    terminal
}

fn screen(app: &App) -> Vec<String> {
    let terminal = draw(app);
    let buffer = terminal.backend().buffer();
    (0..buffer.area.height)
        .map(|y| {
            (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect()
        })
        .collect()
}

#[test]
fn seeds_and_significance_80x24() {
    let tmp = tempfile::tempdir().unwrap();
    let app = app(80, 24, &seeded_runs(tmp.path()));
    let text = screen(&app).join("\n");
    assert!(text.contains('†') && text.contains(" ± "), "{text}");
    assert!(text.contains("mean ± std over 3 seeds"), "{text}");
    insta::assert_snapshot!("metrics_seeds_80x24", draw(&app).backend());
}

#[test]
fn seeds_and_significance_200x50() {
    let tmp = tempfile::tempdir().unwrap();
    let app = app(200, 50, &seeded_runs(tmp.path()));
    insta::assert_snapshot!("metrics_seeds_200x50", draw(&app).backend());
}

#[test]
fn the_flip_list_scrolls_to_its_end_with_every_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = seeded_runs(tmp.path());
    let mut app = app(80, 24, &runs);
    app.update(Action::Bottom);
    let most = view::metrics::max_scroll(&app.screen());
    assert!(most > 0 && app.metrics.scroll == most, "{most}");
    let text = screen(&app).join("\n");
    insta::assert_snapshot!("metrics_seeds_flips_end_80x24", draw(&app).backend());
    // Every flip `compare` lists is in the pane's body, each with its verdict.
    let Slot::Ready(report) = &app.metrics.tested else {
        unreachable!()
    };
    let flips = sidlens::report::compare::report_flip_lines(report);
    assert!(flips.len() >= 3, "{flips:?}");
    let inner = sidlens::tui::layout::inner(app.layout().pane(Pane::Metrics).unwrap());
    let body: String = view::metrics::view(&app.screen(), inner)
        .body
        .iter()
        .map(|l| l.to_string().trim().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    for f in &flips {
        assert!(body.contains(f.as_str()), "{f}\n{body}");
        assert!(f.contains("significant"), "{f}");
    }
    assert!(text.contains("Holm-adjusted p ="), "{text}");
    // Back up to the table: up scrolls back first, then selects tokenizers again.
    app.update(Action::Top);
    assert_eq!(
        (app.metrics.scroll, app.tokenizers.selected),
        (0, app.screen().metrics_order()[0])
    );
}

#[test]
fn daggers_sit_exactly_where_compare_json_says_significant() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = seeded_runs(tmp.path());
    let specs: Vec<String> = runs
        .iter()
        .map(|r| {
            let beams: Vec<String> = r.beams.iter().map(|b| b.display().to_string()).collect();
            format!("{}={},{}", r.name, r.index.display(), beams.join(","))
        })
        .collect();
    let mut args = vec!["compare", "-q", "--json"];
    for s in &specs {
        args.extend(["--run", s.as_str()]);
    }
    let out = common::sidlens(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = doc["rows"].as_array().unwrap();
    let metrics = ["Hit@10", "ItemHit@10", "NDCG@10", "ItemNDCG@10"];
    let value = |i: usize, m: &str| rows[i]["metrics"][m].as_f64().unwrap();
    let expected = |i: usize, m: &str| -> bool {
        let best = (0..rows.len())
            .max_by(|&a, &b| value(a, m).total_cmp(&value(b, m)))
            .unwrap();
        let (a, b) = (
            rows[i]["name"].as_str().unwrap(),
            rows[best]["name"].as_str().unwrap(),
        );
        best != i
            && value(i, m) != value(best, m)
            && doc["tests"].as_array().unwrap().iter().any(|t| {
                t["metric"] == m
                    && t["significant"] == true
                    && ((t["a"] == a && t["b"] == b) || (t["a"] == b && t["b"] == a))
            })
    };
    let app = app(200, 50, &runs);
    // The pane as wide as the whole table (the grid's metrics pane drops columns at 200x50).
    let lines: Vec<String> = view::metrics::view(&app.screen(), Rect::new(0, 0, 190, 30))
        .table
        .iter()
        .chain(&view::metrics::view(&app.screen(), Rect::new(0, 0, 190, 30)).body)
        .map(|l| l.to_string())
        .collect();
    let header = lines.iter().find(|l| l.contains("ItemNDCG@10")).unwrap();
    let at: Vec<usize> = metrics
        .iter()
        .map(|m| header.find(&format!(" {m}")).unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{header}");
    let (mut marked, mut unmarked) = (0, 0);
    for (i, row) in rows.iter().enumerate() {
        let name = row["name"].as_str().unwrap();
        let line = lines
            .iter()
            .find(|l| l.contains(&format!(" {name} ")) && l.contains(" ± "))
            .unwrap_or_else(|| panic!("no row for {name}"));
        // Each metric cell reads `mean ± std` with `†` after it when significant.
        let cells: Vec<&str> = line
            .split(" ± ")
            .skip(1)
            .map(|c| c.split(' ').next().unwrap())
            .collect();
        assert_eq!(cells.len(), 4, "{line}");
        for (m, cell) in metrics.iter().zip(&cells) {
            let want = expected(i, m);
            assert_eq!(cell.ends_with('†'), want, "{name} {m}: {line}");
            if want {
                marked += 1;
            } else {
                unmarked += 1;
            }
        }
    }
    assert!(
        marked > 0 && unmarked > 0,
        "{marked} marked, {unmarked} not"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("† differs from the best value of its column"))
    );
}

#[test]
fn while_the_tests_run_the_table_shows_means_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let mut app = app(80, 24, &seeded_runs(tmp.path()));
    let pending = app.update(Action::KDown);
    assert!(
        matches!(
            pending.as_slice(),
            [Command::Start(jobs::Request::Test { .. }, _)]
        ),
        "{pending:?}"
    );
    let lines = screen(&app);
    let text = lines.join("\n");
    assert!(text.contains("testing every pair"), "{text}");
    assert!(text.contains("mean ± std over 3 seeds"), "{text}");
    let rows: Vec<&String> = lines.iter().filter(|l| l.contains(" rkmeans_")).collect();
    assert!(
        rows.len() >= 3 && rows.iter().all(|l| !l.contains('†')),
        "{text}"
    );
    settle(&mut app, pending);
    assert!(screen(&app).join("\n").contains('†'));
}

#[test]
fn sorting_reaches_every_column_of_the_seeded_table() {
    let tmp = tempfile::tempdir().unwrap();
    let mut app = app(200, 50, &seeded_runs(tmp.path()));
    let Slot::Ready(report) = &app.metrics.tested else {
        unreachable!()
    };
    let columns = sidlens::report::compare::report_table(report, false).headers;
    assert!(columns.contains(&"seeds".to_string()));
    for (c, header) in columns.iter().enumerate() {
        app.update(Action::SortMetrics);
        assert_eq!(app.metrics.sort.map(|s| s.0), Some(c), "{header}");
    }
    app.update(Action::SortMetrics);
    assert_eq!(
        app.metrics.sort, None,
        "past the last column: key order again"
    );
    // ItemHit@10 largest first: the ZCR variant, whose items never share a SID.
    let at = columns.iter().position(|h| h == "ItemHit@10").unwrap();
    app.metrics.sort = Some((at, true));
    assert_eq!(
        app.tokenizers[app.screen().metrics_order()[0]].name(),
        "rkmeans_v64_zcr"
    );
}
