//! Tokens as a tokenizer would see them, and the grammar over them.
//!
//! Poisoned pairs are facts about adjacent tokens, but the grammar's terminals include the
//! characters inside lexical rules (a string's quote, a number's digits), whose neighbours are
//! each other. Reading first/follow over those would pair a digit with a digit and lose every
//! pair a number takes part in. So the analysis runs on a token grammar: a copy in which every
//! lexical rule derives one fresh terminal, its token kind, and nothing of its inside is left.

use fixedbitset::FixedBitSet;

use crate::analysis::{Direction, Reachability, TerminalSets, nullable_rules};
use crate::grammar::{Alternative, Grammar, LayoutToken, RuleId, Symbol, Terminal};
use crate::tree::{DerivationTree, NodeKind};

/// A token kind: a terminal of the token grammar. Kinds below the original grammar's terminal
/// count are its terminals (used outside lexical rules); the rest are its lexical rules.
pub type Kind = usize;

/// The grammar over token kinds, with its first, follow, last and precede sets.
pub struct TokenGrammar {
    /// The copy in which lexical rules are single terminals.
    pub grammar: Grammar,
    /// Per rule of the original grammar: its kind if it is lexical.
    pub lexical_kind: Vec<Option<Kind>>,
    /// Per kind: the lexical rule it stands for, if any.
    pub kind_rule: Vec<Option<RuleId>>,
    /// Kinds that occur as tokens in some derivation; only these can be read at top level.
    pub reachable_kinds: FixedBitSet,
    /// Rules of the token grammar reachable from the start rule (lexical ones included).
    pub reachable_rules: FixedBitSet,
    /// Rules of the token grammar that derive the empty word.
    pub nullable: FixedBitSet,
    /// first and follow over kinds; the extra bit is the end of input
    pub forward: TerminalSets,
    /// last and precede over kinds; the extra bit is the beginning of input
    pub backward: TerminalSets,
}

impl TokenGrammar {
    /// Rewrites every lexical rule into its kind (keeping an empty alternative where the rule
    /// can derive the empty word, so an invisible token is also an absent one) and empties the
    /// rules the start rule no longer reaches: their adjacencies would otherwise add pairs no
    /// token sequence has. Extra pairs only ever cost poisoned pairs, never soundness.
    pub fn new(original: &Grammar) -> Self {
        let original_nullable = nullable_rules(original);
        let mut grammar = original.clone();
        let mut lexical_kind = vec![None; original.rules.len()];
        let mut kind_rule: Vec<Option<RuleId>> = vec![None; original.terminals.len()];
        for (r, rule) in original.rules.iter().enumerate() {
            if !rule.lexical {
                continue;
            }
            let kind = grammar.terminals.len();
            grammar
                .terminals
                .push(Terminal::Literal(format!("\u{0}{}", rule.name)));
            lexical_kind[r] = Some(kind);
            kind_rule.push(Some(RuleId(r as u32)));
            let mut alternatives = vec![Alternative {
                symbols: vec![Symbol::Terminal(crate::grammar::TerminalId(kind as u32))],
                span: rule.span,
            }];
            if original_nullable.contains(r) {
                alternatives.push(Alternative {
                    symbols: Vec::new(),
                    span: rule.span,
                });
            }
            grammar.rules[r].alternatives = alternatives;
        }
        let reachable_rules = Reachability::compute(&grammar).rules;
        for r in 0..grammar.rules.len() {
            if !reachable_rules.contains(r) {
                grammar.rules[r].alternatives.clear();
            }
        }
        let mut reachable_kinds = FixedBitSet::with_capacity(grammar.terminals.len());
        for rule in &grammar.rules {
            for alt in &rule.alternatives {
                for symbol in &alt.symbols {
                    if let Symbol::Terminal(t) = symbol {
                        reachable_kinds.insert(t.index());
                    }
                }
            }
        }
        let nullable = nullable_rules(&grammar);
        let forward = TerminalSets::compute(&grammar, &nullable, Direction::Forward);
        let backward = TerminalSets::compute(&grammar, &nullable, Direction::Backward);
        Self {
            grammar,
            lexical_kind,
            kind_rule,
            reachable_kinds,
            reachable_rules,
            nullable,
            forward,
            backward,
        }
    }

    /// How many kinds there are; also the index of the boundary (beginning or end of input).
    pub fn kinds(&self) -> usize {
        self.grammar.terminals.len()
    }

    /// Whether `kind` is NEWLINE, INDENT, DEDENT or GLUE: line structure, not text.
    pub fn is_layout(&self, kind: Kind) -> bool {
        kind < self.kinds() && matches!(self.grammar.terminals[kind], Terminal::Layout(_))
    }

    /// A name for messages and the manifest: the literal quoted, or the pool's, rule's or
    /// layout token's name.
    pub fn name(&self, original: &Grammar, kind: Kind) -> String {
        if kind >= self.kinds() {
            return "(boundary)".to_string();
        }
        if let Some(rule) = self.kind_rule[kind] {
            return original.rule(rule).name.clone();
        }
        match &original.terminals[kind] {
            Terminal::Literal(text) => format!("{text:?}"),
            Terminal::Pool(p) => original.pools[p.index()].name.clone(),
            Terminal::Class(class) => format!("{:?}", class.ranges()),
            Terminal::Layout(token) => token.name().to_string(),
        }
    }
}

/// One token of a word: its kind and its text. Layout tokens have no text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What the token is.
    pub kind: Kind,
    /// Its text; empty for NEWLINE, INDENT and DEDENT.
    pub text: String,
    /// A GLUE stood before it: nothing may separate it from the token before.
    pub glued: bool,
}

/// The text one terminal leaf writes.
pub fn leaf_text(grammar: &Grammar, terminal: crate::grammar::TerminalId, value: u32) -> String {
    match grammar.terminal(terminal) {
        Terminal::Literal(text) => text.clone(),
        Terminal::Pool(pool) => grammar.pools[pool.index()].values[value as usize].clone(),
        Terminal::Class(class) => class.nth(value).to_string(),
        Terminal::Layout(_) => String::new(),
    }
}

/// The tokens of a derivation, as the layout pass cuts them (terminals outside lexical rules,
/// outermost lexical rules whole). The layout pass in `text` writes text without token
/// boundaries, so this walk repeats its notion of a token, and nothing else of it. Tokens
/// with empty text are left out: nothing in the text shows them.
pub fn tokens_of(grammar: &Grammar, view: &TokenGrammar, tree: &DerivationTree) -> Vec<Token> {
    let mut tokens: Vec<Token> = Vec::new();
    let mut token_end = 0u32;
    let mut glue = false;
    for (i, node) in tree.nodes().iter().enumerate() {
        let inside = (i as u32) < token_end;
        match node.kind {
            NodeKind::Rule { rule, .. } if !inside && grammar.rule(rule).lexical => {
                token_end = node.end;
                tokens.push(Token {
                    kind: view.lexical_kind[rule.index()].unwrap_or(0),
                    text: String::new(),
                    glued: glue,
                });
                glue = false;
            }
            NodeKind::Terminal { terminal, value } => {
                let text = leaf_text(grammar, terminal, value);
                if inside {
                    if let Some(last) = tokens.last_mut() {
                        last.text.push_str(&text);
                    }
                    continue;
                }
                match grammar.terminal(terminal) {
                    Terminal::Layout(LayoutToken::Glue) => glue = true,
                    Terminal::Layout(_) => tokens.push(Token {
                        kind: terminal.index(),
                        text,
                        glued: false,
                    }),
                    _ => {
                        tokens.push(Token {
                            kind: terminal.index(),
                            text,
                            glued: glue,
                        });
                        glue = false;
                    }
                }
            }
            _ => {}
        }
    }
    tokens.retain(|t| !t.text.is_empty() || view.is_layout(t.kind));
    tokens
}

/// A word as text, with where each token stands in it.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// The text.
    pub text: String,
    /// Per token: its byte range (empty for layout tokens).
    pub spans: Vec<(usize, usize)>,
}

/// Writes tokens with one space between any two on a line (none after GLUE), line breaks and
/// indentation for the layout tokens. A space everywhere, rather than the grammar's `auto`
/// spacing, is what keeps two tokens from reading as one: the parser allows spaces before any
/// token outside lexical rules, so the positive word still parses, and only a token whose
/// language holds a space can reach across one (see `readings::Readings`).
pub fn render(grammar: &Grammar, tokens: &[Token]) -> Rendered {
    let mut text = String::new();
    let mut spans = Vec::with_capacity(tokens.len());
    let mut line_start = true;
    let mut indent = 0usize;
    for token in tokens {
        let layout = match grammar.terminals.get(token.kind) {
            Some(Terminal::Layout(layout)) => Some(*layout),
            _ => None,
        };
        if let Some(layout) = layout {
            match layout {
                LayoutToken::Newline => {
                    text.push('\n');
                    line_start = true;
                }
                LayoutToken::Indent => indent += 1,
                LayoutToken::Dedent => indent = indent.saturating_sub(1),
                LayoutToken::Glue => {}
            }
            spans.push((text.len(), text.len()));
            continue;
        }
        if line_start {
            for _ in 0..indent {
                text.push_str(&grammar.layout.indent);
            }
        } else if !token.glued {
            text.push(' ');
        }
        line_start = false;
        let start = text.len();
        text.push_str(&token.text);
        spans.push((start, text.len()));
    }
    Rendered { text, spans }
}
