//! `eval` as one call: an index and one beams file in, every number, note and warning out,
//! so the CLI, the Python module and any other front end only render [`EvalResult`].

use std::path::{Path, PathBuf};

use crate::collision::Collisions;
use crate::collision::popularity::Popularity;
use crate::error::{Error, Result};
use crate::io::write::{ensure_not_input, write_atomically};
use crate::load::dataset::{interactions_of_index, paper_results_of};
use crate::load::{Interactions, SidIndex};
use crate::metrics::paper_results::{Disagreement, PaperResults};
use crate::metrics::{
    Compat, Decode, DecodedAccumulator, DecodedSummary, Decoder, EvalSummary, Evaluator,
    eval_warnings,
};
use crate::progress::Progress;
use crate::sid::scheme::SidScheme;
use crate::usecase::per_user::PerUserSink;

/// What `eval` is asked to compute.
#[derive(Debug, Clone)]
pub struct EvalRequest {
    /// The SID index the beams were generated against.
    pub index: PathBuf,
    /// The beams file.
    pub beams: PathBuf,
    /// Cut-offs, each at least 1 (sorted and deduplicated here).
    pub ks: Vec<usize>,
    /// Metric semantics.
    pub compat: Compat,
    /// Codebook size V (default: the largest code + 1).
    pub codebook_size: Option<usize>,
    /// How the index's and the beams' SIDs are written (`None`: detected).
    pub sid_format: Option<SidScheme>,
    /// List the N most over-credited groups at the largest K.
    pub groups: Option<usize>,
    /// Item-level credit shown beside CCE.
    pub decode: Decode,
    /// Interactions for popular decoding (default: the dataset's, found from the index).
    pub interactions: Option<PathBuf>,
    /// Also write every user's values here (atomically; never over an input).
    pub per_user: Option<PathBuf>,
}

/// The paper's `<VARIANT>.json` found beside the beams, and where sidlens disagrees with it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PaperCheck {
    /// What the file reports.
    #[serde(flatten)]
    pub results: PaperResults,
    /// The reported values sidlens does not reproduce.
    pub disagreements: Vec<Disagreement>,
}

impl PaperCheck {
    /// One line per disagreement, as every surface words it.
    pub fn disagreement_lines(&self, compat: Compat) -> Vec<String> {
        self.disagreements
            .iter()
            .map(|d| {
                format!(
                    "{} reports {} = {}, sidlens computes {} from the beams ({}{})",
                    self.results.path.display(),
                    d.metric,
                    d.reported,
                    d.computed,
                    compat.name(),
                    if compat == Compat::Faithful {
                        "; --compat cce-py reproduces test.py"
                    } else {
                        ""
                    }
                )
            })
            .collect()
    }
}

/// Everything `eval` computed: the numbers and what a reader must know about them.
#[derive(Debug)]
pub struct EvalResult {
    /// The index as loaded (names the items of the over-credited groups).
    pub index: SidIndex,
    /// Its collision groups, when the groups or a decoder needed them by name.
    pub collisions: Option<Collisions>,
    /// The metrics at every K, the anomalies and the over-credited groups.
    pub summary: EvalSummary,
    /// Items in collision groups / items.
    pub collision_rate: f64,
    /// The alternative item-level credit, when a decoding other than CCE was asked for.
    pub decoded: Option<DecodedSummary>,
    /// The paper's own aggregates for these beams, when `test.py` wrote them beside.
    pub paper: Option<PaperCheck>,
    /// What the numbers need said beside them (K beyond the beam width, foreign beams).
    pub warnings: Vec<String>,
    /// Notes for a person watching (where the popularity came from), which `--quiet` hushes.
    pub notes: Vec<String>,
    /// What was written, said even when quiet: `--per-user`'s file and its number of users.
    pub written: Option<String>,
}

/// Runs `eval`: loads the index, streams the beams once (writing per-user values on the
/// way when asked), and gathers every number and warning.
pub fn evaluate(request: &EvalRequest, progress: &dyn Progress) -> Result<EvalResult> {
    let mut ks = request.ks.clone();
    ks.sort_unstable();
    ks.dedup();
    if let Some(out) = &request.per_user {
        ensure_not_input(out, &[&request.index, &request.beams])?;
    }
    let index = SidIndex::load_as(&request.index, request.codebook_size, request.sid_format)?;
    let mut notes = Vec::new();
    // Naming groups (the credit table, a decoder's picks) needs them in SID order; a plain
    // summary does not, and skips sorting every item by SID.
    let named_groups = request.groups.is_some() || request.decode != Decode::Cce;
    let collisions = named_groups.then(|| Collisions::new(&index));
    let popularity = if request.decode.needs_popularity() {
        let path = match request.interactions.clone() {
            Some(p) => p,
            None => interactions_of_index(&request.index).ok_or_else(|| {
                Error::Invalid(
                    "--decode popular needs --interactions FILE (no <DS>.inter.json beside the index's indexes/ folder); its training part, all but each user's last two items, gives the popularity".into(),
                )
            })?,
        };
        let interactions = Interactions::load(&path)?;
        let p = Popularity::training(&index, &interactions);
        notes.push(format!(
            "popularity: {} training interactions from {} (each user's last 2 held out; {} with items not in the index)",
            p.n_counted,
            path.display(),
            p.n_unknown
        ));
        Some(p)
    } else {
        None
    };
    let decoder = collisions
        .as_ref()
        .and_then(|c| Decoder::new(request.decode, &index, c, popularity.as_ref()));
    let mut decoded = decoder.as_ref().map(|d| DecodedAccumulator::new(d, &ks));
    let mut evaluator = match &collisions {
        Some(c) => Evaluator::new(&index, c, request.compat),
        None => Evaluator::without_collisions(&index, request.compat),
    }
    .with_beams_scheme(request.sid_format);
    let track_groups = request.groups.is_some();
    let summary = match &request.per_user {
        None => evaluator.summarize_file(&request.beams, &ks, track_groups, progress, |_, o| {
            if let Some(acc) = decoded.as_mut() {
                acc.add(o);
            }
            Ok(())
        })?,
        Some(out) => write_per_user(
            out,
            &mut evaluator,
            request,
            &ks,
            &index,
            decoder.as_ref(),
            &mut decoded,
            progress,
        )?,
    };
    let collision_rate = evaluator.collision_rate();
    let decoded = decoded.map(DecodedAccumulator::finish);
    let warnings = eval_warnings(&summary);
    let paper = match paper_results_of(&request.beams) {
        Some(path) => {
            let results = PaperResults::load(&path)?;
            let disagreements = results.disagreements(&summary, collision_rate);
            Some(PaperCheck {
                results,
                disagreements,
            })
        }
        None => None,
    };
    let written = request.per_user.as_ref().map(|out| {
        format!(
            "wrote the values of {} users to {}",
            summary.n_users,
            out.display()
        )
    });
    drop(evaluator);
    drop(decoder);
    Ok(EvalResult {
        index,
        collisions,
        summary,
        collision_rate,
        decoded,
        paper,
        warnings,
        notes,
        written,
    })
}

/// Evaluates while writing every user's values to `out`, all or nothing: a failed
/// evaluation leaves no file.
#[allow(clippy::too_many_arguments)]
fn write_per_user(
    out: &Path,
    evaluator: &mut Evaluator,
    request: &EvalRequest,
    ks: &[usize],
    index: &SidIndex,
    decoder: Option<&Decoder>,
    decoded: &mut Option<DecodedAccumulator>,
    progress: &dyn Progress,
) -> Result<EvalSummary> {
    let mut failure = None;
    let mut summary = None;
    let written = write_atomically(out, |w| {
        let mut sink = PerUserSink::new(out, w, ks, decoder.is_some())?;
        let result = evaluator.summarize_file(
            &request.beams,
            ks,
            request.groups.is_some(),
            progress,
            |user, outcome| {
                if let Some(acc) = decoded.as_mut() {
                    acc.add(outcome);
                }
                sink.write(user, outcome, index, ks, decoder)
                    .map_err(|e| Error::io(out, e))
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
        return Err(e);
    }
    written?;
    summary.ok_or_else(|| Error::Invalid("evaluation produced no summary".into()))
}
