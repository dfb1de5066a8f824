//! Shell completions and man pages come from the clap definitions: snapshots of each, a syntax
//! check of the bash and zsh scripts where those shells exist, and every subcommand present.

use crate::common;

use common::sidlens;

fn stdout(args: &[&str]) -> String {
    let out = sidlens(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands `sidlens --help` lists.
fn subcommands() -> Vec<String> {
    let help = stdout(&["--help"]);
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect()
}

fn shell_accepts(shell: &str, flag: &str, script: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("completion");
    std::fs::write(&path, script).unwrap();
    match std::process::Command::new(shell)
        .arg(flag)
        .arg(&path)
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "{shell} rejects the script: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(_) => common::skip_notice(&format!("{shell} not installed, syntax not checked")),
    }
}

#[test]
fn completion_scripts_cover_every_subcommand() {
    let subcommands = subcommands();
    assert!(subcommands.len() >= 14, "{subcommands:?}");
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout(&["completions", shell]);
        for sub in &subcommands {
            assert!(script.contains(sub.as_str()), "{shell} lacks {sub}");
        }
        insta::assert_snapshot!(format!("completions_{shell}"), script);
    }
    shell_accepts("bash", "-n", &stdout(&["completions", "bash"]));
    shell_accepts("zsh", "-n", &stdout(&["completions", "zsh"]));
    shell_accepts("fish", "--no-execute", &stdout(&["completions", "fish"]));
}

#[test]
fn man_pages_one_per_subcommand() {
    let page = stdout(&["man"]);
    assert!(page.contains(".TH sidlens 1"));
    insta::assert_snapshot!("man_sidlens", page);
    let dir = tempfile::tempdir().unwrap();
    let out = sidlens(&["man", "--out", dir.path().to_str().unwrap()]);
    assert!(out.status.success());
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected: Vec<String> = subcommands()
        .iter()
        .map(|s| format!("sidlens-{s}.1"))
        .chain(["sidlens.1".to_string()])
        .collect();
    expected.sort();
    assert_eq!(names, expected);
    let zcr = std::fs::read_to_string(dir.path().join("sidlens-zcr.1")).unwrap();
    assert!(zcr.contains(".TH sidlens-zcr 1") && zcr.contains("\\-\\-latents"));
    insta::assert_snapshot!("man_sidlens_zcr", zcr);
}

#[test]
fn unknown_shell_is_a_usage_error() {
    let out = sidlens(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}
