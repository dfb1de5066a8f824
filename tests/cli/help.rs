//! Snapshots of `sidlens --help` and of each subcommand's `--help`, so a change to the command
//! line shows up in review as a diff of what users read.

use crate::common;

use common::sidlens;

fn help(args: &[&str]) -> String {
    let out = sidlens(args);
    assert!(out.status.success(), "{args:?} exited {:?}", out.status);
    assert!(out.stderr.is_empty(), "{args:?} wrote to stderr");
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

#[test]
fn top_level_help() {
    insta::assert_snapshot!("help", help(&["--help"]));
}

#[test]
fn every_subcommand_has_help() {
    let top = help(&["--help"]);
    let commands: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // A command's line has its name at column 2; wrapped descriptions are indented deeper.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 10, "{commands:?}");
    for command in commands {
        let text = help(&[command, "--help"]);
        assert!(text.contains("Usage: sidlens "), "{command}: {text}");
    }
}
