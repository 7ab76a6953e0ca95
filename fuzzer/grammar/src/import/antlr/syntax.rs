//! An ANTLR4 grammar as written, reduced to what generation needs: actions, labels and
//! options are gone by the time this tree exists (the parser warns about the ones that
//! change the language).

use crate::diagnostic::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GrammarKind {
    Combined,
    Lexer,
    Parser,
}

#[derive(Clone, Debug)]
pub struct GrammarSpec {
    pub kind: GrammarKind,
    pub name: String,
    /// `options { name = value; }` of the grammar.
    pub options: Vec<(String, String, Span)>,
    /// `import A, B;`
    pub imports: Vec<(String, Span)>,
    /// `tokens { A, B }`: token types without rules of their own.
    pub tokens: Vec<(String, Span)>,
    pub rules: Vec<Rule>,
    /// The first `mode` declaration, if any: modes are flattened, with one warning.
    pub first_mode: Option<Span>,
}

impl GrammarSpec {
    pub fn option(&self, name: &str) -> Option<(&str, Span)> {
        self.options
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, v, s)| (v.as_str(), *s))
    }
}

#[derive(Clone, Debug)]
pub struct Rule {
    pub name: String,
    pub name_span: Span,
    pub fragment: bool,
    pub alternatives: Vec<Alternative>,
    pub span: Span,
}

impl Rule {
    pub fn is_lexer(&self) -> bool {
        self.name.starts_with(|c: char| c.is_uppercase())
    }

    pub fn commands(&self) -> impl Iterator<Item = &(Command, Span)> {
        self.alternatives.iter().flat_map(|a| a.commands.iter())
    }

    /// Sent to `skip` or to a channel other than the default: the parser never sees it.
    pub fn is_skipped(&self) -> bool {
        self.commands().any(|(c, _)| match c {
            Command::Skip => true,
            Command::Channel(channel) => channel != "DEFAULT_TOKEN_CHANNEL" && channel != "0",
            _ => false,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Alternative {
    pub elements: Vec<Element>,
    pub commands: Vec<(Command, Span)>,
    pub span: Span,
    /// Where its first semantic predicate is, if it has one.
    pub predicate: Option<Span>,
    /// Where its first action is, if it has one.
    pub action: Option<Span>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Skip,
    More,
    Channel(String),
    Type(String),
    PushMode(String),
    PopMode,
    Mode(String),
}

#[derive(Clone, Debug)]
pub enum Element {
    Literal(String, Span),
    /// A rule or token reference.
    Ref(String, Span),
    /// `'a'..'z'`
    Range(char, char, Span),
    /// A lexer set `[a-z\n]`, verbatim between the brackets.
    Set(String, Span),
    /// `~x`
    Not(Box<Element>, Span),
    /// `.`
    Any(Span),
    /// `( a | b )`
    Block(Vec<Alternative>, Span),
    /// `x?`, `x*`, `x+` (non-greedy forms generate the same language).
    Suffix(Box<Element>, char, Span),
}

impl Element {
    pub fn span(&self) -> Span {
        match self {
            Element::Literal(_, s)
            | Element::Ref(_, s)
            | Element::Range(_, _, s)
            | Element::Set(_, s)
            | Element::Not(_, s)
            | Element::Any(s)
            | Element::Block(_, s)
            | Element::Suffix(_, _, s) => *s,
        }
    }
}
