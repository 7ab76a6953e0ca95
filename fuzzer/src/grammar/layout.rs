//! What the grammar says goes between tokens. The layout pass itself lives in `text`.

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
}

impl Default for Layout {
    fn default() -> Self {
        Self {
            separator: Separator::Auto,
            indent: "    ".to_string(),
        }
    }
}
