//! TUI speed (issue 5 targets): first frame ≤ 300 ms after start on a 50k-item dataset with
//! four tokenizers, and a key press redrawn in ≤ 30 ms, while loading never blocks input.
//!
//! Run: `cargo bench --bench tui`. Measures, on synthetic data (four 50,000-item indexes with
//! different seeds, cached in `target/bench-data/`):
//! - whole process, in tmux: time from spawning `sidlens tui` until the first frame is on
//!   screen, and until every tokenizer's group list is shown;
//! - in process, at 200x60: `App::update` + a full render for each key of a browsing session,
//!   median and worst over repetitions.

#[allow(dead_code, unused_imports)]
#[path = "../src/tui/mod.rs"]
mod tui;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use sidlens::progress::{CancelFlag, NoProgress};
use sidlens::synthetic::{self, SyntheticSpec};
use tui::app::App;
use tui::jobs::{self, Request};
use tui::sources::{Sources, TokenizerSource};
use tui::theme::Theme;

const N_ITEMS: usize = 50_000;
const SEEDS: [u64; 4] = [11, 12, 13, 14];

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    let sources = sources(&root);
    whole_process(&sources);
    in_process(&sources);
}

/// The four synthetic tokenizers, generated on first use.
fn sources(root: &Path) -> Sources {
    let tokenizers = SEEDS
        .iter()
        .map(|&seed| {
            let spec = SyntheticSpec {
                n_items: N_ITEMS,
                n_users: 5_000,
                seed,
                ..SyntheticSpec::default()
            };
            let dir: PathBuf = root.join(format!("tui-n{N_ITEMS}-s{seed}"));
            let done = dir.join(".complete");
            if !done.exists() {
                eprintln!("generating {}", dir.display());
                synthetic::write_dataset(&spec, &dir, &NoProgress).expect("generate");
                std::fs::write(&done, "").expect("mark complete");
            }
            TokenizerSource::index_only(
                format!("synthetic_s{seed}"),
                dir.join("synthetic.index.json"),
            )
        })
        .collect();
    Sources {
        title: format!("synthetic {N_ITEMS} items"),
        tokenizers,
        items: None,
        codebook_size: Some(256),
    }
}

fn whole_process(sources: &Sources) {
    let has_tmux = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_tmux {
        eprintln!("skipping whole-process timings: tmux not installed");
        return;
    }
    let mut first = Vec::new();
    let mut loaded = Vec::new();
    for run in 0..5 {
        let socket = format!("sidlens-bench-{}-{run}", std::process::id());
        let tmux = |args: &[&str]| {
            Command::new("tmux")
                .args(["-L", &socket, "-f", "/dev/null"])
                .args(args)
                .env_remove("TMUX")
                .output()
                .expect("tmux")
        };
        let mut cmd: Vec<String> = vec![
            "new-session".into(),
            "-d".into(),
            "-x".into(),
            "200".into(),
            "-y".into(),
            "60".into(),
            env!("CARGO_BIN_EXE_sidlens").into(),
            "tui".into(),
        ];
        for t in &sources.tokenizers {
            cmd.push("--index".into());
            cmd.push(format!("{}={}", t.name, t.index.display()));
        }
        let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        let start = Instant::now();
        tmux(&args);
        let mut t_first = None;
        let deadline = start + Duration::from_secs(30);
        while Instant::now() < deadline {
            let screen =
                String::from_utf8_lossy(&tmux(&["capture-pane", "-p"]).stdout).into_owned();
            if t_first.is_none() && screen.contains("sidlens ·") {
                t_first = Some(start.elapsed());
            }
            if !screen.contains("loading") && screen.contains("first item") {
                loaded.push(start.elapsed());
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        first.push(t_first.expect("first frame within 30 s"));
        tmux(&["kill-server"]);
    }
    report(
        "whole process: first frame on screen (tmux, 200x60)",
        &mut first,
        300.0,
    );
    report(
        "whole process: all four group lists on screen",
        &mut loaded,
        f64::NAN,
    );
}

fn in_process(sources: &Sources) {
    let area = Rect::new(0, 0, 200, 60);
    let mut terminal = Terminal::new(TestBackend::new(area.width, area.height)).unwrap();
    let start = Instant::now();
    let (mut app, _) = App::new(sources, Theme::new(true), area);
    terminal.draw(|f| tui::ui::render(&app, f)).unwrap();
    let first = start.elapsed();
    println!("in process: App::new + first render: {:.2} ms", ms(first));
    let (tx, rx) = channel();
    let start = Instant::now();
    jobs::run(
        Request::Load(sources.clone()),
        0,
        &CancelFlag::default(),
        &tx,
    );
    println!(
        "in process: loading four {N_ITEMS}-item tokenizers (index, groups, stats, rows): {:.0} ms",
        ms(start.elapsed())
    );
    drop(tx);
    for msg in rx {
        app.on_job(msg);
    }
    let session: Vec<KeyCode> = "jjjjkGg]]]][1"
        .chars()
        .map(KeyCode::Char)
        .chain([
            KeyCode::PageDown,
            KeyCode::PageDown,
            KeyCode::PageUp,
            KeyCode::Tab,
            KeyCode::Down,
            KeyCode::Tab,
            KeyCode::Down,
            KeyCode::Tab,
            KeyCode::Tab,
            KeyCode::Enter,
            KeyCode::Esc,
        ])
        .chain("s+-s-+ss/4 5".chars().map(KeyCode::Char))
        .chain([
            KeyCode::Enter,
            KeyCode::Char('n'),
            KeyCode::Char('N'),
            KeyCode::Char('?'),
            KeyCode::Char('?'),
        ])
        .collect();
    let mut times = Vec::new();
    for _ in 0..20 {
        for &code in &session {
            let start = Instant::now();
            if let Some(action) =
                tui::keys::map(app.mode, app.focus, KeyEvent::new(code, KeyModifiers::NONE))
            {
                app.update(action);
            }
            terminal.draw(|f| tui::ui::render(&app, f)).unwrap();
            times.push(start.elapsed());
        }
    }
    report(
        "in process: key press → update + full render (200x60)",
        &mut times,
        30.0,
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn report(what: &str, times: &mut [Duration], target_ms: f64) {
    times.sort();
    let median = ms(times[times.len() / 2]);
    let worst = ms(times[times.len() - 1]);
    let target = if target_ms.is_nan() {
        String::new()
    } else {
        format!(" (target ≤ {target_ms:.0} ms)")
    };
    println!(
        "{what}: median {median:.2} ms, worst {worst:.2} ms over {} runs{target}",
        times.len()
    );
}
