//! The grammar file as written, before names are resolved and operators are lowered.

use crate::diagnostic::Span;

/// How deep an expression may nest: parentheses, and repetition operators stacked on one item.
/// Every stage walks expressions recursively (parsing, lowering, the importers), so without a
/// bound a grammar of ten thousand parentheses overflows the loader's stack instead of being
/// refused. No hand-written grammar comes near it (the deepest shipped one nests 6); a
/// generated one can name its inner parts as rules.
pub const MAX_NESTING: usize = 256;

/// The error for an expression nested past [`MAX_NESTING`].
pub fn too_deep(what: &str) -> String {
    format!(
        "{what} nests deeper than {MAX_NESTING} levels (parentheses and repetition operators); \
         make an inner part a rule of its own"
    )
}

#[derive(Clone, Debug)]
pub enum Expr {
    Alt(Vec<Expr>, Span),
    Seq(Vec<Expr>, Span),
    Quantified {
        inner: Box<Expr>,
        min: u32,
        max: Option<u32>,
        /// `?` is a present/absent choice, not a repetition bounded by n.
        optional: bool,
        span: Span,
    },
    Literal(String, Span),
    Regex(String, Span),
    Class(String, Span),
    Name(String, Span),
}

impl Expr {
    pub fn span(&self) -> Span {
        match self {
            Expr::Alt(_, s)
            | Expr::Seq(_, s)
            | Expr::Literal(_, s)
            | Expr::Regex(_, s)
            | Expr::Class(_, s)
            | Expr::Name(_, s) => *s,
            Expr::Quantified { span, .. } => *span,
        }
    }
}

#[derive(Clone, Debug)]
pub struct RuleDef {
    pub name: String,
    pub name_span: Span,
    pub body: Expr,
}

#[derive(Clone, Debug)]
pub enum PoolSource {
    Regex(String, Span),
    Values(Vec<(String, Span)>),
}

#[derive(Clone, Debug)]
pub struct PoolDef {
    pub name: String,
    pub name_span: Span,
    pub source: PoolSource,
}

#[derive(Clone, Debug)]
pub enum LayoutSetting {
    Named(String, Span),
    Text(String),
}

#[derive(Clone, Debug, Default)]
pub struct GrammarFile {
    pub rules: Vec<RuleDef>,
    pub pools: Vec<PoolDef>,
    pub start: Option<(String, Span)>,
    pub layout: Option<LayoutSetting>,
    pub indent: Option<String>,
    /// `%depth rule|cycle`: the name and where it was written.
    pub depth: Option<(String, Span)>,
    /// `%comment "#";` and `%comment "/*" "*/";`, in order.
    pub comments: Vec<super::Comment>,
    /// `%reserved "if" "for" ...;`: the only keywords an identifier can never be.
    pub reserved: Option<Vec<String>>,
}
