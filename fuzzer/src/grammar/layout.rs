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

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
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
