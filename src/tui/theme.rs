//! Colours and text styles. Sixteen ANSI colours only (readable on any terminal); with
//! `NO_COLOR` set every colour is dropped and selection, focus and flips stay visible through
//! modifiers (reverse video, bold, underline), which `NO_COLOR` does not cover.

use ratatui::style::{Color, Modifier, Style};

/// The styles every pane draws with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theme {
    colour: bool,
}

/// Distinct colours for highlighted groups in the scatter and their legend, in rank order.
const GROUP_COLOURS: [Color; 5] = [
    Color::LightRed,
    Color::LightGreen,
    Color::LightYellow,
    Color::LightBlue,
    Color::LightMagenta,
];

impl Theme {
    /// The theme for this process: colours unless `NO_COLOR` is set to a non-empty value.
    pub fn from_env() -> Self {
        let no_colour = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme::new(!no_colour)
    }

    /// A theme with or without colours (tests pick one explicitly).
    pub fn new(colour: bool) -> Self {
        Theme { colour }
    }

    fn fg(&self, colour: Color) -> Style {
        if self.colour {
            Style::new().fg(colour)
        } else {
            Style::new()
        }
    }

    /// Plain text.
    pub fn text(&self) -> Style {
        Style::new()
    }

    /// Secondary text: hints, units, empty cells.
    pub fn dim(&self) -> Style {
        if self.colour {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    /// Column headers and titles.
    pub fn header(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// The selected row: reverse video, which survives `NO_COLOR`.
    pub fn selected(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    /// The border of the focused pane.
    pub fn focus_border(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// The border of other panes.
    pub fn border(&self) -> Style {
        self.fg(Color::DarkGray)
    }

    /// Keys in the footer and the help overlay.
    pub fn key(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    /// Something the user should notice: rank flips, inflation, savings.
    pub fn warn(&self) -> Style {
        self.fg(Color::LightRed).add_modifier(Modifier::BOLD)
    }

    /// Good news: no collisions, a saving.
    pub fn good(&self) -> Style {
        self.fg(Color::LightGreen)
    }

    /// Errors.
    pub fn error(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    /// The colour of the `rank`-th highlighted group (0 = largest), cycling.
    pub fn group_colour(&self, rank: usize) -> Color {
        if self.colour {
            GROUP_COLOURS[rank % GROUP_COLOURS.len()]
        } else {
            Color::Reset
        }
    }

    /// Points that are not highlighted.
    pub fn background_points(&self) -> Color {
        if self.colour {
            Color::DarkGray
        } else {
            Color::Reset
        }
    }

    /// The selected group's points.
    pub fn selected_points(&self) -> Color {
        if self.colour {
            Color::White
        } else {
            Color::Reset
        }
    }

    /// Search matches.
    pub fn matched(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::UNDERLINED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_colour_keeps_modifiers_only() {
        let t = Theme::new(false);
        assert_eq!(t.header().fg, None);
        assert!(t.header().add_modifier.contains(Modifier::BOLD));
        assert!(t.selected().add_modifier.contains(Modifier::REVERSED));
        assert_eq!(Theme::new(true).header().fg, Some(Color::Cyan));
        assert_eq!(t.group_colour(3), Color::Reset);
        let c = Theme::new(true);
        assert_ne!(c.group_colour(0), c.group_colour(1));
    }
}
