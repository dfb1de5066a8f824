//! TUI speed (issue 5): first frame ≤ 300 ms on four 50k-item tokenizers, a key press redrawn
//! in ≤ 30 ms. Run: `cargo bench --bench tui` (whole process in tmux, then in process; the
//! synthetic data is cached in `target/bench-data/`).

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use sidlens::generate::synthetic::{self, SyntheticSpec};
use sidlens::load::TokenizerFiles;
use sidlens::progress::{CancelFlag, NoProgress};
use sidlens::tui;
use tui::app::{App, Command};
use tui::jobs;
use tui::sources::Sources;
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
    let tokenizers: Vec<TokenizerFiles> = SEEDS
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
            TokenizerFiles {
                name: format!("synthetic_s{seed}"),
                index: dir.join("synthetic.index.json"),
                beams: vec![dir.join("synthetic.per_user.jsonl")],
                latents: Some(dir.join("latents.npy")),
                codebooks: Some(dir.join("codebooks.npy")),
                beams_sought: Vec::new(),
            }
        })
        .collect();
    Sources {
        title: format!("synthetic {N_ITEMS} items"),
        embeddings: tokenizers[0].latents.clone(),
        tokenizers,
        codebook_size: Some(256),
        watch_beams: true,
        ..Sources::default()
    }
}

/// The `sidlens tui` arguments that open `sources`.
fn arguments(sources: &Sources) -> Vec<String> {
    let mut args = vec!["tui".to_string()];
    for t in &sources.tokenizers {
        let files = [
            ("--index", Some(t.index.as_path())),
            ("--beams", t.beams_file()),
            ("--latents", t.latents.as_deref()),
            ("--codebooks", t.codebooks.as_deref()),
        ];
        for (flag, path) in files {
            if let Some(path) = path {
                args.push(flag.into());
                args.push(format!("{}={}", t.name, path.display()));
            }
        }
    }
    if let Some(e) = &sources.embeddings {
        args.push("--embeddings".into());
        args.push(e.display().to_string());
    }
    args
}

fn whole_process(sources: &Sources) {
    let has_tmux = Process::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_tmux {
        eprintln!("skipping whole-process timings: tmux not installed");
        return;
    }
    let mut first = Vec::new();
    let mut analysed = Vec::new();
    for run in 0..5 {
        let socket = format!("sidlens-bench-{}-{run}", std::process::id());
        let tmux = |args: &[&str]| {
            Process::new("tmux")
                .args(["-L", &socket, "-f", "/dev/null"])
                .args(args)
                .env_remove("TMUX")
                .output()
                .expect("tmux")
        };
        let mut cmd: Vec<String> = ["new-session", "-d", "-x", "200", "-y", "60"]
            .map(String::from)
            .to_vec();
        cmd.push(env!("CARGO_BIN_EXE_sidlens").into());
        cmd.extend(arguments(sources));
        let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        let start = Instant::now();
        tmux(&args);
        let mut t_first = None;
        let deadline = start + Duration::from_secs(60);
        while Instant::now() < deadline {
            let out = tmux(&["capture-pane", "-p"]);
            let screen = String::from_utf8_lossy(&out.stdout).into_owned();
            if t_first.is_none() && screen.contains("sidlens ·") {
                t_first = Some(start.elapsed());
            }
            let status = screen.lines().rev().nth(1).unwrap_or_default();
            let progress = status.split("loading:").nth(1).unwrap_or_default();
            let busy = [" index ", " beams ", " ZCR "]
                .iter()
                .any(|w| progress.contains(w));
            if screen.contains("first item") && !busy {
                analysed.push(start.elapsed());
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        first.push(t_first.expect("first frame within 60 s"));
        tmux(&["kill-server"]);
    }
    report(
        "whole process: first frame on screen (tmux, 200x60)",
        &mut first,
        300.0,
    );
    report(
        "whole process: group lists, metrics and ZCR of all four on screen (t-SNE running)",
        &mut analysed,
        f64::NAN,
    );
}

fn in_process(sources: &Sources) {
    let area = Rect::new(0, 0, 200, 60);
    let mut terminal = Terminal::new(TestBackend::new(area.width, area.height)).unwrap();
    let start = Instant::now();
    let (mut app, commands) = App::new(sources, Theme::new(true), area);
    terminal.draw(|f| tui::ui::render(&app, f)).unwrap();
    println!(
        "in process: App::new + first render: {:.2} ms",
        ms(start.elapsed())
    );
    let mut pending = commands;
    while let Some(Command::Start(request, generation)) = pending.pop() {
        let what = format!("{request:?}").chars().take(30).collect::<String>();
        let (tx, rx) = channel();
        let start = Instant::now();
        jobs::run(request, generation, &CancelFlag::default(), &tx);
        println!("in process: job {what}…: {:.0} ms", ms(start.elapsed()));
        drop(tx);
        for msg in rx {
            pending.extend(app.on_job(msg));
        }
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
        .chain("s+-s-+ss+-+-/4 5".chars().map(KeyCode::Char))
        .chain([
            KeyCode::Enter,
            KeyCode::Char('n'),
            KeyCode::Char('N'),
            KeyCode::Char('?'),
            KeyCode::Char('?'),
        ])
        .collect();
    let mut times = Vec::new();
    let mut slowest: Vec<(Duration, KeyCode)> = Vec::new();
    for _ in 0..20 {
        for &code in &session {
            let start = Instant::now();
            let key = KeyEvent::new(code, KeyModifiers::NONE);
            if let Some(action) = tui::keys::map(app.mode, app.focus, key) {
                app.update(action);
            }
            terminal.draw(|f| tui::ui::render(&app, f)).unwrap();
            times.push(start.elapsed());
            slowest.push((start.elapsed(), code));
        }
    }
    slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
    slowest.dedup_by_key(|(_, code)| *code);
    let worst: Vec<String> = slowest
        .iter()
        .take(4)
        .map(|(t, c)| format!("{c:?} {:.1} ms", ms(*t)))
        .collect();
    println!("in process: slowest keys: {}", worst.join(", "));
    report(
        "in process: key press → update + full render (200x60, all panes loaded)",
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
