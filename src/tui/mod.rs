//! The terminal UI: browse collision groups, compare tokenizers' metrics, inspect ZCR and see
//! items in a t-SNE scatter. `run` owns the terminal and the event loop; keys become actions
//! in `keys`, actions change the state (`state`, one struct per concern) in `app`, `view`
//! computes what the screen shows from the state, `ui` draws it, and `jobs` does the work.

pub mod action;
pub mod app;
pub mod data;
pub mod jobs;
pub mod keys;
pub mod layout;
pub mod search;
pub mod sources;
pub mod spaces;
pub mod state;
pub mod theme;
pub mod ui;
pub mod view;
pub mod watch;

use std::io::{self, IsTerminal, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once};
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::layout::Rect;

use self::action::Action;
use self::app::{App, Command};
use self::jobs::Jobs;
use self::sources::Sources;
use self::theme::Theme;
use self::watch::Watcher;

/// How long the loop waits for input while background work is running (its progress shows).
const BUSY_TICK: Duration = Duration::from_millis(40);
/// How long it waits when nothing is running (also how often beams files are looked at).
const IDLE_TICK: Duration = watch::POLL_INTERVAL;

/// Opens the TUI on `sources` and runs until the user quits. The terminal is restored on
/// return, on error and on panic.
pub fn run(sources: Sources) -> anyhow::Result<()> {
    if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
        anyhow::bail!(
            "the TUI needs a terminal (stdin and stdout must be a tty); for scripts use the subcommands (stats, groups, eval, compare, zcr, project)"
        );
    }
    let mut terminal = TerminalGuard::enter()?;
    let size = terminal.0.size()?;
    let area = Rect::new(0, 0, size.width, size.height);
    let (mut app, commands) = App::new(&sources, Theme::from_env(), area);
    let mut jobs = Jobs::default();
    execute_all(&mut jobs, commands);
    let watched = sources
        .tokenizers
        .iter()
        .enumerate()
        .filter(|_| sources.watch_beams)
        .flat_map(|(i, t)| t.beams.iter().map(move |b| (i, b.clone())));
    let mut watcher = Watcher::new(watched);
    let terminated = termination_flag()?;
    watch_for_hangup();
    event_loop(
        &mut terminal.0,
        &mut app,
        &mut jobs,
        &mut watcher,
        &terminated,
    )?;
    jobs.cancel_all();
    Ok(())
}

fn event_loop(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    app: &mut App,
    jobs: &mut Jobs,
    watcher: &mut Watcher,
    terminated: &AtomicBool,
) -> anyhow::Result<()> {
    let mut dirty = true;
    loop {
        if dirty {
            terminal.draw(|frame| ui::render(&*app, frame))?;
            dirty = false;
        }
        if app.should_quit || terminated.load(Ordering::Relaxed) {
            return Ok(());
        }
        while let Some(msg) = jobs.try_recv() {
            execute_all(jobs, app.on_job(msg));
            dirty = true;
        }
        for tokenizer in watcher.poll(Instant::now()) {
            execute_all(jobs, app.beams_changed(tokenizer));
            dirty = true;
        }
        let mut timeout = if dirty {
            Duration::ZERO
        } else if app.busy() {
            BUSY_TICK
        } else {
            IDLE_TICK
        };
        while event::poll(timeout)? {
            timeout = Duration::ZERO;
            let action = match event::read()? {
                Event::Key(key) => keys::map(app.mode, app.focus, key),
                Event::Mouse(mouse) => keys::map_mouse(mouse),
                Event::Resize(width, height) => Some(Action::Resize { width, height }),
                _ => None,
            };
            if let Some(action) = action {
                execute_all(jobs, app.update(action));
                dirty = true;
            }
            if app.should_quit || terminated.load(Ordering::Relaxed) {
                break;
            }
        }
    }
}

/// A flag raised by SIGTERM or SIGQUIT (a `kill`), so the loop ends normally and the terminal
/// is restored instead of left in raw mode. SIGHUP (a closed SSH session or terminal) keeps its
/// default action, ending the process: there is no terminal left to restore.
fn termination_flag() -> io::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGQUIT] {
        signal_hook::flag::register(signal, Arc::clone(&flag))?;
    }
    Ok(flag)
}

/// Ends the process once the terminal is gone but SIGHUP did not end it (started under
/// `nohup`, or SIGHUP ignored): crossterm then spins reading the hung-up terminal forever.
fn watch_for_hangup() {
    let spawned = std::thread::Builder::new()
        .name("sidlens-hangup".into())
        .spawn(|| {
            loop {
                std::thread::sleep(Duration::from_secs(1));
                if !io::stdin().is_terminal() {
                    std::process::exit(1);
                }
            }
        });
    // Without the watchdog the TUI still works; only a vanished terminal is noticed later.
    drop(spawned);
}

fn execute_all(jobs: &mut Jobs, commands: Vec<Command>) {
    for command in commands {
        match command {
            Command::Start(request, generation) => jobs.start(request, generation),
        }
    }
}

/// The terminal in raw mode on the alternate screen with mouse capture; dropping it restores
/// the terminal, and a panic on the UI thread restores it before the message is printed.
struct TerminalGuard(Terminal<CrosstermBackend<Stdout>>);

impl TerminalGuard {
    fn enter() -> io::Result<Self> {
        install_panic_hook();
        enable_raw_mode()?;
        let entered = execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)
            .and_then(|()| Terminal::new(CrosstermBackend::new(io::stdout())));
        match entered {
            Ok(terminal) => Ok(TerminalGuard(terminal)),
            Err(e) => {
                restore_terminal();
                Err(e)
            }
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

fn restore_terminal() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
}

/// Chains a hook before the default one: a panic on the UI thread restores the terminal first,
/// so the message is readable; a panic on a job thread is reported by the job as a failure
/// and must not tear the screen down.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let ui_thread = std::thread::current().name() == Some("main");
            if ui_thread {
                restore_terminal();
                previous(info);
            }
        }));
    });
}
