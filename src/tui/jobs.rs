//! Background work (loading, evaluation, ZCR, t-SNE, the collaborative space) on threads, reporting `Progress / Done /
//! Failed` tagged with a target and generation so superseded answers are dropped; a newer
//! request for a target cancels the older one through the library's `Progress::cancelled`.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::{Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

use std::path::{Path, PathBuf};

use crate::collab::CfConfig;
use crate::compare::pairwise::TestSettings;
use crate::load::dataset::interactions_of_index;
use crate::load::{ItemTexts, Latents};
use crate::metrics::{Compat, Decode};
use crate::progress::{CancelFlag, Progress};
use crate::projection::{ItemRows, ProjectionParams};
use crate::reassign::provenance::remedy_of;
use crate::usecase::Tokenizer;
use crate::usecase::stats::IndexReport;
use crate::usecase::{self, CompareReport, EvaluatedTokenizer};

use super::data::{Evaluated, Projected, Reassigned, TokenizerData};
use super::sources::Sources;

/// What a message is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Topic {
    /// Item metadata.
    Items,
    /// Tokenizer n's index and groups.
    Index(usize),
    /// Tokenizer n's evaluated beams.
    Metrics(usize),
    /// Tokenizer n's reassignment plan.
    Reassign(usize),
    /// The scatter's projection.
    Projection,
    /// The collaborative embedding of the interactions and its projection.
    Collaborative,
    /// The paired tests between every pair of evaluated tokenizers at the current K.
    Tests,
}

/// A message from a job to the UI thread.
#[derive(Debug)]
pub struct JobMsg {
    /// What it is about.
    pub target: Topic,
    /// Which request it answers.
    pub generation: u64,
    /// What happened.
    pub event: JobEvent,
}

/// What happened in a job.
#[derive(Debug)]
pub enum JobEvent {
    /// Work in progress: `done` of `total` units of `stage` (`total` 0 when unknown).
    Progress {
        /// Stage name, e.g. "reading index".
        stage: String,
        /// Units done.
        done: u64,
        /// Units in the stage (0 when unknown).
        total: u64,
    },
    /// The result.
    Done(Payload),
    /// The job failed; the message names the file and the place.
    Failed(String),
}

/// A job's result.
#[derive(Debug)]
pub enum Payload {
    /// Item metadata.
    Items(Arc<ItemTexts>),
    /// A loaded tokenizer.
    Index(Arc<TokenizerData>),
    /// A tokenizer's evaluation.
    Metrics(Arc<Evaluated>),
    /// A tokenizer's reassignment.
    Reassign(Arc<Reassigned>),
    /// The projection.
    Projection(Arc<Projected>),
    /// The collaborative space, projected like the embeddings.
    Collaborative(Arc<Projected>),
    /// The comparison with its paired tests.
    Tests(Arc<CompareReport>),
}

/// One tokenizer as the tests job compares it: name, loaded index, evaluation (if any).
pub type Compared = (String, Arc<TokenizerData>, Option<Arc<Evaluated>>);

/// Work the app asks for.
#[derive(Debug, Clone)]
pub enum Request {
    /// Load item metadata and every tokenizer's index (answers `Items` and each `Index(i)`).
    Load(Sources),
    /// Evaluate a tokenizer's beams files (one per seed).
    Evaluate {
        /// Which tokenizer.
        tokenizer: usize,
        /// Its loaded index.
        data: Arc<TokenizerData>,
        /// The beams files.
        beams: Vec<PathBuf>,
        /// Semantics of the metrics.
        compat: Compat,
    },
    /// Plan ZCR and greedy for a tokenizer (with vectors: ΔD; without: minimum changes).
    Reassign {
        /// Which tokenizer.
        tokenizer: usize,
        /// Its loaded index.
        data: Arc<TokenizerData>,
        /// Latents, for ΔD.
        latents: Option<PathBuf>,
        /// Codebooks (estimated from the latents when absent).
        codebooks: Option<PathBuf>,
        /// Titles for the rows.
        texts: Option<Arc<ItemTexts>>,
    },
    /// Project the item embeddings, keeping the largest groups of a tokenizer in the sample.
    Project {
        /// The embeddings file.
        embeddings: PathBuf,
        /// The tokenizer whose largest groups must be in the sample.
        data: Arc<TokenizerData>,
        /// t-SNE settings.
        params: ProjectionParams,
        /// How many of the largest groups must be in the sample.
        highlight: usize,
    },
    /// Embed the interactions (PPMI + truncated SVD) and project that space like `Project`,
    /// on the same items, so both scatters show the same points.
    Collaborative {
        /// The interactions file.
        interactions: PathBuf,
        /// The tokenizer whose index places the rows and whose largest groups are kept.
        data: Arc<TokenizerData>,
        /// Embedding rows to match (the text embeddings' rows), so the samples agree.
        n_rows: Option<usize>,
        /// t-SNE settings.
        params: ProjectionParams,
        /// How many of the largest groups must be in the sample.
        highlight: usize,
    },
    /// Compare the evaluated tokenizers at `k` with paired tests, as `sidlens compare` does.
    Test {
        /// Name, loaded index and evaluation of each tokenizer compared, in tokenizer order.
        tokenizers: Vec<Compared>,
        /// The cut-off.
        k: usize,
        /// Semantics of the metrics.
        compat: Compat,
        /// How the tests run and decide (`sidlens compare`'s defaults).
        settings: TestSettings,
    },
}

impl Request {
    /// What the request answers; a newer request for it cancels the older one.
    fn target(&self) -> Topic {
        match self {
            Request::Load(_) => Topic::Items,
            Request::Evaluate { tokenizer, .. } => Topic::Metrics(*tokenizer),
            Request::Reassign { tokenizer, .. } => Topic::Reassign(*tokenizer),
            Request::Project { .. } => Topic::Projection,
            Request::Collaborative { .. } => Topic::Collaborative,
            Request::Test { .. } => Topic::Tests,
        }
    }
}

/// Runs jobs on threads and collects their messages.
pub struct Jobs {
    tx: Sender<JobMsg>,
    rx: Receiver<JobMsg>,
    running: HashMap<Topic, Arc<CancelFlag>>,
}

impl Default for Jobs {
    fn default() -> Self {
        let (tx, rx) = channel();
        Jobs {
            tx,
            rx,
            running: HashMap::new(),
        }
    }
}

impl Jobs {
    /// Starts `request` on a new thread, cancelling an older request of the same kind.
    pub fn start(&mut self, request: Request, generation: u64) {
        let cancel = Arc::new(CancelFlag::default());
        let target = request.target();
        if let Some(old) = self.running.insert(target, cancel.clone()) {
            old.cancel();
        }
        let tx = self.tx.clone();
        let name = format!("sidlens-job-{target:?}");
        let spawned = std::thread::Builder::new()
            .name(name)
            .spawn(move || run(request, generation, &cancel, &tx));
        if let Err(e) = spawned {
            let _ = self.tx.send(JobMsg {
                target,
                generation,
                event: JobEvent::Failed(format!("could not start a background thread: {e}")),
            });
        }
    }

    /// The next message, if one is waiting.
    pub fn try_recv(&self) -> Option<JobMsg> {
        self.rx.try_recv().ok()
    }

    /// Asks every running job to stop.
    pub fn cancel_all(&mut self) {
        for (_, flag) in self.running.drain() {
            flag.cancel();
        }
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        self.cancel_all();
    }
}

/// Runs `request` on the calling thread, sending its messages to `tx`. A panic inside the
/// library becomes a `Failed` message instead of taking the UI down.
pub fn run(request: Request, generation: u64, cancel: &CancelFlag, tx: &Sender<JobMsg>) {
    let target = request.target();
    let sink = Sink::new(tx, target, generation, cancel);
    let result = match request {
        Request::Load(sources) => return load(&sources, generation, cancel, tx),
        Request::Evaluate {
            data,
            beams,
            compat,
            ..
        } => guarded(|| evaluate(&data, &beams, compat, &sink))
            .map(|e| Payload::Metrics(Arc::new(e))),
        Request::Reassign {
            data,
            latents,
            codebooks,
            texts,
            ..
        } => guarded(|| {
            plan(
                &data,
                latents.as_deref(),
                codebooks.as_deref(),
                texts.as_deref(),
                &sink,
            )
        })
        .map(|r| Payload::Reassign(Arc::new(r))),
        Request::Project {
            embeddings,
            data,
            params,
            highlight,
        } => guarded(|| project(&embeddings, &data, &params, highlight, &sink))
            .map(|p| Payload::Projection(Arc::new(p))),
        Request::Collaborative {
            interactions,
            data,
            n_rows,
            params,
            highlight,
        } => guarded(|| collaborative(&interactions, &data, n_rows, &params, highlight, &sink))
            .map(|p| Payload::Collaborative(Arc::new(p))),
        Request::Test {
            tokenizers,
            k,
            compat,
            settings,
        } => guarded(|| test(&tokenizers, k, compat, settings, &sink))
            .map(|r| Payload::Tests(Arc::new(r))),
    };
    let event = match result {
        Ok(payload) => JobEvent::Done(payload),
        Err(e) => JobEvent::Failed(e),
    };
    let _ = tx.send(JobMsg {
        target,
        generation,
        event,
    });
}

/// Every user's outcome of each beams file (one per seed), checked to cover the same users.
fn evaluate(
    data: &TokenizerData,
    beams: &[PathBuf],
    compat: Compat,
    sink: &Sink<'_>,
) -> Result<Evaluated, String> {
    let seeds = usecase::evaluate_seeds(beams, &data.index, &data.collisions, compat, sink)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "no beams file to evaluate".to_string())?;
    Ok(Evaluated::new(seeds))
}

/// The comparison at `k` with the paired tests between every pair, by the library call
/// `sidlens compare` makes.
fn test(
    tokenizers: &[Compared],
    k: usize,
    compat: Compat,
    settings: TestSettings,
    sink: &Sink<'_>,
) -> Result<CompareReport, String> {
    let evaluated: Vec<EvaluatedTokenizer> = tokenizers
        .iter()
        .map(|(name, data, m)| EvaluatedTokenizer {
            name,
            index: &data.index,
            collisions: &data.collisions,
            seeds: m.as_ref().map(|m| &m.seeds),
            files: None,
        })
        .collect();
    usecase::compare_evaluated(
        &evaluated,
        &[k],
        compat,
        Some(settings),
        (Decode::Cce, None),
        sink,
    )
    .map_err(|e| e.to_string())
}

/// ZCR and greedy for every prefix group with a collision, as `sidlens zcr` plans them.
fn plan(
    data: &TokenizerData,
    latents: Option<&Path>,
    codebooks: Option<&Path>,
    texts: Option<&ItemTexts>,
    sink: &Sink<'_>,
) -> Result<Reassigned, String> {
    let plan = usecase::plan_reassignment(&data.index, &data.collisions, latents, codebooks, sink)
        .map_err(|e| e.to_string())?;
    Ok(Reassigned::new(&data.index, plan, texts))
}

/// The t-SNE of the embeddings on a sample that keeps the `highlight` largest groups, from the
/// user's cache when it has it, as `sidlens project` computes it.
fn project(
    path: &Path,
    data: &TokenizerData,
    params: &ProjectionParams,
    highlight: usize,
    sink: &Sink<'_>,
) -> Result<Projected, String> {
    sink.stage("reading embeddings", 0);
    let embeddings = Latents::load(path).map_err(|e| e.to_string())?;
    let items = ItemRows::new(
        &data.index,
        &data.collisions,
        embeddings.n_rows(),
        highlight,
    )
    .map_err(|e| e.to_string())?;
    let (projection, cache) = usecase::project_items(&embeddings, Some(&items), params, true, sink)
        .map_err(|e| format!("projecting {}: {e}", path.display()))?;
    Ok(Projected {
        projection,
        cache,
        must_include: items.highlighted().len(),
        embeddings: Arc::new(embeddings),
    })
}

/// The collaborative embedding of `path` (rows by the tokenizer's index), projected on the
/// sample `project` takes of the same items; the t-SNE comes from the user's cache when it has
/// it (the embedding is deterministic, so its key is stable).
fn collaborative(
    path: &Path,
    data: &TokenizerData,
    n_rows: Option<usize>,
    params: &ProjectionParams,
    highlight: usize,
    sink: &Sink<'_>,
) -> Result<Projected, String> {
    let (space, embedding) =
        usecase::collaborative_space(path, &data.index, &CfConfig::default(), sink)
            .map_err(|e| e.to_string())?;
    let n = n_rows.unwrap_or(space.n_rows());
    if space.n_rows() != n {
        return Err(format!(
            "{}: the collaborative space has {} rows but the embeddings have {n}; both follow the index's item ids",
            path.display(),
            space.n_rows()
        ));
    }
    let items =
        ItemRows::new(&data.index, &data.collisions, n, highlight).map_err(|e| e.to_string())?;
    let active = |&row: &usize| embedding.vectors.row(row).iter().any(|&v| v != 0.0);
    let candidates: Vec<usize> = items.rows().iter().copied().filter(active).collect();
    let must_include: Vec<usize> = items.highlighted().iter().copied().filter(active).collect();
    let (mut projection, cache) =
        usecase::project_candidates(&space, &candidates, &must_include, params, true, sink)
            .map_err(|e| {
                format!(
                    "projecting the collaborative space of {}: {e}",
                    path.display()
                )
            })?;
    let left_out = items.rows().len() - candidates.len();
    if left_out > 0 {
        projection
            .notes
            .push(format!("{left_out} items without co-occurrences left out"));
    }
    Ok(Projected {
        projection,
        cache,
        must_include: must_include.len(),
        embeddings: Arc::new(space),
    })
}

/// Loads metadata and indexes in parallel; each tokenizer is reported as soon as it is ready.
fn load(sources: &Sources, generation: u64, cancel: &CancelFlag, tx: &Sender<JobMsg>) {
    let send = |target, event| {
        let _ = tx.send(JobMsg {
            target,
            generation,
            event,
        });
    };
    std::thread::scope(|scope| {
        let texts_job = sources.items.as_ref().map(|path| {
            spawn_named(scope, "items", move || {
                let sink = Sink::new(tx, Topic::Items, generation, cancel);
                sink.stage("reading item metadata", 0);
                guarded(|| ItemTexts::load(path).map_err(|e| e.to_string()))
            })
        });
        let index_jobs: Vec<_> = sources
            .tokenizers
            .iter()
            .enumerate()
            .map(|(i, source)| {
                spawn_named(scope, "index", move || {
                    let sink = Sink::new(tx, Topic::Index(i), generation, cancel);
                    sink.stage("reading index", 0);
                    guarded(|| {
                        Tokenizer::open(source.clone(), sources.codebook_size, None)
                            .map_err(|e| e.to_string())
                    })
                })
            })
            .collect();
        let texts = match texts_job.map(join) {
            None => None,
            Some(Ok(texts)) => {
                let texts = Arc::new(texts);
                send(Topic::Items, JobEvent::Done(Payload::Items(texts.clone())));
                Some(texts)
            }
            Some(Err(e)) => {
                send(Topic::Items, JobEvent::Failed(e));
                None
            }
        };
        for (i, job) in index_jobs.into_iter().enumerate() {
            let event = join(job).and_then(|tokenizer| {
                Sink::new(tx, Topic::Index(i), generation, cancel).stage("listing groups", 0);
                guarded(|| {
                    let path = &sources.tokenizers[i].index;
                    let interactions = interactions_of_index(path);
                    let report = IndexReport::of(&tokenizer, interactions.as_deref())
                        .map_err(|e| e.to_string())?;
                    let mut data = TokenizerData::new(tokenizer, report, texts.as_deref());
                    data.remedy = remedy_of(path);
                    Ok(data)
                })
            });
            let event = match event {
                Ok(data) => JobEvent::Done(Payload::Index(Arc::new(data))),
                Err(e) => JobEvent::Failed(e),
            };
            send(Topic::Index(i), event);
        }
    });
}

type Loader<'scope, T> = Option<ScopedJoinHandle<'scope, Result<T, String>>>;

/// Starts a named loader thread (names tell the panic hook it is not the UI thread).
fn spawn_named<'scope, 'env, T: Send + 'scope>(
    scope: &'scope Scope<'scope, 'env>,
    name: &str,
    f: impl FnOnce() -> Result<T, String> + Send + 'scope,
) -> Loader<'scope, T> {
    std::thread::Builder::new()
        .name(format!("sidlens-job-{name}"))
        .spawn_scoped(scope, f)
        .ok()
}

fn join<T>(handle: Loader<'_, T>) -> Result<T, String> {
    match handle {
        Some(h) => h
            .join()
            .unwrap_or_else(|_| Err("internal error: a loader thread stopped".into())),
        None => Err("could not start a background thread".into()),
    }
}

/// Runs `f`, turning a panic into an error message.
fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        Err(format!("internal error (please report): {what}"))
    })
}

/// The library's progress events, forwarded over the channel at most every 50 ms.
struct Sink<'a> {
    tx: &'a Sender<JobMsg>,
    target: Topic,
    generation: u64,
    cancel: &'a CancelFlag,
    state: Mutex<SinkState>,
}

struct SinkState {
    stage: String,
    done: u64,
    total: u64,
    sent: Option<Instant>,
}

const PROGRESS_INTERVAL: Duration = Duration::from_millis(50);

impl<'a> Sink<'a> {
    fn new(tx: &'a Sender<JobMsg>, target: Topic, generation: u64, cancel: &'a CancelFlag) -> Self {
        Sink {
            tx,
            target,
            generation,
            cancel,
            state: Mutex::new(SinkState {
                stage: String::new(),
                done: 0,
                total: 0,
                sent: None,
            }),
        }
    }

    fn send(&self, state: &mut SinkState, force: bool) {
        let due = state.sent.is_none_or(|t| t.elapsed() >= PROGRESS_INTERVAL);
        if force || due || (state.total > 0 && state.done >= state.total) {
            state.sent = Some(Instant::now());
            let _ = self.tx.send(JobMsg {
                target: self.target,
                generation: self.generation,
                event: JobEvent::Progress {
                    stage: state.stage.clone(),
                    done: state.done,
                    total: state.total,
                },
            });
        }
    }
}

impl Progress for Sink<'_> {
    fn stage(&self, name: &str, total: u64) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        state.stage = name.to_string();
        state.done = 0;
        state.total = total;
        self.send(&mut state, true);
    }

    fn advance(&self, n: u64) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        state.done += n;
        self.send(&mut state, false);
    }

    fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::TokenizerFiles;

    #[test]
    fn load_reports_each_tokenizer_and_errors_with_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.json");
        std::fs::write(&good, r#"{"1": [1, 2], "2": [1, 2], "3": [4, 5]}"#).unwrap();
        let sources = Sources {
            title: "t".into(),
            tokenizers: vec![
                TokenizerFiles::index_only("good", &good),
                TokenizerFiles::index_only("missing", dir.path().join("nope.json")),
            ],
            ..Sources::default()
        };
        let (tx, rx) = channel();
        run(Request::Load(sources), 7, &CancelFlag::default(), &tx);
        drop(tx);
        let msgs: Vec<JobMsg> = rx.iter().collect();
        assert!(msgs.iter().all(|m| m.generation == 7));
        let done = msgs.iter().find_map(|m| match (&m.target, &m.event) {
            (Topic::Index(0), JobEvent::Done(Payload::Index(d))) => Some(d.clone()),
            _ => None,
        });
        assert_eq!(done.unwrap().rows[0].size, 2);
        let failed = msgs.iter().find_map(|m| match (&m.target, &m.event) {
            (Topic::Index(1), JobEvent::Failed(e)) => Some(e.clone()),
            _ => None,
        });
        assert!(failed.unwrap().contains("nope.json"));
    }
}
