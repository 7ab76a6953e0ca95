//! The layout pass: from a derivation tree to text.

use super::spacing::{is_control_keyword, needs_space};
use crate::choice::OwnWords;
use crate::grammar::{CharClass, Grammar, LayoutToken, PoolId, Separator, Terminal};
use crate::tree::{DerivationTree, NodeKind};

/// Renders derivation trees of one grammar. Building it looks up once, per rule, terminal and
/// pool value, what the layout pass needs (whether a rule is one token; each text with its first
/// and last character), so that rendering reads only the tree and dense tables. Keep one per
/// grammar in a hot loop, together with one output `String`.
pub struct Renderer<'g> {
    /// Per rule: whether it renders as one token.
    lexical: Vec<bool>,
    /// Per terminal: the range of `texts` holding its values (one for a literal, one per value
    /// for a pool), or `None` if it writes something else.
    values: Vec<Option<(u32, u32)>>,
    texts: Vec<Text<'g>>,
    /// Per terminal: what a terminal without `values` does.
    others: Vec<Other<'g>>,
    /// Per terminal: the pool it draws from, where an input's own words may stand in.
    pools: Vec<Option<PoolId>>,
    separator: &'g Separator,
    indent: &'g str,
}

#[derive(Clone, Copy)]
enum Other<'g> {
    Class(&'g CharClass),
    Layout(LayoutToken),
    /// Text terminals, handled through `values`.
    Values,
}

/// A text with the characters the `auto` separator looks at.
#[derive(Clone, Copy)]
struct Text<'g> {
    text: &'g str,
    first: char,
    last: char,
    /// A grammar literal that is a control keyword (see `spacing`).
    keyword: bool,
}

impl<'g> Text<'g> {
    fn new(text: &'g str, literal: bool) -> Self {
        Self {
            text,
            // Empty texts are never emitted, so these are never read.
            first: text.chars().next().unwrap_or(' '),
            last: text.chars().next_back().unwrap_or(' '),
            keyword: literal && is_control_keyword(text),
        }
    }
}

impl<'g> Renderer<'g> {
    /// Looks up, once per terminal and pool value, everything the layout pass reads; cost is
    /// linear in the grammar, so build one per grammar, not one per tree.
    pub fn new(grammar: &'g Grammar) -> Self {
        let mut texts = Vec::new();
        let mut values = Vec::with_capacity(grammar.terminals.len());
        let mut others = Vec::with_capacity(grammar.terminals.len());
        let mut pools = Vec::with_capacity(grammar.terminals.len());
        for terminal in &grammar.terminals {
            let start = texts.len() as u32;
            let other = match terminal {
                Terminal::Literal(text) => {
                    texts.push(Text::new(text, true));
                    Other::Values
                }
                Terminal::Pool(pool) => {
                    let pool = &grammar.pools[pool.index()].values;
                    texts.extend(pool.iter().map(|value| Text::new(value, false)));
                    Other::Values
                }
                Terminal::Class(class) => Other::Class(class),
                Terminal::Layout(token) => Other::Layout(*token),
            };
            values.push(matches!(other, Other::Values).then(|| (start, texts.len() as u32)));
            others.push(other);
            pools.push(match terminal {
                Terminal::Pool(pool) => Some(*pool),
                _ => None,
            });
        }
        Self {
            lexical: grammar.rules.iter().map(|rule| rule.lexical).collect(),
            values,
            texts,
            others,
            pools,
            separator: &grammar.layout.separator,
            indent: &grammar.layout.indent,
        }
    }

    /// Renders `tree` into `out`, which is cleared first. Tokens are the terminals outside
    /// lexical rules and the whole text of each outermost lexical rule; the grammar's separator
    /// goes between tokens on one line, `NEWLINE`/`INDENT`/`DEDENT` produce line breaks and
    /// indentation, and `GLUE` suppresses the separator before the next token.
    pub fn render_into(&self, tree: &DerivationTree, out: &mut String) {
        self.render_words_into(tree, &OwnWords::default(), out);
    }

    /// [`Renderer::render_into`] for an input with words of its own: each stands in for its
    /// pool value wherever the tree draws that value.
    pub fn render_words_into(&self, tree: &DerivationTree, words: &OwnWords, out: &mut String) {
        self.render_words_within(tree, words, out, usize::MAX);
    }

    /// [`Renderer::render_words_into`] that stops once the text is longer than `limit` bytes,
    /// returning false (`out` then holds a prefix). Why: indentation makes a text grow with
    /// the square of its nesting, so a deep mutant of a few thousand choices can render to
    /// hundreds of megabytes; rendering all of it only to refuse it as too long took longer
    /// than the target's timeout, inside the timed execution.
    pub fn render_words_within(
        &self,
        tree: &DerivationTree,
        words: &OwnWords,
        out: &mut String,
        limit: usize,
    ) -> bool {
        out.clear();
        let mut state = Layout {
            separator: self.separator,
            indent_text: self.indent,
            out,
            previous: None,
            after_keyword: false,
            line_start: true,
            glued: false,
            indent: 0,
        };
        // Nodes before this index belong to the lexical rule currently being rendered.
        let mut token_end = 0u32;
        // Whether that rule has written nothing yet, so its first text starts the token.
        let mut token_pending = false;
        // Holds the character a class terminal writes.
        let mut buf = [0u8; 4];
        for (i, node) in tree.nodes().iter().enumerate() {
            let inside_token = (i as u32) < token_end;
            match node.kind {
                NodeKind::Rule { rule, .. } if !inside_token && self.lexical[rule.index()] => {
                    token_end = node.end;
                    token_pending = true;
                }
                NodeKind::Terminal { terminal, value } => {
                    // Literals and pool values, most terminals, take one branch-free lookup.
                    let own = match self.pools[terminal.index()] {
                        Some(pool) if !words.is_empty() => words.get(pool, value),
                        _ => None,
                    };
                    let text = if let Some(word) = own {
                        Text::new(word, false)
                    } else if let Some((start, _)) = self.values[terminal.index()] {
                        let text = self.texts[(start + value) as usize];
                        Text {
                            keyword: text.keyword && !inside_token,
                            ..text
                        }
                    } else {
                        match self.others[terminal.index()] {
                            Other::Class(class) => {
                                let c = class.nth(value);
                                Text {
                                    text: c.encode_utf8(&mut buf),
                                    first: c,
                                    last: c,
                                    keyword: false,
                                }
                            }
                            Other::Layout(token) => {
                                state.layout(token);
                                continue;
                            }
                            Other::Values => continue,
                        }
                    };
                    if !text.text.is_empty() {
                        state.emit(text, !inside_token || token_pending);
                        token_pending = false;
                        if state.out.len() > limit {
                            return false;
                        }
                    }
                }
                NodeKind::Rule { .. } | NodeKind::Optional { .. } | NodeKind::Repeat { .. } => {}
            }
        }
        true
    }

    /// The text of `tree`; [`Renderer::render_into`] reuses the caller's buffer instead.
    pub fn render(&self, tree: &DerivationTree) -> String {
        let mut out = String::new();
        self.render_into(tree, &mut out);
        out
    }
}

/// Renders one tree; a loop over many trees should keep a [`Renderer`].
pub fn render_into(grammar: &Grammar, tree: &DerivationTree, out: &mut String) {
    Renderer::new(grammar).render_into(tree, out);
}

/// Renders one tree; a loop over many trees should keep a [`Renderer`].
pub fn render(grammar: &Grammar, tree: &DerivationTree) -> String {
    Renderer::new(grammar).render(tree)
}

/// Renders one tree of an input with words of its own (see [`OwnWords`]).
pub fn render_words(grammar: &Grammar, tree: &DerivationTree, words: &OwnWords) -> String {
    let mut out = String::new();
    Renderer::new(grammar).render_words_into(tree, words, &mut out);
    out
}

/// [`render_words`] into the caller's buffer, which is cleared first.
pub fn render_words_into(
    grammar: &Grammar,
    tree: &DerivationTree,
    words: &OwnWords,
    out: &mut String,
) {
    Renderer::new(grammar).render_words_into(tree, words, out);
}

struct Layout<'a> {
    separator: &'a Separator,
    indent_text: &'a str,
    out: &'a mut String,
    /// Last character of the previous token on this line.
    previous: Option<char>,
    /// Whether that token was a word-like literal of the grammar, such as `if`.
    after_keyword: bool,
    line_start: bool,
    /// A `GLUE` was seen: the next token gets no separator.
    glued: bool,
    indent: usize,
}

impl Layout<'_> {
    fn layout(&mut self, token: LayoutToken) {
        match token {
            LayoutToken::Newline => {
                self.out.push('\n');
                self.line_start = true;
                self.previous = None;
            }
            LayoutToken::Indent => self.indent += 1,
            LayoutToken::Dedent => self.indent = self.indent.saturating_sub(1),
            LayoutToken::Glue => self.glued = true,
        }
    }

    /// Appends one non-empty text, with the indentation or separator before it if it starts
    /// a token.
    #[inline]
    fn emit(&mut self, text: Text<'_>, starts_token: bool) {
        if starts_token {
            if self.line_start {
                for _ in 0..self.indent {
                    self.out.push_str(self.indent_text);
                }
            } else if let Some(previous) = self.previous.filter(|_| !self.glued) {
                match self.separator {
                    Separator::Auto => {
                        if needs_space(previous, text.first, self.after_keyword) {
                            self.out.push(' ');
                        }
                    }
                    Separator::Text(sep) => self.out.push_str(sep),
                }
            }
        }
        self.line_start = false;
        self.glued = false;
        match text.text.as_bytes() {
            // Most tokens are one character; pushing it spares a call to memcpy.
            &[byte] => self.out.push(char::from(byte)),
            _ => self.out.push_str(text.text),
        }
        self.previous = Some(text.last);
        self.after_keyword = text.keyword;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampler::{Bounds, Sample, Sampler};

    fn only_output(text: &str) -> String {
        let grammar = Grammar::from_text("t", text).unwrap();
        let mut sampler = Sampler::new(&grammar, Bounds::new(1, 1, 1).unwrap()).unwrap();
        let mut sample = Sample::default();
        sampler.generate(&mut fast_rands::StdRand::with_seed(0), &mut sample);
        render(&grammar, &sample.tree)
    }

    #[test]
    fn lexical_rules_render_as_one_token_and_glue_removes_one_separator() {
        assert_eq!(
            only_output(r#"s = "a" STR GLUE "b" "c" ; STR = '"' "x" [y] '"' ;"#),
            r#"a "xy"b c"#
        );
    }
}
