//! `sidlens eval`: SID-level Hit/NDCG against collision-corrected ItemHit/ItemNDCG for one
//! beams file, at several K, with inflation, corrections, over-credited groups and per-user
//! values.

use std::path::PathBuf;

use crate::collision::Collisions;
use crate::collision::popularity::Popularity;
use crate::io::write::{ensure_not_input, write_atomically};
use crate::load::dataset::{interactions_of_index, paper_results_of};
use crate::load::{Interactions, SidIndex};
use crate::metrics::paper_results::{Disagreement, PaperResults};
use crate::metrics::{Compat, Decode, DecodedAccumulator, Decoder, Evaluator};
use crate::report::document::Document;
use crate::report::eval::{self as report, DecodedJson, EvalJson};
use crate::report::per_user::PerUserSink;
use crate::report::percent;
use anyhow::Context;
use serde::Serialize;

use super::Globals;
use super::print::print_json;
use super::progress::Bar;
use super::table_format::{TableFormat, print_csv};

/// Arguments of `sidlens eval`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The SID index the beams were generated against.
    #[arg(long, value_name = "FILE")]
    index: PathBuf,
    /// Beam outputs: the reference per-user JSON array or JSON Lines, one record per user, or
    /// a Parquet / Arrow table with the same fields as columns.
    #[arg(long, value_name = "FILE")]
    beams: PathBuf,
    /// Cut-offs K (comma-separated, each at least 1).
    #[arg(long, value_name = "K,...", value_delimiter = ',', default_values_t = [1, 5, 10, 20], value_parser = parse_k)]
    k: Vec<usize>,
    /// Semantics: `faithful` (default) or `cce-py`, which reproduces the reference cce.py
    /// exactly, quirks included.
    #[arg(long, value_enum, default_value_t = CompatArg::Faithful)]
    compat: CompatArg,
    /// Codebook size V (default: the largest code + 1).
    #[arg(long, value_name = "V", value_parser = super::at_least_one)]
    codebook_size: Option<usize>,
    /// Also write every user's values as JSON Lines to FILE, or as a Parquet / Arrow table
    /// when FILE ends in `.parquet`, `.arrow` or `.feather` (atomically; never over an input).
    #[arg(long, value_name = "FILE")]
    per_user: Option<PathBuf>,
    /// Also list the N collision groups over-credited most at the largest K.
    #[arg(long, value_name = "N")]
    groups: Option<usize>,
    /// Item-level credit shown beside CCE (never instead of it): `cce` (none), `popular`
    /// (each SID decodes to its most popular item in the training interactions, ties by id)
    /// or `random:SEED` (to one of its items, drawn once per SID with the seeded generator).
    #[arg(long, value_name = "MODE", default_value = "cce", value_parser = parse_decode)]
    decode: Decode,
    /// Interactions `{"user": [items...]}` for `--decode popular`; their training part (all
    /// but each user's last two items) gives the popularity. Default: the `<DS>.inter.json` of
    /// the index's dataset folder (`<DS>/indexes/<VARIANT>/<DS>.index.json`).
    #[arg(long, value_name = "FILE")]
    interactions: Option<PathBuf>,
    #[command(flatten)]
    format: TableFormat,
}

/// Parses `--decode`, so a bad mode is a usage error.
pub fn parse_decode(s: &str) -> Result<Decode, String> {
    s.parse()
}

/// The `--compat` choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompatArg {
    /// Drop beam SIDs that name no item, count repeats once, report both.
    Faithful,
    /// Reproduce the reference cce.py + test.py exactly.
    #[value(name = "cce-py")]
    CcePy,
}

impl From<CompatArg> for Compat {
    fn from(c: CompatArg) -> Self {
        match c {
            CompatArg::Faithful => Compat::Faithful,
            CompatArg::CcePy => Compat::CcePy,
        }
    }
}

/// Parses one K (at least 1), so a bad K is a usage error.
pub fn parse_k(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(k) if k >= 1 => Ok(k),
        _ => Err(format!("K must be a whole number of at least 1, not {s:?}")),
    }
}

/// `eval --json` with the paper's aggregates when `test.py` wrote them beside the beams.
#[derive(Serialize)]
struct WithPaper {
    #[serde(flatten)]
    eval: EvalJson,
    decode: Decode,
    #[serde(flatten)]
    decoded: Option<DecodedJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    paper_results: Option<PaperCheck>,
}

/// The paper's `<VARIANT>.json` and where sidlens's recomputation disagrees with it.
#[derive(Serialize)]
struct PaperCheck {
    #[serde(flatten)]
    results: PaperResults,
    disagreements: Vec<Disagreement>,
}

/// Reads `<VARIANT>.json` beside a `<VARIANT>_per_user.json` and checks it.
fn paper_check(
    beams: &std::path::Path,
    summary: &crate::metrics::EvalSummary,
    collision_rate: f64,
) -> anyhow::Result<Option<PaperCheck>> {
    let Some(path) = paper_results_of(beams) else {
        return Ok(None);
    };
    let results = PaperResults::load(&path)?;
    let disagreements = results.disagreements(summary, collision_rate);
    Ok(Some(PaperCheck {
        results,
        disagreements,
    }))
}

/// The text lines of the paper check.
fn paper_lines(p: &PaperCheck) -> String {
    let checked = p.results.metrics.len()
        + usize::from(p.results.collision_rate.is_some())
        + usize::from(p.results.total.is_some());
    let mut s = format!(
        "\nreported by test.py in {} (zcr_mode {}): ",
        p.results.path.display(),
        p.results.zcr_mode.as_deref().unwrap_or("not given")
    );
    if p.disagreements.is_empty() {
        s.push_str(&format!("{checked} values, all reproduced\n"));
    } else {
        s.push_str(&format!(
            "{} of {checked} values differ from sidlens's:\n",
            p.disagreements.len()
        ));
        for d in &p.disagreements {
            s.push_str(&format!(
                "  {:<12} reported {:.6}  computed {:.6}\n",
                d.metric, d.reported, d.computed
            ));
        }
    }
    s
}

/// Runs `sidlens eval`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    let mut ks = args.k.clone();
    ks.sort_unstable();
    ks.dedup();
    if let Some(out) = &args.per_user {
        ensure_not_input(out, &[&args.index, &args.beams])?;
    }
    let index = SidIndex::load_as(&args.index, args.codebook_size, globals.sid_format)?;
    // Naming groups (the credit table, a decoder's picks) needs them in SID order; a plain
    // summary does not, and skips sorting every item by SID.
    let named_groups = args.groups.is_some() || args.decode != Decode::Cce;
    let collisions = named_groups.then(|| Collisions::new(&index));
    let popularity = if args.decode.needs_popularity() {
        let path = match args.interactions.clone() {
            Some(p) => p,
            None => interactions_of_index(&args.index).context(
                "--decode popular needs --interactions FILE (no <DS>.inter.json beside the index's indexes/ folder); its training part, all but each user's last two items, gives the popularity",
            )?,
        };
        let interactions = Interactions::load(&path)?;
        let p = Popularity::training(&index, &interactions);
        if !globals.quiet {
            eprintln!(
                "popularity: {} training interactions from {} (each user's last 2 held out; {} with items not in the index)",
                p.n_counted,
                path.display(),
                p.n_unknown
            );
        }
        Some(p)
    } else {
        None
    };
    let decoder = collisions
        .as_ref()
        .and_then(|c| Decoder::new(args.decode, &index, c, popularity.as_ref()));
    let mut decoded = decoder.as_ref().map(|d| DecodedAccumulator::new(d, &ks));
    let mut evaluator = match &collisions {
        Some(c) => Evaluator::new(&index, c, args.compat.into()),
        None => Evaluator::without_collisions(&index, args.compat.into()),
    }
    .with_beams_scheme(globals.sid_format);
    let bar = Bar::new(globals.quiet);
    let summary = match &args.per_user {
        None => evaluator.summarize_file(
            &args.beams,
            &ks,
            args.groups.is_some(),
            &bar,
            |_, outcome| {
                if let Some(acc) = decoded.as_mut() {
                    acc.add(outcome);
                }
                Ok(())
            },
        )?,
        Some(out) => {
            let mut failure = None;
            let mut summary = None;
            let written = write_atomically(out, |w| {
                let mut sink = PerUserSink::new(out, w, &ks, decoder.is_some())?;
                let result = evaluator.summarize_file(
                    &args.beams,
                    &ks,
                    args.groups.is_some(),
                    &bar,
                    |user, outcome| {
                        if let Some(acc) = decoded.as_mut() {
                            acc.add(outcome);
                        }
                        sink.write(user, outcome, &index, &ks, decoder.as_ref())
                            .map_err(|e| crate::Error::io(out, e))
                    },
                );
                match result {
                    Ok(s) => {
                        summary = Some(s);
                        sink.finish()
                    }
                    Err(e) => {
                        failure = Some(e);
                        Err(std::io::Error::other("evaluation failed"))
                    }
                }
            });
            if let Some(e) = failure {
                return Err(e.into());
            }
            written?;
            let summary = summary.context("evaluation produced no summary")?;
            eprintln!(
                "wrote the values of {} users to {}",
                summary.n_users,
                out.display()
            );
            summary
        }
    };
    drop(bar);
    let decoded = decoded.map(DecodedAccumulator::finish);
    let warnings = crate::metrics::eval_warnings(&summary);
    for w in &warnings {
        super::print::message(&format!("warning: {w}"));
    }
    let collision_rate = evaluator.collision_rate();
    let top = args
        .groups
        .zip(collisions.as_ref())
        .map(|(n, c)| (summary.top_groups(n), c));
    let paper = paper_check(&args.beams, &summary, collision_rate)?;
    if let Some(p) = &paper {
        for d in &p.disagreements {
            eprintln!(
                "sidlens: warning: {} reports {} = {}, sidlens computes {} from the beams ({}{})",
                p.results.path.display(),
                d.metric,
                d.reported,
                d.computed,
                summary.compat.name(),
                if summary.compat == Compat::Faithful {
                    "; --compat cce-py reproduces test.py"
                } else {
                    ""
                }
            );
        }
    }
    if args.format.json {
        let doc = EvalJson::new(
            &summary,
            collision_rate,
            top.as_ref().map(|(groups, c)| (&groups[..], *c)),
            &index,
        );
        return print_json(&WithPaper {
            eval: doc,
            decode: args.decode,
            decoded: decoded.as_ref().map(|d| DecodedJson::new(&summary, d)),
            paper_results: paper,
        });
    }
    if args.format.csv {
        return print_csv(&match &top {
            Some((top, c)) => report::groups_csv_table(&summary, top, &index, c),
            None => report::csv_table(&summary),
        });
    }
    let mut doc = Document::new();
    doc.prose(format!(
        "{} against {}\n{} users, {}, collision rate {}\n\n",
        args.beams.display(),
        args.index.display(),
        summary.n_users,
        summary.compat.name(),
        percent(collision_rate),
    ));
    doc.table(report::table(&summary));
    if let Some(d) = &decoded {
        doc.prose(format!(
            "\nitem credit inside collision groups: CCE (1/G each) against decoding each SID to one item ({}); recovered = share of the inflation won back\n",
            d.decode
        ));
        doc.table(report::decoded_table(&summary, d));
        doc.prose(format!(
            "{} of {} users' target SIDs decode to the target item\n",
            d.users_decoded_to_target, d.n_users
        ));
    }
    let mut notes = String::from("\n");
    notes.push_str(&report::anomaly_lines(&summary.anomalies, summary.compat));
    for w in &warnings {
        notes.push_str(&format!("warning: {w}\n"));
    }
    if let Some(p) = &paper {
        notes.push_str(&paper_lines(p));
    }
    doc.prose(notes);
    if let Some((top, c)) = &top {
        doc.prose("\n");
        doc.table(report::groups_table(&summary, top, &index, c));
    }
    args.format.print(&doc)
}
