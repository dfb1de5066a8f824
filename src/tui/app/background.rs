//! Background work as the app sees it: each request gets a new generation for its topic, and
//! answers (progress, a result, a failure) of older generations are dropped. A loaded index
//! starts its tokenizer's evaluation and reassignment and the projections; a changed beams
//! file re-evaluates; once every evaluation is in, the paired tests start.

use super::{App, Command};
use crate::compare::pairwise::TestSettings;
use crate::projection::ProjectionParams;
use crate::tui::jobs::{JobEvent, JobMsg, Payload, Request, Topic};
use crate::tui::state::groups::SortKey;
use crate::tui::state::scatter::HIGHLIGHTED_GROUPS;
use crate::tui::state::slot::{JobProgress, Slot};
use crate::tui::state::status::Notice;

impl App {
    /// Takes in a message from a background job; messages of superseded requests are dropped.
    pub fn on_job(&mut self, msg: JobMsg) -> Vec<Command> {
        if self.generations.get(&msg.target).copied().unwrap_or(0) != msg.generation {
            return Vec::new();
        }
        let target = msg.target;
        match msg.event {
            JobEvent::Progress { stage, done, total } => {
                let progress = JobProgress { stage, done, total };
                match target {
                    Topic::Items => self.items.set_progress(progress),
                    Topic::Projection => self.scatter.projection.set_progress(progress),
                    Topic::Collaborative => self.scatter.collaborative.set_progress(progress),
                    Topic::Tests => self.metrics.tested.set_progress(progress),
                    Topic::Index(i) | Topic::Metrics(i) | Topic::Reassign(i) => {
                        if let Some(t) = self.tokenizers.get_mut(i) {
                            match target {
                                Topic::Index(_) => t.data.set_progress(progress),
                                Topic::Metrics(_) => t.metrics.set_progress(progress),
                                _ => t.reassign.set_progress(progress),
                            }
                        }
                    }
                }
                Vec::new()
            }
            JobEvent::Done(payload) => {
                let mut commands = self.on_done(target, payload);
                commands.extend(self.start_tests());
                commands
            }
            JobEvent::Failed(e) => {
                let mut commands = self.on_failed(target, e);
                commands.extend(self.start_tests());
                commands
            }
        }
    }

    fn on_done(&mut self, target: Topic, payload: Payload) -> Vec<Command> {
        let mut commands = Vec::new();
        match (target, payload) {
            (Topic::Items, Payload::Items(texts)) => self.items = Slot::Ready(texts),
            (Topic::Index(i), Payload::Index(data)) if i < self.tokenizers.len() => {
                self.tokenizers[i].data = Slot::Ready(data);
                self.rebuild_order(i);
                commands.extend(self.start_analysis(i));
                commands.extend(self.start_projection());
                self.refresh_metrics();
                self.refresh_scatter();
            }
            (Topic::Metrics(i), Payload::Metrics(m)) if i < self.tokenizers.len() => {
                self.tokenizers[i].metrics = Slot::Ready(m);
                self.refresh_metrics();
            }
            (Topic::Reassign(i), Payload::Reassign(r)) if i < self.tokenizers.len() => {
                self.tokenizers[i].reassign = Slot::Ready(r);
                if self.groups.sort == SortKey::Saving {
                    self.rebuild_order(i);
                }
            }
            (Topic::Projection, Payload::Projection(p)) => {
                self.scatter.projection = Slot::Ready(p);
                self.scatter.textual = None;
                self.refresh_scatter();
            }
            (Topic::Collaborative, Payload::Collaborative(p)) => {
                self.scatter.collaborative = Slot::Ready(p);
                self.scatter.collaborative_view = None;
                self.refresh_scatter();
            }
            (Topic::Tests, Payload::Tests(r)) => self.metrics.tested = Slot::Ready(r),
            _ => {}
        }
        commands
    }

    fn on_failed(&mut self, target: Topic, error: String) -> Vec<Command> {
        match target {
            Topic::Items => self.items = Slot::Failed(error),
            Topic::Projection => self.scatter.projection = Slot::Failed(error),
            Topic::Collaborative => self.scatter.collaborative = Slot::Failed(error),
            Topic::Tests => self.metrics.tested = Slot::Failed(error),
            Topic::Index(i) | Topic::Metrics(i) | Topic::Reassign(i) => {
                let Some(t) = self.tokenizers.get_mut(i) else {
                    return Vec::new();
                };
                match target {
                    Topic::Index(_) => {
                        t.data = Slot::Failed(error);
                        t.metrics = Slot::Missing("the index did not load".into());
                        t.reassign = Slot::Missing("the index did not load".into());
                        return self.start_projection();
                    }
                    Topic::Metrics(_) => t.metrics = Slot::Failed(error),
                    _ => t.reassign = Slot::Failed(error),
                }
                self.refresh_metrics();
            }
        }
        Vec::new()
    }

    /// A new generation for `request`'s target: answers to older requests are dropped.
    fn request(&mut self, request: Request, target: Topic) -> Command {
        let generation = self.generations.entry(target).or_insert(0);
        *generation += 1;
        Command::Start(request, *generation)
    }

    /// Evaluation and reassignment of tokenizer `i`, once its index is loaded.
    fn start_analysis(&mut self, i: usize) -> Vec<Command> {
        let Some(data) = self.tokenizers[i].data.ready().cloned() else {
            return Vec::new();
        };
        let mut commands = Vec::new();
        let source = self.tokenizers[i].source.clone();
        if !source.beams.is_empty() {
            self.tokenizers[i].metrics = Slot::Loading(None);
            let request = Request::Evaluate {
                tokenizer: i,
                data: data.clone(),
                beams: source.beams.clone(),
                compat: self.metrics.compat,
            };
            commands.push(self.request(request, Topic::Metrics(i)));
        }
        self.tokenizers[i].reassign = Slot::Loading(None);
        let request = Request::Reassign {
            tokenizer: i,
            data,
            latents: source.latents,
            codebooks: source.codebooks,
            texts: self.items.ready().cloned(),
        };
        commands.push(self.request(request, Topic::Reassign(i)));
        commands
    }

    /// The projection, once the tokenizer shown (or, when it failed, any tokenizer) is
    /// loaded: its largest groups are kept in the sample.
    fn start_projection(&mut self) -> Vec<Command> {
        let shown_failed = matches!(
            self.tokenizers.shown().map(|t| &t.data),
            Some(Slot::Failed(_))
        );
        let data = if shown_failed {
            self.tokenizers.iter().find_map(|t| t.data.ready().cloned())
        } else {
            self.tokenizers.data().cloned()
        };
        let Some(data) = data else {
            return Vec::new();
        };
        let mut commands = Vec::new();
        if let (Some(embeddings), Slot::Missing(_)) =
            (self.scatter.embeddings.clone(), &self.scatter.projection)
        {
            self.scatter.projection = Slot::Loading(None);
            let request = Request::Project {
                embeddings,
                data: data.clone(),
                params: ProjectionParams::default(),
                highlight: HIGHLIGHTED_GROUPS,
            };
            commands.push(self.request(request, Topic::Projection));
        }
        if let (Some(interactions), Slot::Missing(_)) = (
            self.scatter.interactions.clone(),
            &self.scatter.collaborative,
        ) {
            self.scatter.collaborative = Slot::Loading(None);
            let request = Request::Collaborative {
                interactions,
                n_rows: None,
                data,
                params: ProjectionParams::default(),
                highlight: HIGHLIGHTED_GROUPS,
            };
            commands.push(self.request(request, Topic::Collaborative));
        }
        commands
    }

    /// The paired tests of the comparison at the current K, when they are due: the same
    /// library call and defaults as `sidlens compare` (Holm, α 0.05, 10,000 sign flips and
    /// bootstrap resamples, seed 42).
    pub(super) fn start_tests(&mut self) -> Vec<Command> {
        if !self.metrics.take_tests_due() {
            return Vec::new();
        }
        let tokenizers = self
            .tokenizers
            .iter()
            .filter_map(|t| {
                let data = t.data.ready()?.clone();
                Some((t.name().to_string(), data, t.metrics.ready().cloned()))
            })
            .collect();
        let request = Request::Test {
            tokenizers,
            k: self.metrics.k,
            compat: self.metrics.compat,
            settings: TestSettings::default(),
        };
        vec![self.request(request, Topic::Tests)]
    }

    /// Re-evaluates tokenizer `i` after its beams file changed on disk.
    pub fn beams_changed(&mut self, i: usize) -> Vec<Command> {
        self.reevaluate(i, "beams file changed")
    }

    /// Re-reads and re-evaluates tokenizer `i`'s beams file; `why` goes into the notice.
    pub(super) fn reevaluate(&mut self, i: usize, why: &str) -> Vec<Command> {
        let Some(t) = self.tokenizers.get(i) else {
            return Vec::new();
        };
        let name = t.name().to_string();
        let beams = t.source.beams.clone();
        let Some(first) = beams.first().cloned() else {
            self.say(Notice::warn(format!("{name} has no beams file to reload")));
            return Vec::new();
        };
        let Some(data) = t.data.ready().cloned() else {
            self.say(Notice::warn(format!("{name}: the index is not loaded yet")));
            return Vec::new();
        };
        self.tokenizers[i].metrics = Slot::Loading(None);
        self.refresh_metrics();
        let more = match beams.len() {
            1 => String::new(),
            n => format!(" and {} more seed{}", n - 1, if n == 2 { "" } else { "s" }),
        };
        self.say(Notice::info(format!(
            "{name}: {why}, re-evaluating {}{more}",
            first.display()
        )));
        let request = Request::Evaluate {
            tokenizer: i,
            data,
            beams,
            compat: self.metrics.compat,
        };
        vec![self.request(request, Topic::Metrics(i))]
    }
}
