//! Small fixed data for the TUI tests: two tokenizers over 16 items with titles, beams, latents,
//! codebooks and embeddings, written to files and loaded by the real jobs once per process;
//! each test's app is then fed the jobs' answers exactly as the event loop would.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::channel;
use std::sync::{Arc, OnceLock};

use ndarray::{Array2, Array3};
use ndarray_npy::WriteNpyExt;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use sidlens::load::{ItemInfo, ItemTexts};
use sidlens::progress::CancelFlag;
use sidlens::projection::CacheOutcome;

use sidlens::load::TokenizerFiles;
use sidlens::tui::app::{App, Command};
use sidlens::tui::data::Projected;
use sidlens::tui::jobs::{self, JobEvent, JobMsg, Payload, Request, Topic};
use sidlens::tui::sources::Sources;
use sidlens::tui::theme::Theme;
use sidlens::tui::ui;

/// Tokenizer "alpha": groups of 4, 3, 2 and 2 items (two of them in one prefix group).
pub const ALPHA: &str = r#"{
  "0": [1, 2, 3, 7], "1": [1, 2, 3, 7], "2": [1, 2, 3, 7], "3": [1, 2, 3, 7],
  "4": [5, 6, 7, 1], "5": [5, 6, 7, 1], "6": [5, 6, 7, 1],
  "7": [1, 2, 3, 9], "8": [1, 2, 3, 9],
  "9": [8, 8, 8, 8], "10": [8, 8, 8, 8],
  "11": [1, 2, 3, 4], "12": [9, 9, 9, 9], "13": [10, 1, 1, 1], "14": [11, 1, 1, 1],
  "15": [12, 1, 1, 1]
}"#;

/// Tokenizer "beta": one group of 2.
pub const BETA: &str = r#"{
  "0": [0, 0, 0, 0], "1": [0, 0, 0, 1], "2": [0, 0, 0, 2], "3": [0, 0, 0, 3],
  "4": [1, 0, 0, 0], "5": [1, 0, 0, 0], "6": [1, 0, 0, 2], "7": [2, 0, 0, 0],
  "8": [3, 0, 0, 0], "9": [4, 0, 0, 0], "10": [5, 0, 0, 0], "11": [6, 0, 0, 0],
  "12": [7, 0, 0, 0], "13": [8, 0, 0, 0], "14": [9, 0, 0, 0], "15": [10, 0, 0, 0]
}"#;

/// Six users' beams for alpha: collisions inflate its Hit@1 (0.5) far above ItemHit@1.
pub const ALPHA_BEAMS: &str = r#"[
  {"beam_sids": ["<a_1><b_2><c_3><d_7>", "<a_9><b_9><c_9><d_9>"], "target": "<a_1><b_2><c_3><d_7>", "target_item": "0"},
  {"beam_sids": ["<a_9><b_9><c_9><d_9>", "<a_5><b_6><c_7><d_1>", "<a_1><b_2><c_3><d_9>"], "target": "<a_5><b_6><c_7><d_1>", "target_item": "4"},
  {"beam_sids": ["<a_8><b_8><c_8><d_8>", "<a_9><b_9><c_9><d_9>"], "target": "<a_9><b_9><c_9><d_9>", "target_item": "12"},
  {"beam_sids": ["<a_1><b_2><c_3><d_7>", "<a_1><b_2><c_3><d_9>"], "target": "<a_1><b_2><c_3><d_9>", "target_item": "7"},
  {"beam_sids": ["<a_1><b_2><c_3><d_7>"], "target": "<a_1><b_2><c_3><d_7>", "target_item": "1"},
  {"beam_sids": ["<a_8><b_8><c_8><d_8>"], "target": "<a_8><b_8><c_8><d_8>", "target_item": "9"}
]"#;

/// The same users for beta: fewer SID hits, but each is worth more.
pub const BETA_BEAMS: &str = r#"[
  {"beam_sids": ["<a_0><b_0><c_0><d_1>", "<a_0><b_0><c_0><d_0>"], "target": "<a_0><b_0><c_0><d_0>", "target_item": "0"},
  {"beam_sids": ["<a_0><b_0><c_0><d_3>", "<a_1><b_0><c_0><d_0>"], "target": "<a_1><b_0><c_0><d_0>", "target_item": "4"},
  {"beam_sids": ["<a_7><b_0><c_0><d_0>"], "target": "<a_7><b_0><c_0><d_0>", "target_item": "12"},
  {"beam_sids": ["<a_3><b_0><c_0><d_0>"], "target": "<a_2><b_0><c_0><d_0>", "target_item": "7"},
  {"beam_sids": ["<a_8><b_0><c_0><d_0>"], "target": "<a_8><b_0><c_0><d_0>", "target_item": "13"},
  {"beam_sids": ["<a_5><b_0><c_0><d_0>", "<a_6><b_0><c_0><d_0>"], "target": "<a_4><b_0><c_0><d_0>", "target_item": "9"}
]"#;

/// Two kinds of users: one buys the even half of each near-duplicate group, the other the odd
/// half, so groups that are tight in the text are apart by interactions.
pub const INTERACTIONS: &str = r#"{
  "a1": ["0", "2", "4", "11", "12"], "a2": ["2", "4", "0", "7", "9"],
  "a3": ["4", "0", "11", "12", "2"], "a4": ["7", "9", "0", "2", "11"],
  "a5": ["11", "12", "4", "9", "7"], "a6": ["9", "7", "2", "12", "0"],
  "b1": ["1", "3", "5", "13", "14"], "b2": ["3", "5", "1", "8", "10"],
  "b3": ["5", "1", "13", "14", "3"], "b4": ["8", "10", "1", "3", "15"],
  "b5": ["13", "14", "5", "10", "8"], "b6": ["15", "6", "13", "1", "3"],
  "b7": ["6", "5", "10", "8", "14"]
}"#;

/// Item 0's description, long enough to wrap in the item view.
pub const DESCRIPTION: &str = "A quiet FDM printer for home, school and workshop. Comes 95 % assembled, ready to print in 15 minutes. Removable magnetic PEI build plate: flex it and the print pops off.";

/// Item titles, brands and categories.
pub fn texts() -> ItemTexts {
    let titles = [
        ("Mini 3D Printer", "Acme", "Tools, 3D Printing"),
        ("Standard 3D Printer", "Acme", "Tools, 3D Printing"),
        (
            "3D Printer Filament PLA 1kg",
            "Filo",
            "Tools, 3D Printing, Filament",
        ),
        (
            "3D Printer Filament PETG 1kg",
            "Filo",
            "Tools, 3D Printing, Filament",
        ),
        ("Digital Caliper 150mm", "Mitu", "Measuring"),
        ("Digital Caliper 200mm", "Mitu", "Measuring"),
        ("Vernier Caliper", "Mitu", "Measuring"),
        ("Nozzle Set 0.4mm", "Acme", "Tools, 3D Printing, Parts"),
        ("Nozzle Set 0.6mm", "Acme", "Tools, 3D Printing, Parts"),
        ("Lab Beaker 250ml", "Glassco", "Lab, Glassware"),
        ("Lab Beaker 500ml", "Glassco", "Lab, Glassware"),
        ("Print Bed Glass", "Acme", "Tools, 3D Printing, Parts"),
        ("Safety Goggles", "Sight", "Safety"),
        ("Nitrile Gloves", "Handy", "Safety"),
        ("Soldering Iron", "Heat", "Electronics"),
        ("Multimeter", "Volt", "Electronics"),
    ];
    ItemTexts::from_pairs(titles.iter().enumerate().map(|(i, (t, b, c))| {
        (
            i.to_string(),
            ItemInfo {
                title: Some(t.to_string()),
                brand: Some(b.to_string()),
                categories: Some(c.to_string()),
                description: (i == 0).then(|| DESCRIPTION.to_string()),
                other: if i == 0 {
                    vec![("colour".into(), "graphite".into())]
                } else {
                    Vec::new()
                },
            },
        )
    }))
}

/// A fixed pseudo-random number in [-1, 1) for (a, b, c).
fn wobble(a: usize, b: usize, c: usize) -> f32 {
    let x = (a * 7919 + b * 104_729 + c * 1_299_709 + 17) as u64;
    let x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    (x % 2000) as f32 / 1000.0 - 1.0
}

/// Writes every fixture file into `dir` and returns the sources naming them.
pub fn write_files(dir: &Path) -> Sources {
    let write = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).unwrap();
        dir.join(name)
    };
    let alpha = write("alpha.index.json", ALPHA);
    let beta = write("beta.index.json", BETA);
    let alpha_beams = write("alpha.per_user.json", ALPHA_BEAMS);
    let beta_beams = write("beta.per_user.json", BETA_BEAMS);
    let items: serde_json::Map<String, serde_json::Value> = (0..16)
        .map(|i| {
            let t = texts();
            let info = t.get(&i.to_string()).unwrap();
            let mut value = serde_json::json!({
                "title": info.title, "brand": info.brand, "categories": info.categories,
                "description": info.description
            });
            for (name, text) in &info.other {
                value[name] = serde_json::Value::String(text.clone());
            }
            (i.to_string(), value)
        })
        .collect();
    let items = write("items.json", &serde_json::to_string(&items).unwrap());
    let interactions = write("inter.json", INTERACTIONS);
    let codebooks = Array3::from_shape_fn((4, 16, 4), |(l, c, d)| wobble(l, c, d) / (1 + l) as f32);
    let alpha_codes: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(ALPHA).unwrap();
    let latents = Array2::from_shape_fn((16, 4), |(i, d)| {
        let codes = alpha_codes[&i.to_string()].as_array().unwrap();
        let sum: f32 = codes
            .iter()
            .enumerate()
            .map(|(l, c)| codebooks[[l, c.as_u64().unwrap() as usize, d]])
            .sum();
        sum + 0.05 * wobble(i, d, 99)
    });
    let latents_path = dir.join("latents.npy");
    latents
        .write_npy(std::fs::File::create(&latents_path).unwrap())
        .unwrap();
    let codebooks_path = dir.join("codebooks.npy");
    codebooks
        .write_npy(std::fs::File::create(&codebooks_path).unwrap())
        .unwrap();
    Sources {
        title: "fixture".into(),
        tokenizers: vec![
            TokenizerFiles {
                name: "alpha".into(),
                index: alpha,
                beams: vec![alpha_beams],
                latents: Some(latents_path.clone()),
                codebooks: Some(codebooks_path),
                beams_sought: Vec::new(),
            },
            TokenizerFiles {
                name: "beta".into(),
                index: beta,
                beams: vec![beta_beams],
                latents: Some(latents_path.clone()),
                codebooks: None,
                beams_sought: Vec::new(),
            },
        ],
        items: Some(items),
        embeddings: Some(latents_path),
        interactions: Some(interactions),
        codebook_size: Some(16),
        ..Sources::default()
    }
}

/// What the jobs answered, computed once per test process.
struct Answers {
    sources: Sources,
    payloads: HashMap<Topic, Payload>,
}

fn clone(p: &Payload) -> Payload {
    match p {
        Payload::Items(x) => Payload::Items(x.clone()),
        Payload::Index(x) => Payload::Index(x.clone()),
        Payload::Metrics(x) => Payload::Metrics(x.clone()),
        Payload::Reassign(x) => Payload::Reassign(x.clone()),
        Payload::Projection(x) => Payload::Projection(x.clone()),
        Payload::Collaborative(x) => Payload::Collaborative(x.clone()),
        Payload::Tests(x) => Payload::Tests(x.clone()),
    }
}

/// A projection as a first run on a machine gets it ("computed and cached"): the jobs use
/// the user's cache, so whether this process computed it or found it there depends on the
/// runs before, and the snapshots must not.
fn as_if_computed(payload: Payload) -> Payload {
    let computed = |p: &Projected| {
        Arc::new(Projected {
            projection: p.projection.clone(),
            cache: Some(CacheOutcome::Stored(PathBuf::from("cached.bin"))),
            must_include: p.must_include,
            embeddings: Arc::clone(&p.embeddings),
        })
    };
    match payload {
        Payload::Projection(p) => Payload::Projection(computed(&p)),
        Payload::Collaborative(p) => Payload::Collaborative(computed(&p)),
        other => other,
    }
}

fn run(request: Request) -> Vec<JobMsg> {
    let (tx, rx) = channel();
    jobs::run(request, 0, &CancelFlag::default(), &tx);
    drop(tx);
    rx.into_iter().collect()
}

fn answers() -> &'static Answers {
    static ANSWERS: OnceLock<Answers> = OnceLock::new();
    ANSWERS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let sources = write_files(dir.path());
        let mut payloads = HashMap::new();
        let mut pending = vec![Request::Load(sources.clone())];
        let mut app = App::new(&sources, Theme::new(false), Rect::new(0, 0, 80, 24)).0;
        while let Some(request) = pending.pop() {
            for msg in run(request) {
                let target = msg.target;
                if let JobEvent::Done(p) = &msg.event {
                    payloads.insert(target, as_if_computed(clone(p)));
                }
                // The fixture's two tokenizers list different test users, so their paired
                // tests fail (and the metrics pane says why); every other job must succeed.
                if let (JobEvent::Failed(e), false) = (&msg.event, target == Topic::Tests) {
                    panic!("fixture job {target:?} failed: {e}");
                }
                let generation = match target {
                    Topic::Items | Topic::Index(_) => 0,
                    _ => 1,
                };
                let msg = JobMsg { generation, ..msg };
                for Command::Start(r, _) in app.on_job(msg) {
                    pending.push(r);
                }
            }
        }
        Answers { sources, payloads }
    })
}

/// The sources the fixture opens (files are gone; everything is answered from memory).
pub fn sources() -> Sources {
    answers().sources.clone()
}

/// The app right after start, nothing loaded yet (no colours, so snapshots are plain text).
pub fn fresh(width: u16, height: u16) -> App {
    App::new(
        &sources(),
        Theme::new(false),
        Rect::new(0, 0, width, height),
    )
    .0
}

/// Answers a command the way the event loop's job would, with the precomputed payloads.
pub fn answer(app: &mut App, command: Command) -> Vec<Command> {
    let Command::Start(request, generation) = command;
    if let Request::Test { .. } = request {
        // The tests depend on K and the evaluations, so they run for real (milliseconds).
        let mut next = Vec::new();
        for msg in run(request) {
            next.extend(app.on_job(JobMsg { generation, ..msg }));
        }
        return next;
    }
    let targets = match &request {
        Request::Load(s) => {
            let mut t = vec![Topic::Items];
            t.extend((0..s.tokenizers.len()).map(Topic::Index));
            t
        }
        Request::Evaluate { tokenizer, .. } => vec![Topic::Metrics(*tokenizer)],
        Request::Reassign { tokenizer, .. } => vec![Topic::Reassign(*tokenizer)],
        Request::Project { .. } => vec![Topic::Projection],
        Request::Collaborative { .. } => vec![Topic::Collaborative],
        Request::Test { .. } => unreachable!("answered above"),
    };
    let mut next = Vec::new();
    for target in targets {
        let payload = clone(&answers().payloads[&target]);
        next.extend(app.on_job(JobMsg {
            target,
            generation,
            event: JobEvent::Done(payload),
        }));
    }
    next
}

/// Answers commands (and the commands their answers cause) until none is left.
pub fn answer_all(app: &mut App, commands: Vec<Command>) {
    let mut pending = commands;
    while let Some(c) = pending.pop() {
        pending.extend(answer(app, c));
    }
}

/// The app with everything loaded: indexes, metrics, reassignment, projection.
pub fn loaded(width: u16, height: u16) -> App {
    let (mut app, commands) = App::new(
        &sources(),
        Theme::new(false),
        Rect::new(0, 0, width, height),
    );
    answer_all(&mut app, commands);
    app
}

/// The app with its indexes and titles loaded, but no beams, vectors or projection yet.
pub fn indexes_only(width: u16, height: u16) -> App {
    let (mut app, commands) = App::new(
        &sources(),
        Theme::new(false),
        Rect::new(0, 0, width, height),
    );
    for command in commands {
        answer(&mut app, command);
    }
    app
}

/// Renders the app on a test terminal of its own size.
pub fn draw(app: &App) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(app.area.width, app.area.height)).unwrap();
    terminal.draw(|f| ui::render(app, f)).unwrap();
    terminal
}

/// The screen as text lines.
pub fn screen(app: &App) -> String {
    let terminal = draw(app);
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            out.push_str(buffer[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}
