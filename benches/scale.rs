//! Whole-process benchmarks of the `sidlens` binary on synthetic data (fixed seeds) at growing
//! sizes: wall time (median of repeated runs) and peak memory per command. Run: `cargo bench --bench scale` (quick sizes) or `cargo bench --bench scale -- --full`
//! (adds 10M items and 1M users; needs ~10 GB of disk and minutes). Results are printed as a
//! Markdown table and written to `target/bench-results.md`. Datasets are cached in
//! `target/bench-data/`.
#![allow(unsafe_code)] // wait4 for each run's peak memory and CPU time (a bench, not the crate).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use sidlens::generate::synthetic::{self, SyntheticSpec};

/// One measured command.
struct Row {
    scenario: String,
    size: String,
    median_s: f64,
    min_s: f64,
    peak_mb: f64,
    /// CPU time over wall time of the median run, in % (200 % = both cores busy throughout).
    cpu_pct: f64,
    target: String,
}

/// Set in a child of this process that writes one derived beams file (`array` or `parquet`)
/// for the JSON Lines beams named by its last argument.
const DERIVE_BEAMS: &str = "SIDLENS_BENCH_DERIVE_BEAMS";

fn main() {
    if let Ok(kind) = std::env::var(DERIVE_BEAMS) {
        let jsonl = PathBuf::from(std::env::args().next_back().expect("the JSON Lines beams"));
        match kind.as_str() {
            "array" => write_json_array_beams(&jsonl),
            "parquet" => write_parquet_beams(&jsonl),
            other => panic!("{DERIVE_BEAMS}={other}: expected array or parquet"),
        }
        return;
    }
    let full = std::env::args().any(|a| a == "--full");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    let mut rows = Vec::new();

    let mut item_sizes = vec![10_000, 47_593, 100_000, 1_000_000];
    if full {
        item_sizes.push(10_000_000);
    }
    for &n in &item_sizes {
        let files = dataset(&root, n, 1_000, 184);
        let index = files.index.to_str().unwrap().to_string();
        let target = match n {
            47_593 => "<= 0.100 s",
            1_000_000 => "<= 0.195 s (20x json.load + Counter)",
            10_000_000 => "<= 3 s, <= 3 GB",
            _ => "",
        };
        rows.push(measure(
            "stats",
            &format!("{n} items"),
            target,
            &["stats", "--index", &index, "--json"],
        ));
    }
    for &n in &item_sizes {
        let files = dataset(&root, n, 1_000, 184);
        let args = zcr_args(&files);
        rows.push(measure(
            "zcr (optimal, greedy, MQL4GRec's rule)",
            &format!("{n} items"),
            "",
            &args,
        ));
        // What the paper's zcr.py computes: ZCR and greedy, without MQL4GRec's exact rule.
        if n >= 1_000_000 {
            let mut args = args.clone();
            args.push("--without-mql4grec".into());
            let target = if n == 1_000_000 {
                "<= 0.94 s (30x the reference's 28.2 s)"
            } else {
                ""
            };
            rows.push(measure(
                "zcr --without-mql4grec (optimal + greedy)",
                &format!("{n} items"),
                target,
                &args,
            ));
        }
    }
    for max_prefix in [8, 32, 128, 256] {
        let files = dataset(&root, 100_000, 1_000, max_prefix);
        let args = zcr_args(&files);
        rows.push(measure(
            "zcr (optimal, greedy, MQL4GRec's rule)",
            &format!("100000 items, largest prefix group {max_prefix}"),
            "",
            &args,
        ));
    }
    // OpenOneRec's codebooks (L = 3, V = 8192): Kuhn–Munkres over up to 8,192 codes per
    // group; the time should grow linearly with the number of items in collision groups.
    for n in [50_000, 100_000, 200_000] {
        let files = dataset_shaped(&root, n, 1_000, 2_000, Some((3, 8192)));
        let args = zcr_args(&files);
        rows.push(measure(
            "zcr (optimal, greedy, MQL4GRec's rule), L = 3, V = 8192",
            &format!("{n} items, largest prefix group 2000"),
            "linear in colliding items",
            &args,
        ));
    }
    let mut user_sizes = vec![20_000, 200_000];
    if full {
        user_sizes.push(1_000_000);
    }
    for &users in &user_sizes {
        let files = dataset(&root, 1_000_000, users, 184);
        let (index, beams) = (files.index.to_str().unwrap(), files.beams.to_str().unwrap());
        let target = if users == 200_000 {
            "<= 0.51 s (30x cce.py), flat memory"
        } else {
            ""
        };
        rows.push(measure(
            "eval (K = 1,5,10,20)",
            &format!("1000000 items, {users} users x 20 beams"),
            target,
            &[
                "eval",
                "--index",
                index,
                "--beams",
                beams,
                "--k",
                "1,5,10,20",
                "--json",
            ],
        ));
    }

    // The reference `test.py --save_per_user` writes one JSON array on one line.
    let files = dataset(&root, 1_000_000, 200_000, 184);
    let array = json_array_beams(&files.beams);
    rows.push(measure(
        "eval, JSON array beams (K = 1,5,10,20)",
        "1000000 items, 200000 users x 20 beams",
        "<= 0.51 s (30x cce.py)",
        &[
            "eval",
            "--index",
            files.index.to_str().unwrap(),
            "--beams",
            array.to_str().unwrap(),
            "--k",
            "1,5,10,20",
            "--json",
        ],
    ));

    // The same beams as a Parquet table (issue 11: within 1.5x of the JSON Lines path),
    // also timed alternately with the JSON Lines run for the ratio.
    let parquet = parquet_beams(&files.beams);
    let eval_args = |beams: &Path| {
        [
            "eval",
            "--index",
            files.index.to_str().unwrap(),
            "--beams",
            beams.to_str().unwrap(),
            "--k",
            "1,5,10,20",
            "--json",
        ]
        .map(str::to_string)
    };
    let (lines_args, parquet_args) = (eval_args(&files.beams), eval_args(&parquet));
    let ratio = alternated_ratio(
        "eval, Parquet over JSON Lines",
        &lines_args,
        &parquet_args,
        5,
    );
    rows.push(measure(
        "eval, Parquet beams (K = 1,5,10,20)",
        "1000000 items, 200000 users x 20 beams",
        &format!("<= 1.5x JSON Lines (alternated with it: {ratio:.2}x)"),
        &parquet_args,
    ));

    let mut table = String::from(
        "| command | data | median (s) | min (s) | CPU (%) | peak memory (MB) | target |\n|:---|:---|---:|---:|---:|---:|:---|\n",
    );
    for r in &rows {
        let _ = writeln!(
            table,
            "| {} | {} | {:.3} | {:.3} | {:.0} | {:.0} | {} |",
            r.scenario, r.size, r.median_s, r.min_s, r.cpu_pct, r.peak_mb, r.target
        );
    }
    println!("{table}");
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-results.md");
    std::fs::write(&out, &table).expect("write bench results");
    eprintln!("written to {}", out.display());
}

/// The JSON Lines beams rewritten as the reference's one-line JSON array (cached beside them).
fn json_array_beams(jsonl: &Path) -> PathBuf {
    derived_beams(jsonl, "array", "json")
}

/// The JSON Lines beams rewritten as Parquet (cached beside them).
fn parquet_beams(jsonl: &Path) -> PathBuf {
    derived_beams(jsonl, "parquet", "parquet")
}

/// The beams file `jsonl` with `extension`, written by a child of this process when missing:
/// written here, its hundreds of MB would become this process's peak resident set, which
/// Linux carries over into every `sidlens` forked after it and so into their measured peaks.
fn derived_beams(jsonl: &Path, kind: &str, extension: &str) -> PathBuf {
    let out = jsonl.with_extension(extension);
    if !out.exists() {
        let status = Command::new(std::env::current_exe().expect("this benchmark's path"))
            .env(DERIVE_BEAMS, kind)
            .arg(jsonl)
            .status()
            .expect("run the benchmark to derive beams");
        assert!(status.success(), "deriving {kind} beams failed");
    }
    out
}

fn write_json_array_beams(jsonl: &Path) {
    let out = jsonl.with_extension("json");
    let text = std::fs::read_to_string(jsonl).expect("read beams");
    let records: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tmp = out.with_extension("json.tmp");
    std::fs::write(&tmp, format!("[{}]", records.join(", "))).expect("write array beams");
    std::fs::rename(&tmp, &out).expect("name array beams");
}

/// `beam_sids`, `target`, `target_item`; snappy, row groups of 65,536 users, as pyarrow writes.
fn write_parquet_beams(jsonl: &Path) {
    use arrow_array::builder::{ListBuilder, StringBuilder};
    use std::sync::Arc;
    let out = jsonl.with_extension("parquet");
    let text = std::fs::read_to_string(jsonl).expect("read beams");
    let mut beams = ListBuilder::new(StringBuilder::new());
    let mut target = StringBuilder::new();
    let mut item = StringBuilder::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let r: serde_json::Value = serde_json::from_str(line).expect("a beams record");
        for b in r["beam_sids"].as_array().expect("beam_sids") {
            beams.values().append_value(b.as_str().expect("a SID"));
        }
        beams.append(true);
        target.append_option(r["target"].as_str());
        item.append_option(r["target_item"].as_str());
    }
    let batch = arrow_array::RecordBatch::try_from_iter(vec![
        (
            "beam_sids",
            Arc::new(beams.finish()) as arrow_array::ArrayRef,
        ),
        ("target", Arc::new(target.finish())),
        ("target_item", Arc::new(item.finish())),
    ])
    .expect("a batch");
    let props = parquet::file::properties::WriterProperties::builder()
        .set_compression(parquet::basic::Compression::SNAPPY)
        .set_max_row_group_size(65_536)
        .build();
    let tmp = out.with_extension("parquet.tmp");
    let file = std::fs::File::create(&tmp).expect("create parquet beams");
    let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), Some(props))
        .expect("a parquet writer");
    w.write(&batch).expect("write parquet beams");
    w.close().expect("finish parquet beams");
    std::fs::rename(&tmp, &out).expect("name parquet beams");
}

fn zcr_args(files: &synthetic::SyntheticFiles) -> Vec<String> {
    vec![
        "zcr".into(),
        "--index".into(),
        files.index.display().to_string(),
        "--latents".into(),
        files.latents.display().to_string(),
        "--codebooks".into(),
        files.codebooks.display().to_string(),
        "--json".into(),
    ]
}

/// The cached synthetic dataset of this size, generated on first use by `sidlens synth` in a
/// child process, so this process stays small and the children's peak memory is their own
/// (Linux carries a parent's peak resident set over into a forked child's).
fn dataset(
    root: &Path,
    n_items: usize,
    n_users: usize,
    max_prefix: usize,
) -> synthetic::SyntheticFiles {
    dataset_shaped(root, n_items, n_users, max_prefix, None)
}

/// [`dataset`] with `(L, V)` other than the default 4 levels of 256 codes.
fn dataset_shaped(
    root: &Path,
    n_items: usize,
    n_users: usize,
    max_prefix: usize,
    shape: Option<(usize, usize)>,
) -> synthetic::SyntheticFiles {
    let seed = SyntheticSpec::default().seed;
    let suffix = shape.map_or(String::new(), |(l, v)| format!("-l{l}-v{v}"));
    let dir: PathBuf = root.join(format!(
        "n{n_items}-u{n_users}-p{max_prefix}-s{seed}{suffix}"
    ));
    let done = dir.join(".complete");
    if !done.exists() {
        eprintln!("generating {}", dir.display());
        let status = Command::new(env!("CARGO_BIN_EXE_sidlens"))
            .args(["synth", "--quiet", "--seed", &seed.to_string()])
            .args([
                "--items",
                &n_items.to_string(),
                "--users",
                &n_users.to_string(),
            ])
            .args(["--max-prefix-group", &max_prefix.to_string()])
            .args(shape.into_iter().flat_map(|(l, v)| {
                [
                    "--levels".to_string(),
                    l.to_string(),
                    "--codebook-size".to_string(),
                    v.to_string(),
                ]
            }))
            .arg("--out")
            .arg(&dir)
            .status()
            .expect("run sidlens synth");
        assert!(status.success(), "sidlens synth failed");
        std::fs::write(&done, "").expect("mark dataset complete");
    }
    synthetic::SyntheticFiles {
        index: dir.join("synthetic.index.json"),
        beams: dir.join("synthetic.per_user.jsonl"),
        latents: dir.join("latents.npy"),
        codebooks: dir.join("codebooks.npy"),
    }
}

/// One `sidlens` run: its wall seconds, peak resident set in KiB and CPU seconds.
fn run_once<S: AsRef<str>>(label: &str, args: &[S]) -> (f64, i64, f64) {
    let start = Instant::now();
    #[expect(
        clippy::zombie_processes,
        reason = "reaped by wait4, which also gives its rusage"
    )]
    let child = Command::new(env!("CARGO_BIN_EXE_sidlens"))
        .args(args.iter().map(|a| a.as_ref()))
        .arg("--quiet")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start sidlens");
    let (status, max_rss_kb, cpu_s) = wait_with_rusage(child.id() as i32);
    let elapsed = start.elapsed().as_secs_f64();
    assert!(status == 0, "{label}: sidlens exited with {status}");
    (elapsed, max_rss_kb, cpu_s)
}

/// The median wall time of `b` over that of `a`, the two run alternately (`runs` each,
/// after one of each to warm up): a machine whose speed drifts by a third within minutes
/// then slows both alike, where one row after the other could favour either.
fn alternated_ratio<S: AsRef<str>>(label: &str, a: &[S], b: &[S], runs: usize) -> f64 {
    let (mut times_a, mut times_b) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for i in 0..=runs {
        let (ta, tb) = (run_once(label, a).0, run_once(label, b).0);
        if i > 0 {
            times_a.push(ta);
            times_b.push(tb);
        }
    }
    times_a.sort_by(f64::total_cmp);
    times_b.sort_by(f64::total_cmp);
    let ratio = times_b[runs / 2] / times_a[runs / 2];
    eprintln!(
        "{label}: medians {:.3} s and {:.3} s, alternated: {ratio:.2}x",
        times_a[runs / 2],
        times_b[runs / 2]
    );
    ratio
}

/// Runs the binary with `args` several times (one warm-up), returning median and min wall time
/// and the peak resident memory of the child processes.
fn measure<S: AsRef<str>>(scenario: &str, size: &str, target: &str, args: &[S]) -> Row {
    let runs = 5;
    let mut times = Vec::with_capacity(runs);
    let mut cpu = Vec::with_capacity(runs);
    let mut peak_kb = 0i64;
    for i in 0..=runs {
        let (elapsed, max_rss_kb, cpu_s) = run_once(&format!("{scenario} {size}"), args);
        peak_kb = peak_kb.max(max_rss_kb);
        if i > 0 {
            times.push(elapsed);
            cpu.push((elapsed, 100.0 * cpu_s / elapsed));
        }
    }
    times.sort_by(f64::total_cmp);
    cpu.sort_by(|a, b| a.0.total_cmp(&b.0));
    eprintln!("{scenario} [{size}]: median {:.3} s", times[runs / 2]);
    Row {
        scenario: scenario.to_string(),
        size: size.to_string(),
        median_s: times[runs / 2],
        min_s: times[0],
        peak_mb: peak_kb as f64 / 1024.0,
        cpu_pct: cpu[runs / 2].1,
        target: target.to_string(),
    }
}

/// Waits for `pid` and returns (exit status, its peak resident set in KiB, its CPU seconds).
fn wait_with_rusage(pid: i32) -> (i32, i64, f64) {
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is a child we spawned and have not waited for yet.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4 failed");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    (
        code,
        usage.ru_maxrss,
        seconds(usage.ru_utime) + seconds(usage.ru_stime),
    )
}
