//! Stage 6: text. The layout pass that renders a derivation tree.

mod render;
mod spacing;

pub use render::{render, render_into};
pub use spacing::{is_control_keyword, needs_space};
