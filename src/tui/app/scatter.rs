//! The scatter as actions change it: zoom and pan, a click picking the nearest point (and
//! selecting its group when it is listed), the picked item's nearest neighbours, the points
//! mapped to the tokenizer shown, switching spaces, and stepping through the tightest groups.

use super::App;
use crate::tui::layout::Pane;
use crate::tui::state::offset_by;
use crate::tui::state::scatter::{NEIGHBOURS, Neighbours};
use crate::tui::state::status::Notice;
use crate::tui::view;

impl App {
    /// Recomputes the picked item's nearest neighbours when the scatter shows and the pick
    /// changed (exact search over every item: milliseconds for tens of thousands), in the
    /// space the camera looks at.
    pub(super) fn refresh_neighbours(&mut self) {
        if !self.layout().shows(Pane::Scatter) {
            return;
        }
        let Some(position) = self.screen().picked_position() else {
            self.scatter.camera.neighbours = None;
            return;
        };
        let (shown, space) = (self.tokenizers.selected, self.scatter.camera_space());
        if self
            .scatter
            .camera
            .neighbours
            .as_ref()
            .is_some_and(|n| (n.tokenizer, n.position, n.space) == (shown, position, space))
        {
            return;
        }
        let (Some(data), Some(projected)) =
            (self.tokenizers.data(), self.scatter.projection_of(space))
        else {
            return;
        };
        let near = crate::projection::neighbours::nearest(
            &data.index,
            &projected.embeddings,
            position,
            NEIGHBOURS,
        );
        self.scatter.camera.neighbours = Some(Neighbours {
            tokenizer: shown,
            position,
            space,
            near,
        });
    }

    /// Multiplies the zoom by `factor` around `at` (projection coordinates), else around the
    /// picked point, else the view's centre.
    pub(super) fn zoom(&mut self, factor: f64, at: Option<[f64; 2]>) {
        let space = self.scatter.camera_space();
        let picked = self.screen().picked_point(space).and_then(|i| {
            self.scatter
                .projection_of(space)?
                .projection
                .points
                .get(i)
                .copied()
        });
        self.scatter.camera.zoom_by(factor, at, picked);
    }

    /// Moves the view by a quarter of its extent.
    pub(super) fn pan(&mut self, dx: f64, dy: f64) {
        let space = self.scatter.camera_space();
        let Some(projected) = self.scatter.projection_of(space) else {
            return;
        };
        let (x, y) = view::scatter::view_bounds(&self.screen(), space, projected);
        let centre = [
            (x[0] + x[1]) / 2.0 + dx * (x[1] - x[0]) / 4.0,
            (y[0] + y[1]) / 2.0 + dy * (y[1] - y[0]) / 4.0,
        ];
        self.scatter.camera.centre = Some(centre);
    }

    /// A click on the scatter's plot: picks the nearest point and, when it is in a listed
    /// collision group, selects that group and item.
    pub(super) fn pick_at(&mut self, column: u16, row: u16) {
        let Some((space, point)) = view::scatter::point_at(&self.screen(), column, row) else {
            return;
        };
        let Some(position) = self
            .scatter
            .view_of(space)
            .and_then(|v| v.positions.get(point).copied().flatten())
        else {
            return;
        };
        self.scatter.camera.pick = Some(position);
        let Some(data) = self.tokenizers.data().cloned() else {
            return;
        };
        let id = data.index.id(position).to_string();
        let group = data.collisions.group_of(position);
        match self.tokenizers.listed(&data, group) {
            Some((r, p)) => {
                self.set_cursor(p);
                let member = data.rows[r].items.iter().position(|i| i.id == id);
                if let Some(t) = self.tokenizers.shown_mut() {
                    t.detail.member = member.unwrap_or(0);
                }
                self.scatter.camera.pick = None;
                self.say(Notice::info(format!("picked item {id} (group #{})", r + 1)));
            }
            None => self.say(Notice::info(format!(
                "picked item {id}: SID {} {}",
                data.index.sid_string(position),
                if data.collisions.size(group) < 2 {
                    "to itself"
                } else {
                    "(its group is below the minimum size)"
                }
            ))),
        }
    }

    /// Maps both projections' points to the collision groups of the tokenizer shown, and
    /// measures how far apart each group's items are in both spaces.
    pub(super) fn refresh_scatter(&mut self) {
        let shown = self.tokenizers.selected;
        self.scatter
            .refresh_points(shown, self.tokenizers.data().map(|d| &**d));
        self.refresh_spreads();
    }

    /// How far apart the shown tokenizer's groups are, for the current minimum size.
    pub(super) fn refresh_spreads(&mut self) {
        let shown = self.tokenizers.selected;
        self.scatter.refresh_spreads(
            shown,
            self.tokenizers.data().map(|d| &**d),
            self.groups.min_size,
        );
    }

    /// `v`: the next space (side by side where the pane has room).
    pub(super) fn cycle_space(&mut self) {
        let room = view::scatter::room_for_both(&self.screen());
        let notice = self.scatter.cycle_space(room);
        self.say(notice);
    }

    /// ↑/↓ in the scatter while the tightest groups are highlighted: the next of them, which
    /// becomes the selected group so that the detail and the ◉ follow.
    pub(super) fn step_tight(&mut self, delta: isize) {
        let Some(n) = self.screen().tight_groups().map(<[u32]>::len) else {
            return;
        };
        self.scatter.tight_at = offset_by(self.scatter.tight_at.min(n - 1), delta, n - 1);
        self.select_tight();
    }

    /// Selects the tightest group ▸ marks in the group list; false (and a notice) when the
    /// list does not show it (a search or a minimum size hides it).
    pub(super) fn select_tight(&mut self) -> bool {
        let (Some(group), Some(data)) =
            (self.screen().tight_group(), self.tokenizers.data().cloned())
        else {
            return false;
        };
        let n = self.screen().tight_groups().map_or(1, <[u32]>::len);
        self.scatter.tight_at = self.scatter.tight_at.min(n - 1);
        let rank = self.scatter.tight_at + 1;
        let Some((r, p)) = self.tokenizers.listed(&data, group) else {
            self.say(Notice::warn(format!(
                "tightest group {rank} is not in the list: a search or the minimum size hides it (Esc clears the search, m sets the size)"
            )));
            return false;
        };
        self.set_cursor(p);
        self.scatter.camera.pick = None;
        self.say(Notice::info(format!(
            "tightest group {rank}: group #{} selected",
            r + 1
        )));
        true
    }
}
