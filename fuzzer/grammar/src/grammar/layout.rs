//! What the grammar says goes between tokens. The layout pass itself lives in `text`.

use super::Comment;

/// What separates two adjacent tokens on one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Separator {
    /// A single space unless the pair reads naturally without one, such as `f(x)`, `a, b`
    /// or `x.y`. Keeps generated programs readable without making the grammar author spell
    /// out spacing.
    Auto,
    /// Always exactly this text, possibly empty.
    Text(String),
}

/// Everything the layout pass needs besides the tree: how tokens are separated and indented,
/// and which comments to skip when parsing seeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// What separates adjacent tokens on one line (`%layout`).
    pub separator: Separator,
    /// One level of indentation, for `INDENT`/`DEDENT`.
    pub indent: String,
    /// Comments (`%comment`): skipped between tokens when seeds are parsed, never generated.
    pub comments: Vec<Comment>,
}

impl Default for Layout {
    fn default() -> Self {
        Self {
            separator: Separator::Auto,
            indent: "    ".to_string(),
            comments: Vec::new(),
        }
    }
}
