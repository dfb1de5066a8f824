//! End to end: the real binary in tmux (a real pseudo-terminal), driven by keys, read from the
//! screen. Skipped with a notice when tmux is not installed.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A private tmux server (its own socket) running one sidlens session; killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn available() -> bool {
        Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    fn start(name: &str, width: u16, height: u16, args: &[&str]) -> Tmux {
        let socket = format!("sidlens-e2e-{}-{name}", std::process::id());
        let tmux = Tmux { socket };
        let (w, h) = (width.to_string(), height.to_string());
        let mut cmd = vec![
            "new-session",
            "-d",
            "-s",
            "e2e",
            "-x",
            &w,
            "-y",
            &h,
            env!("CARGO_BIN_EXE_sidlens"),
        ];
        cmd.extend_from_slice(args);
        tmux.run(&cmd);
        tmux.run(&["set-option", "-t", "e2e", "remain-on-exit", "on"]);
        tmux
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .env_remove("TMUX")
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "e2e"])
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "e2e"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    /// Waits until the screen satisfies `ready` (10 s at most) and returns it.
    fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ready(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "timed out waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn pane_dead(&self) -> bool {
        self.run(&["display-message", "-p", "-t", "e2e", "#{pane_dead}"])
            .trim()
            == "1"
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

/// An index whose largest group has 5 items, plus titles.
fn write_fixture(dir: &Path) {
    let mut index = String::from("{");
    for i in 0..40 {
        let codes = match i {
            0..=4 => "[3, 1, 4, 1]".to_string(),
            5..=7 => "[2, 7, 1, 8]".to_string(),
            8..=9 => "[2, 7, 1, 9]".to_string(),
            _ => format!("[{}, 0, 0, {}]", i % 16, i),
        };
        index.push_str(&format!(
            "{}\"{i}\": {codes}",
            if i > 0 { ", " } else { "" }
        ));
    }
    index.push('}');
    std::fs::write(dir.join("toy.index.json"), index).unwrap();
    let items: Vec<String> = (0..40)
        .map(|i| format!("\"{i}\": {{\"title\": \"Widget number {i}\"}}"))
        .collect();
    std::fs::write(dir.join("items.json"), format!("{{{}}}", items.join(", "))).unwrap();
}

#[test]
fn group_list_shows_the_largest_group_first_and_quitting_restores_the_terminal() {
    if !Tmux::available() {
        eprintln!("skipping: tmux not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let index = dir.path().join("toy.index.json");
    let items = dir.path().join("items.json");
    let (index, items) = (index.to_str().unwrap(), items.to_str().unwrap());
    let tmux = Tmux::start(
        "groups",
        80,
        24,
        &["tui", "--index", index, "--items", items],
    );
    let screen = tmux.wait_for("the group list", |s| s.contains("first item"));
    let first_row = screen
        .lines()
        .find(|l| l.contains("Widget number"))
        .unwrap_or_default()
        .to_string();
    let cells: Vec<&str> = first_row
        .trim_matches(|c: char| c == '┃' || c == '│' || c == ' ')
        .split_whitespace()
        .collect();
    assert_eq!(&cells[..2], ["1", "5"], "rank 1 has size 5: {first_row}");
    assert!(first_row.contains("3 1 4 1"), "{first_row}");
    assert!(first_row.contains("Widget number 0"), "{first_row}");
    tmux.keys(&["j", "Enter"]);
    let screen = tmux.wait_for("the detail pane", |s| s.contains("share it"));
    assert!(screen.contains("<a_2><b_7><c_1><d_8>"), "{screen}");
    assert!(screen.contains("3 items share it"), "{screen}");
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("the exit", |_| tmux.pane_dead());
    assert!(
        !screen.contains("sidlens ·"),
        "alternate screen left:\n{screen}"
    );
}

#[test]
fn a_bad_file_is_reported_in_the_pane_and_the_tui_keeps_running() {
    if !Tmux::available() {
        eprintln!("skipping: tmux not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"1\": [1, 2], \"2\": [1,").unwrap();
    let tmux = Tmux::start("bad", 100, 30, &["tui", "--index", bad.to_str().unwrap()]);
    let screen = tmux.wait_for("the error", |s| s.contains("could not load"));
    assert!(screen.contains("bad.json"), "{screen}");
    tmux.keys(&["C-c"]);
    tmux.wait_for("the exit", |_| tmux.pane_dead());
}
