//! The scatter's state: both projections as they arrive (textual t-SNE, collaborative space)
//! with their points mapped to the shown tokenizer's groups, which space shows, the tightest
//! highlight and how far apart each group is, and the camera (zoom, centre, colouring, the
//! picked item and its nearest neighbours).

use std::path::PathBuf;
use std::sync::Arc;

use super::slot::Slot;
use super::status::Notice;
use crate::projection::ItemRows;
use crate::tui::data::{Projected, TokenizerData};
use crate::tui::sources::Sources;
use crate::tui::spaces::{Space, Spreads, TIGHTEST_MIN_SIZE};

/// Largest groups drawn in their own colour in the scatter (and kept in its sample).
pub const HIGHLIGHTED_GROUPS: usize = 5;
/// Neighbours listed for the picked point.
pub const NEIGHBOURS: usize = 5;
/// The deepest zoom.
const MAX_ZOOM: f64 = 256.0;

/// The scatter's points seen through the tokenizer shown: each point's collision group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScatterView {
    /// The tokenizer these groups belong to.
    pub tokenizer: usize,
    /// Per projected point, its collision group (`None`: the item's SID is its own).
    pub groups: Vec<Option<u32>>,
    /// Per projected point, the item's position in the tokenizer's index.
    pub positions: Vec<Option<usize>>,
}

impl ScatterView {
    /// The points of `projected` seen through tokenizer `tokenizer`, whose data is `data`.
    fn of(projected: &Projected, data: &TokenizerData, tokenizer: usize) -> ScatterView {
        let projection = &projected.projection;
        let items = ItemRows::new(&data.index, &data.collisions, projection.total_rows, 0);
        let positions: Vec<Option<usize>> = projection
            .rows
            .iter()
            .map(|&row| items.as_ref().ok()?.position(row))
            .collect();
        let groups = positions
            .iter()
            .map(|&position| {
                let group = data.collisions.group_of(position?);
                (data.collisions.size(group) > 1).then_some(group)
            })
            .collect();
        ScatterView {
            tokenizer,
            groups,
            positions,
        }
    }
}

/// What colours the scatter's points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColourBy {
    /// The largest collision groups.
    Collision,
    /// The most frequent first-level codes.
    FirstCode,
    /// The largest prefix groups (first L−1 codes).
    Prefix,
}

impl ColourBy {
    /// The mode's name in the legend.
    pub fn label(self) -> &'static str {
        match self {
            ColourBy::Collision => "collision group",
            ColourBy::FirstCode => "first-level code",
            ColourBy::Prefix => "prefix group",
        }
    }

    /// The mode `c` switches to.
    pub fn next(self) -> ColourBy {
        match self {
            ColourBy::Collision => ColourBy::FirstCode,
            ColourBy::FirstCode => ColourBy::Prefix,
            ColourBy::Prefix => ColourBy::Collision,
        }
    }
}

/// The scatter's camera, picked point and the picked item's nearest neighbours.
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterCamera {
    /// 1 shows every point; each zoom step doubles it.
    pub zoom: f64,
    /// The centre of the view in projection coordinates (`None`: the centre of all points).
    pub centre: Option<[f64; 2]>,
    /// What colours the points.
    pub colour_by: ColourBy,
    /// An item picked with the mouse (its index position, so it is the same item in both
    /// spaces); without one, the selected item of the selected group is the picked item.
    pub pick: Option<usize>,
    /// The picked item's nearest neighbours, once computed.
    pub neighbours: Option<Neighbours>,
}

impl Default for ScatterCamera {
    fn default() -> Self {
        ScatterCamera {
            zoom: 1.0,
            centre: None,
            colour_by: ColourBy::Collision,
            pick: None,
            neighbours: None,
        }
    }
}

impl ScatterCamera {
    /// Every point in view again.
    pub fn reset(&mut self) {
        self.zoom = 1.0;
        self.centre = None;
    }

    /// Multiplies the zoom by `factor` around `at` (projection coordinates), else when
    /// zooming in around `picked` (the picked point), else around the view's centre.
    pub fn zoom_by(&mut self, factor: f64, at: Option<[f64; 2]>, picked: Option<[f64; 2]>) {
        let zoom = (self.zoom * factor).clamp(1.0, MAX_ZOOM);
        if let Some(c) = at.or(if factor > 1.0 { picked } else { None }) {
            self.centre = Some(c);
        }
        self.zoom = zoom;
        if zoom == 1.0 {
            self.centre = None;
        }
    }
}

/// The nearest neighbours of one item in the space the scatter's camera looks at.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbours {
    /// The tokenizer whose index positions these are.
    pub tokenizer: usize,
    /// The item's position in that index.
    pub position: usize,
    /// The space searched.
    pub space: Space,
    /// Nearest first: (index position, Euclidean distance).
    pub near: Vec<(usize, f64)>,
}

/// Everything the scatter pane shows and how it is looked at.
#[derive(Debug)]
pub struct ScatterState {
    /// The embeddings file the scatter projects.
    pub embeddings: Option<PathBuf>,
    /// The scatter's projection.
    pub projection: Slot<Arc<Projected>>,
    /// The projection's points grouped by the tokenizer shown.
    pub textual: Option<ScatterView>,
    /// The interactions the collaborative space is built from.
    pub interactions: Option<PathBuf>,
    /// The collaborative space and its projection (same items as `projection`).
    pub collaborative: Slot<Arc<Projected>>,
    /// The collaborative projection's points grouped by the tokenizer shown.
    pub collaborative_view: Option<ScatterView>,
    /// Which space the scatter shows.
    pub space: Space,
    /// Whether the scatter highlights the tightest groups instead of the largest.
    pub tightest: bool,
    /// Which of the highlighted tightest groups the scatter points at (↑/↓ there step
    /// through them, Enter opens it).
    pub tight_at: usize,
    /// How far apart each group's items are in both spaces (tokenizer shown).
    pub spreads: Option<Arc<Spreads>>,
    /// How the scatter is looked at.
    pub camera: ScatterCamera,
}

impl ScatterState {
    /// Nothing projected yet; without embeddings or interactions the slots say how to give
    /// them.
    pub fn new(sources: &Sources) -> ScatterState {
        let projection = match &sources.embeddings {
            Some(_) => Slot::Missing("waiting for the index".into()),
            None => Slot::Missing(
                "no embeddings: pass --embeddings FILE.npy (N×d, row i = item id i), or open a dataset folder with DS.emb-NAME.npy"
                    .into(),
            ),
        };
        let collaborative = match &sources.interactions {
            Some(_) => Slot::Missing("waiting for the index".into()),
            None => Slot::Missing(
                "no interactions: pass --interactions FILE (or open a dataset folder with DS.inter.json) for the collaborative space"
                    .into(),
            ),
        };
        ScatterState {
            embeddings: sources.embeddings.clone(),
            projection,
            textual: None,
            interactions: sources.interactions.clone(),
            collaborative,
            collaborative_view: None,
            space: Space::Textual,
            tightest: false,
            tight_at: 0,
            spreads: None,
            camera: ScatterCamera::default(),
        }
    }

    /// Whether a projection is still being computed.
    pub fn busy(&self) -> bool {
        self.projection.is_loading() || self.collaborative.is_loading()
    }

    /// The projection a pane of `space` draws (the textual one for `Both`'s left pane).
    pub fn projection_of(&self, space: Space) -> Option<&Arc<Projected>> {
        match space {
            Space::Collaborative => self.collaborative.ready(),
            Space::Textual | Space::Both => self.projection.ready(),
        }
    }

    /// The points-to-groups map of `space`'s projection.
    pub fn view_of(&self, space: Space) -> Option<&ScatterView> {
        match space {
            Space::Collaborative => self.collaborative_view.as_ref(),
            Space::Textual | Space::Both => self.textual.as_ref(),
        }
    }

    /// The space zoom, pan and picks act on: the one shown, the textual one in `Both`.
    pub fn camera_space(&self) -> Space {
        match self.space {
            Space::Collaborative if self.collaborative.ready().is_some() => Space::Collaborative,
            _ => Space::Textual,
        }
    }

    /// The tightest groups when the scatter highlights them for tokenizer `shown`.
    pub fn tight_groups(&self, shown: usize) -> Option<&[u32]> {
        self.spreads
            .as_ref()
            .filter(|s| {
                self.tightest
                    && self.camera.colour_by == ColourBy::Collision
                    && s.tokenizer == shown
                    && !s.tightest.is_empty()
            })
            .map(|s| s.tightest.as_slice())
    }

    /// The highlighted tightest group the scatter points at (▸ in its legend).
    pub fn tight_group(&self, shown: usize) -> Option<u32> {
        let groups = self.tight_groups(shown)?;
        groups.get(self.tight_at.min(groups.len() - 1)).copied()
    }

    /// Maps both projections' points to the collision groups of tokenizer `shown` (whose
    /// data is `data`), unless they already are.
    pub fn refresh_points(&mut self, shown: usize, data: Option<&TokenizerData>) {
        let fresh =
            |view: &Option<ScatterView>| view.as_ref().is_some_and(|s| s.tokenizer == shown);
        let of =
            |projected: Option<&Arc<Projected>>| Some(ScatterView::of(projected?, data?, shown));
        if !fresh(&self.textual) {
            self.textual = of(self.projection.ready());
        }
        if !fresh(&self.collaborative_view) {
            self.collaborative_view = of(self.collaborative.ready());
        }
    }

    /// The mean intra-group distances of tokenizer `shown` in both spaces (a pass over the
    /// groups' item pairs: milliseconds), recomputed when the tokenizer, a space or the
    /// minimum size changes.
    pub fn refresh_spreads(&mut self, shown: usize, data: Option<&TokenizerData>, min_size: usize) {
        let (Some(data), Some(textual)) = (data, self.projection.ready()) else {
            self.spreads = None;
            return;
        };
        let collaborative = self.collaborative.ready();
        let min_size = min_size.max(TIGHTEST_MIN_SIZE);
        let current = self.spreads.as_ref().is_some_and(|s| {
            s.tokenizer == shown
                && s.with_collaborative == collaborative.is_some()
                && s.min_size == min_size
        });
        if current {
            return;
        }
        self.spreads = Spreads::compute(
            shown,
            data,
            &textual.embeddings,
            collaborative.map(|c| c.embeddings.as_ref()),
            min_size,
        )
        .map(Arc::new);
    }

    /// `c`: colour by the next kind of category.
    pub fn cycle_colour(&mut self) -> Notice {
        self.camera.colour_by = self.camera.colour_by.next();
        Notice::info(format!(
            "scatter coloured by {}",
            self.camera.colour_by.label()
        ))
    }

    /// `v`: textual → collaborative → both side by side (`room` says whether the pane has
    /// room for that); a new space starts with every point in view and nothing picked.
    pub fn cycle_space(&mut self, room: bool) -> Notice {
        if let Some(why) = self.collaborative.missing_why("the collaborative space") {
            self.space = Space::Textual;
            return Notice::warn(format!("only the textual space: {why}"));
        }
        self.space = self.space.next(room);
        self.camera.reset();
        self.camera.pick = None;
        let hint = if room || self.space == Space::Both {
            String::new()
        } else {
            " (too narrow for side by side: tabs)".to_string()
        };
        Notice::info(format!("scatter: {} space{hint}", self.space.label()))
    }

    /// `t`: highlight the tightest groups (smallest mean pairwise cosine distance in the
    /// textual space) instead of the largest, or back.
    pub fn toggle_tightest(&mut self) -> Notice {
        if self.spreads.is_none() {
            let why = self
                .projection
                .missing_why("the embeddings")
                .unwrap_or_else(|| "the embeddings do not cover the index".into());
            return Notice::warn(format!("no tightest groups: {why}"));
        }
        self.tightest = !self.tightest;
        self.tight_at = 0;
        self.camera.colour_by = ColourBy::Collision;
        let (found, min_size) = self
            .spreads
            .as_ref()
            .map_or((0, TIGHTEST_MIN_SIZE), |s| (s.tightest.len(), s.min_size));
        Notice::info(if self.tightest {
            format!(
                "{found} tightest groups of {min_size}+ items: ↑/↓ step through them, Enter opens the ▸ one"
            )
        } else {
            format!("scatter highlights the {HIGHLIGHTED_GROUPS} largest groups")
        })
    }
}
