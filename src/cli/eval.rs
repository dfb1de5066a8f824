//! `sidlens eval`: SID-level Hit/NDCG against collision-corrected ItemHit/ItemNDCG for one
//! beams file, at several K, with inflation, corrections, over-credited groups and per-user
//! values.

use std::path::PathBuf;

use crate::metrics::{Compat, Decode};
use crate::report::document::Document;
use crate::report::eval::{self as report, DecodedJson, EvalJson};
use crate::report::percent;
use crate::usecase::evaluate::{EvalRequest, EvalResult, PaperCheck, evaluate};
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
struct WithPaper<'a> {
    #[serde(flatten)]
    eval: EvalJson,
    decode: Decode,
    #[serde(flatten)]
    decoded: Option<DecodedJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    paper_results: Option<&'a PaperCheck>,
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
    let request = EvalRequest {
        index: args.index.clone(),
        beams: args.beams.clone(),
        ks: args.k.clone(),
        compat: args.compat.into(),
        codebook_size: args.codebook_size,
        sid_format: globals.sid_format,
        groups: args.groups,
        decode: args.decode,
        interactions: args.interactions.clone(),
        per_user: args.per_user.clone(),
    };
    let bar = Bar::new(globals.quiet);
    let result = evaluate(&request, &bar)?;
    drop(bar);
    let EvalResult {
        index,
        collisions,
        summary,
        collision_rate,
        decoded,
        paper,
        warnings,
        notes,
        written,
    } = &result;
    if !globals.quiet {
        for note in notes {
            eprintln!("{note}");
        }
    }
    if let Some(w) = written {
        eprintln!("{w}");
    }
    args.format.warn(warnings);
    if let Some(p) = paper {
        for line in p.disagreement_lines(summary.compat) {
            eprintln!("sidlens: warning: {line}");
        }
    }
    let top = args
        .groups
        .zip(collisions.as_ref())
        .map(|(n, c)| (summary.top_groups(n), c));
    if args.format.json {
        let doc = EvalJson::new(
            summary,
            *collision_rate,
            top.as_ref().map(|(groups, c)| (&groups[..], *c)),
            index,
        );
        return print_json(&WithPaper {
            eval: doc,
            decode: args.decode,
            decoded: decoded.as_ref().map(|d| DecodedJson::new(summary, d)),
            paper_results: paper.as_ref(),
        });
    }
    if args.format.csv {
        return print_csv(&match &top {
            Some((top, c)) => report::groups_csv_table(summary, top, index, c),
            None => report::csv_table(summary),
        });
    }
    let mut doc = Document::new();
    doc.prose(format!(
        "{} against {}\n{} users, {}, collision rate {}\n\n",
        args.beams.display(),
        args.index.display(),
        summary.n_users,
        summary.compat.name(),
        percent(*collision_rate),
    ));
    doc.table(report::table(summary));
    if let Some(d) = decoded {
        doc.prose(format!(
            "\nitem credit inside collision groups: CCE (1/G each) against decoding each SID to one item ({}); recovered = share of the inflation won back\n",
            d.decode
        ));
        doc.table(report::decoded_table(summary, d));
        doc.prose(format!(
            "{} of {} users' target SIDs decode to the target item\n",
            d.users_decoded_to_target, d.n_users
        ));
    }
    let mut notes = String::from("\n");
    notes.push_str(&report::anomaly_lines(&summary.anomalies, summary.compat));
    for w in warnings {
        notes.push_str(&format!("warning: {w}\n"));
    }
    if let Some(p) = paper {
        notes.push_str(&paper_lines(p));
    }
    doc.prose(notes);
    if let Some((top, c)) = &top {
        doc.prose("\n");
        doc.table(report::groups_table(summary, top, index, c));
    }
    args.format.print(&doc)
}
