//! Small fixed data for the TUI tests, built in memory: two tokenizers over 16 items with
//! titles, fed to the app exactly as the background loader would.

use std::path::Path;
use std::sync::Arc;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use sidlens::collision::Collisions;
use sidlens::load::{ItemInfo, ItemTexts, SidIndex};

use super::tui::app::App;
use super::tui::data::TokenizerData;
use super::tui::jobs::{JobEvent, JobMsg, Payload, Target};
use super::tui::sources::{Sources, TokenizerSource};
use super::tui::theme::Theme;
use super::tui::ui;

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
                description: None,
            },
        )
    }))
}

/// The sources the fixture pretends to open.
pub fn sources() -> Sources {
    Sources {
        title: "fixture".into(),
        tokenizers: vec![
            TokenizerSource::index_only("alpha", "alpha.json"),
            TokenizerSource::index_only("beta", "beta.json"),
        ],
        items: Some("items.json".into()),
        codebook_size: Some(16),
    }
}

/// A loaded tokenizer built from index JSON.
pub fn tokenizer(json: &str, texts: &ItemTexts) -> TokenizerData {
    let index = SidIndex::parse(json.as_bytes(), Path::new("fixture.json"), Some(16)).unwrap();
    let collisions = Collisions::new(&index);
    TokenizerData::from_parts(index, collisions, Some(texts))
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

/// The app with everything loaded.
pub fn loaded(width: u16, height: u16) -> App {
    let mut app = fresh(width, height);
    let texts = texts();
    let data = [tokenizer(ALPHA, &texts), tokenizer(BETA, &texts)];
    app.on_job(done(Target::Items, Payload::Items(Arc::new(texts))));
    for (i, d) in data.into_iter().enumerate() {
        app.on_job(done(Target::Index(i), Payload::Index(Arc::new(d))));
    }
    app
}

/// A `Done` message as the loader sends it.
pub fn done(target: Target, payload: Payload) -> JobMsg {
    JobMsg {
        target,
        generation: 0,
        event: JobEvent::Done(payload),
    }
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
