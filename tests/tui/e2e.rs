//! End to end: the real binary in tmux (a real pseudo-terminal), driven by keys, read from the
//! screen. Skipped with a notice when tmux is not installed.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common;

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

    /// A session whose pane runs `script` in `sh -c` (sidlens somewhere in it), once the
    /// group list is on screen.
    fn start_script(name: &str, script: &str) -> Tmux {
        let tmux = Tmux::start(name, 100, 30, &[]);
        tmux.run(&["respawn-pane", "-k", "-t", "e2e", "sh", "-c", script]);
        tmux.wait_for("the group list", |s| s.contains("first item"));
        tmux
    }

    /// The process id of the pane's command.
    fn pane_pid(&self) -> String {
        self.run(&["display-message", "-p", "-t", "e2e", "#{pane_pid}"])
            .trim()
            .to_string()
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

/// The SID (codes) of item `i` in the fixture index.
fn codes_of(i: usize) -> [usize; 4] {
    match i {
        0..=4 => [3, 1, 4, 1],
        5..=7 => [2, 7, 1, 8],
        8..=9 => [2, 7, 1, 9],
        _ => [i % 16, 0, 0, i],
    }
}

fn sid(codes: [usize; 4]) -> String {
    format!(
        "<a_{}><b_{}><c_{}><d_{}>",
        codes[0], codes[1], codes[2], codes[3]
    )
}

/// Beams of 20 distinct SIDs for 30 users: the three collision groups first (10 items in
/// all, so a hit among the singletons behind them earns little item-level credit), then a
/// fixed shuffle of singletons per user (`salt` varies shuffles and targets).
fn write_beams(path: &Path, salt: usize) {
    let singles: Vec<String> = (10..40).map(|i| sid(codes_of(i))).collect();
    let records: Vec<String> = (0..30)
        .map(|u| {
            let mut order: Vec<usize> = (0..singles.len()).collect();
            order.sort_by_key(|&j| (j * 7 + u * 13 + salt * 5) % singles.len());
            let beams: Vec<String> = [0, 5, 8]
                .into_iter()
                .map(|i| sid(codes_of(i)))
                .chain(order[..17].iter().map(|&j| singles[j].clone()))
                .map(|s| format!("\"{s}\""))
                .collect();
            let target = (u * 3 + salt) % 40;
            format!(
                "{{\"beam_sids\": [{}], \"target\": \"{}\", \"target_item\": \"{target}\"}}",
                beams.join(", "),
                sid(codes_of(target))
            )
        })
        .collect();
    std::fs::write(path, format!("[{}]", records.join(",\n"))).unwrap();
}

/// `sidlens eval --json` of the fixture at `k`: (Hit@k, ItemHit@k) with 4 decimals.
fn eval(index: &Path, beams: &Path, k: usize) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sidlens"))
        .args(["eval", "--json", "--k", &k.to_string(), "--index"])
        .arg(index)
        .arg("--beams")
        .arg(beams)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let get = |key: &str| format!("{:.4}", json["metrics"][key].as_f64().unwrap());
    (get(&format!("Hit@{k}")), get(&format!("ItemHit@{k}")))
}

/// The metrics table's cells for tokenizer `name`, keyed by the (possibly shortened) header.
fn metrics_row(screen: &str, name: &str) -> Option<Vec<(String, String)>> {
    let lines: Vec<&str> = screen.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.contains("tokenizer") && l.contains("g_max"))?;
    let cells = |line: &str| -> Vec<String> {
        line.split(['│', '┃'])
            .filter(|part| part.contains("g_max") || part.contains(&format!(" {name} ")))
            .flat_map(|part| part.split_whitespace().map(str::to_string))
            .filter(|c| c != "⇅")
            .collect()
    };
    let heads = cells(lines[header]);
    let row = lines[header + 1..]
        .iter()
        .find(|l| l.contains(&format!(" {name} ")))?;
    Some(heads.into_iter().zip(cells(row)).collect())
}

fn cell(row: &[(String, String)], headers: &[&str]) -> String {
    row.iter()
        .find(|(h, _)| headers.contains(&h.as_str()))
        .map(|(_, v)| v.clone())
        .unwrap_or_default()
}

#[test]
fn metrics_equal_sidlens_eval_and_follow_k_and_the_beams_file() {
    if !Tmux::available() {
        common::skip_notice("tmux not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let index = dir.path().join("toy.index.json");
    let beams = dir.path().join("toy.per_user.json");
    write_beams(&beams, 0);
    let (index_s, beams_s) = (index.to_str().unwrap(), beams.to_str().unwrap());
    let index_arg = format!("toy={index_s}");
    let beams_arg = format!("toy={beams_s}");
    let tmux = Tmux::start(
        "metrics",
        160,
        48,
        &["tui", "--index", &index_arg, "--beams", &beams_arg],
    );
    let shown = |k: usize| {
        let screen = tmux.wait_for(&format!("metrics at K={k}"), |s| {
            metrics_row(s, "toy").is_some_and(|r| cell(&r, &[&format!("Hit@{k}")]).contains('.'))
        });
        let row = metrics_row(&screen, "toy").unwrap();
        (
            cell(&row, &[&format!("Hit@{k}")]),
            cell(&row, &[&format!("ItemHit@{k}"), &format!("IHit@{k}")]),
        )
    };
    let at10 = shown(10);
    assert_eq!(
        at10,
        eval(&index, &beams, 10),
        "Hit@10, ItemHit@10 as sidlens eval"
    );
    assert_ne!(at10.0, at10.1, "the fixture's collisions inflate Hit@10");
    tmux.keys(&["-"]);
    let at5 = shown(5);
    assert_eq!(at5, eval(&index, &beams, 5));
    assert_ne!(at5, at10, "K changes the figures");
    tmux.keys(&["K", "1", "2", "Enter"]);
    assert_eq!(shown(12), eval(&index, &beams, 12));
    let before = eval(&index, &beams, 12);
    write_beams(&beams, 1);
    let after = eval(&index, &beams, 12);
    assert_ne!(before, after, "the new beams score differently");
    let screen = tmux.wait_for("the beams file to be re-evaluated", |s| {
        metrics_row(s, "toy").is_some_and(|r| cell(&r, &["Hit@12"]) == after.0)
    });
    let row = metrics_row(&screen, "toy").unwrap();
    assert_eq!(cell(&row, &["ItemHit@12", "IHit@12"]), after.1);
}

#[test]
fn group_list_shows_the_largest_group_first_and_quitting_restores_the_terminal() {
    if !Tmux::available() {
        common::skip_notice("tmux not installed");
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
fn sigterm_restores_the_terminal() {
    if !Tmux::available() || !Path::new("/proc/self/task").is_dir() {
        common::skip_notice("tmux or /proc not available");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let index = dir.path().join("toy.index.json");
    // A shell runs sidlens, then prints the terminal modes it finds afterwards.
    let script = format!(
        "{} tui --index {} --no-watch; echo exited $?; stty -a; sleep 30",
        env!("CARGO_BIN_EXE_sidlens"),
        index.display()
    );
    let tmux = Tmux::start_script("sigterm", &script);
    let shell = tmux.pane_pid();
    let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")).unwrap();
    let sidlens = children
        .split_whitespace()
        .next()
        .expect("sidlens runs under the shell");
    let killed = Command::new("kill")
        .args(["-TERM", sidlens])
        .status()
        .unwrap();
    assert!(killed.success());
    let screen = tmux.wait_for("the terminal modes after exit", |s| s.contains("icanon"));
    assert!(screen.contains("exited 0"), "{screen}");
    assert!(
        !screen.contains("-icanon") && !screen.contains("-echo "),
        "raw mode left on:\n{screen}"
    );
    assert!(
        !screen.contains("sidlens ·"),
        "alternate screen left:\n{screen}"
    );
}

#[test]
fn a_vanished_terminal_ends_the_process_even_with_sighup_ignored() {
    if !Tmux::available() || !Path::new("/proc/self/task").is_dir() {
        common::skip_notice("tmux or /proc not available");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let index = dir.path().join("toy.index.json");
    for ignore_hup in [false, true] {
        let trap = if ignore_hup { "trap '' HUP; " } else { "" };
        let script = format!(
            "{trap}exec {} tui --index {} --no-watch",
            env!("CARGO_BIN_EXE_sidlens"),
            index.display()
        );
        let tmux = Tmux::start_script("hangup", &script);
        let proc_dir = format!("/proc/{}", tmux.pane_pid());
        drop(tmux);
        let start = Instant::now();
        while Path::new(&proc_dir).exists() && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(
            !Path::new(&proc_dir).exists(),
            "sidlens kept running after its terminal closed (SIGHUP ignored: {ignore_hup})"
        );
    }
}

#[test]
fn a_bad_file_is_reported_in_the_pane_and_the_tui_keeps_running() {
    if !Tmux::available() {
        common::skip_notice("tmux not installed");
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

#[test]
fn usage_errors_exit_2_and_a_missing_terminal_exits_1_with_a_clear_message() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_sidlens"))
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&[
        "tui", "--index", "a=x.json", "--index", "b=y.json", "--beams", "z.json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("say which with --beams NAME=FILE"), "{err}");
    assert!(err.contains("Usage: sidlens tui"), "{err}");
    let out = run(&["tui", "--index", "a=x.json", "--latents", "c=l.npy"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no tokenizer is named \"c\""));
    let out = run(&["tui", "--index", "x.json"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the TUI needs a terminal"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn no_arguments_open_the_demo_in_a_terminal_and_print_help_otherwise() {
    let out = Command::new(env!("CARGO_BIN_EXE_sidlens"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage: sidlens"));
    if !Tmux::available() {
        common::skip_notice("tmux not installed");
        return;
    }
    let tmux = Tmux::start("demo", 100, 30, &[]);
    let screen = tmux.wait_for("the demo's group list", |s| s.contains("first item"));
    assert!(screen.contains("sidlens · Workshop demo"), "{screen}");
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |_| tmux.pane_dead());
}
