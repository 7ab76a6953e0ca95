//! The layout pass: from a derivation tree to text.

use super::spacing::{is_control_keyword, needs_space};
use crate::grammar::{Grammar, LayoutToken, Separator, Terminal};
use crate::tree::{DerivationTree, NodeKind};

/// Renders `tree` into `out`, which is cleared first; reusing one buffer keeps a hot loop
/// free of allocations. Tokens are the terminals outside lexical rules and the whole text of
/// each outermost lexical rule; the grammar's separator goes between tokens on one line, and
/// `NEWLINE`/`INDENT`/`DEDENT` produce line breaks and indentation; `GLUE` suppresses the
/// separator before the next token.
pub fn render_into(grammar: &Grammar, tree: &DerivationTree, out: &mut String) {
    out.clear();
    let mut state = Layout {
        grammar,
        out,
        previous: None,
        after_keyword: false,
        line_start: true,
        glued: false,
        indent: 0,
    };
    // Nodes before this index belong to the lexical rule currently being rendered.
    let mut token_end = 0u32;
    let mut token_pending = false;
    for (i, node) in tree.nodes().iter().enumerate() {
        let inside_token = (i as u32) < token_end;
        match node.kind {
            NodeKind::Rule { rule, .. } if !inside_token && grammar.rule(rule).lexical => {
                token_end = node.end;
                token_pending = true;
            }
            NodeKind::Terminal { terminal, value } => {
                let starts_token = !inside_token || token_pending;
                let text: &str = match grammar.terminal(terminal) {
                    Terminal::Layout(token) => {
                        state.layout(*token);
                        continue;
                    }
                    Terminal::Literal(s) => {
                        let keyword = !inside_token && is_control_keyword(s);
                        if state.emit(s, starts_token, keyword) {
                            token_pending = false;
                        }
                        continue;
                    }
                    Terminal::Pool(p) => &grammar.pools[p.index()].values[value as usize],
                    Terminal::Class(class) => {
                        let mut buf = [0u8; 4];
                        let c: &str = class.nth(value).encode_utf8(&mut buf);
                        if state.emit(c, starts_token, false) {
                            token_pending = false;
                        }
                        continue;
                    }
                };
                if state.emit(text, starts_token, false) {
                    token_pending = false;
                }
            }
            _ => {}
        }
    }
}

pub fn render(grammar: &Grammar, tree: &DerivationTree) -> String {
    let mut out = String::new();
    render_into(grammar, tree, &mut out);
    out
}

struct Layout<'a> {
    grammar: &'a Grammar,
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

    /// Appends one piece of text; returns whether anything was written.
    fn emit(&mut self, text: &str, starts_token: bool, keyword: bool) -> bool {
        let Some(first) = text.chars().next() else {
            return false;
        };
        if starts_token {
            if self.line_start {
                for _ in 0..self.indent {
                    self.out.push_str(&self.grammar.layout.indent);
                }
            } else if let Some(previous) = self.previous.filter(|_| !self.glued) {
                match &self.grammar.layout.separator {
                    Separator::Auto => {
                        if needs_space(previous, first, self.after_keyword) {
                            self.out.push(' ');
                        }
                    }
                    Separator::Text(sep) => self.out.push_str(sep),
                }
            }
        }
        self.line_start = false;
        self.glued = false;
        self.out.push_str(text);
        self.previous = text.chars().next_back();
        self.after_keyword = keyword;
        true
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
        sampler.generate(&mut libafl_bolts::rands::StdRand::with_seed(0), &mut sample);
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
