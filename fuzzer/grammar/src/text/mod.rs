//! Text. The layout pass that renders a derivation tree.

mod render;
mod saved;
mod spacing;

pub use render::{Renderer, render, render_into, render_words, render_words_into};
pub use saved::{SavedReplayError, replay_saved};
pub use spacing::{
    SPACING_CLASSES, is_control_keyword, needs_space, needs_space_after_class, spacing_class,
};
