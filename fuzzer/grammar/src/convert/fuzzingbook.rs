//! A grammar in the fuzzingbook's JSON form, so that its fuzzers (GrammarCoverageFuzzer
//! above all) can be run on, and compared on, exactly the grammars Bonsai uses.
//!
//! The form is a dictionary from `<name>` to a list of expansion strings, the start symbol being
//! `<start>`. In an expansion, every match of the book's `RE_NONTERMINAL`, `<[^<> ]*>`, is a
//! nonterminal and everything else is literal text; the book's EBNF convention (its
//! `convert_ebnf_grammar`, which Bonsai's importer follows) further reads `?`, `*` or `+` right
//! after a nonterminal or after `(...)` as an operator. The converter writes literal text so
//! that neither reading finds anything in it that is not meant (see `Writer::literal`).

use std::collections::HashSet;

use super::plain::desugar;
use super::text_grammar::{Piece, TextGrammar, ascii_name, text_grammar, unique};
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;
use crate::sampler::Bounds;

/// The book's `START_SYMBOL`: its fuzzers start there unless told otherwise.
pub const START: &str = "<start>";

/// Rules in the order written, each with its expansions; the first is [`START`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuzzingbookGrammar {
    /// `(<name>, expansions)`, a list rather than a map because the book's dictionaries keep
    /// their order.
    pub rules: Vec<(String, Vec<String>)>,
}

/// Converts `grammar` into the fuzzingbook's form, deriving the texts Bonsai renders, as
/// `nautilus_rules` does and with its limits: pools offer their first m values
/// (`bounds.idents`), classes their first [`super::CLASS_CAPACITY`] characters, indentation is
/// tracked to [`super::MAX_INDENT_LEVEL`], and layout is compiled into the terminals.
///
/// `<start>` is the start rule if that is named `start`, and otherwise expands to the start
/// rule alone, as the book's grammars begin.
///
/// Fails if the start rule derives no text within the tracked indentation depth.
pub fn to_fuzzingbook(grammar: &Grammar, bounds: Bounds) -> Result<FuzzingbookGrammar, Diagnostic> {
    let text = text_grammar(&desugar(grammar, bounds), &grammar.layout);
    if text.rules[0].alternatives.is_empty() {
        return Err(Diagnostic::error(format!(
            "grammar '{}' derives no text that a fuzzingbook grammar can express",
            grammar.name
        )));
    }
    Ok(Writer::new(&text).write(&text))
}

/// A character of literal text that must be written through a rule of its own, and the name
/// that rule gets (if free).
const ESCAPED: [(char, &str); 4] = [('<', "lt"), ('?', "qmark"), ('*', "star"), ('+', "plus")];

struct Writer {
    names: Vec<String>,
    taken: HashSet<String>,
    /// The rule for each of [`ESCAPED`], once needed.
    escapes: [Option<String>; 4],
}

impl Writer {
    fn new(text: &TextGrammar) -> Self {
        let mut taken = HashSet::new();
        let mut names: Vec<String> = text
            .rules
            .iter()
            .map(|rule| base_name(&rule.name))
            .collect();
        // A start rule named start is the book's `<start>` itself (so the book's own grammars
        // come back as they were); otherwise `<start>` is taken by the wrapper, and a rule of
        // that name is renamed rather than merged into it.
        if names[0] != "start" {
            taken.insert("start".to_string());
        }
        for name in &mut names {
            *name = unique(std::mem::take(name), &mut taken);
        }
        Self {
            names,
            taken,
            escapes: Default::default(),
        }
    }

    fn write(mut self, text: &TextGrammar) -> FuzzingbookGrammar {
        let mut rules = Vec::new();
        if self.names[0] != "start" {
            rules.push((START.to_string(), vec![format!("<{}>", self.names[0])]));
        }
        for (r, rule) in text.rules.iter().enumerate() {
            let expansions = rule
                .alternatives
                .iter()
                .map(|alternative| self.expansion(alternative))
                .collect();
            rules.push((format!("<{}>", self.names[r]), expansions));
        }
        for (i, (c, _)) in ESCAPED.iter().enumerate() {
            if let Some(name) = &self.escapes[i] {
                rules.push((format!("<{name}>"), vec![c.to_string()]));
            }
        }
        FuzzingbookGrammar { rules }
    }

    fn expansion(&mut self, alternative: &[Piece]) -> String {
        let mut out = String::new();
        // Whether what was written last is a nonterminal or a `)`, after which `?`, `*` and
        // `+` read as operators.
        let mut after_operand = false;
        for (i, piece) in alternative.iter().enumerate() {
            match piece {
                Piece::Rule(r) => {
                    out.push('<');
                    out.push_str(&self.names[*r]);
                    out.push('>');
                    after_operand = true;
                }
                Piece::Text(t) => {
                    let chars: Vec<char> = t.chars().collect();
                    for (k, &c) in chars.iter().enumerate() {
                        let misread = match c {
                            '<' => closes_as_nonterminal(&chars[k + 1..], &alternative[i + 1..]),
                            '?' | '*' | '+' => after_operand,
                            _ => false,
                        };
                        if misread {
                            let name = self.escape(c);
                            out.push('<');
                            out.push_str(&name);
                            out.push('>');
                            after_operand = true;
                        } else {
                            out.push(c);
                            after_operand = c == ')';
                        }
                    }
                }
            }
        }
        out
    }

    /// The rule that writes `c` alone, made on first use.
    fn escape(&mut self, c: char) -> String {
        let i = ESCAPED
            .iter()
            .position(|(e, _)| *e == c)
            .expect("only escaped characters are routed");
        if self.escapes[i].is_none() {
            self.escapes[i] = Some(unique(ESCAPED[i].1.to_string(), &mut self.taken));
        }
        self.escapes[i].clone().expect("just set")
    }
}

/// A rule's name as the book spells it inside `<...>`: an imported book grammar's `<expr>` is
/// `expr` again, and characters the book's nonterminals cannot hold (or Bonsai's importer would
/// change) become `_`.
fn base_name(name: &str) -> String {
    let bare = name
        .strip_prefix('<')
        .and_then(|n| n.strip_suffix('>'))
        .unwrap_or(name);
    match ascii_name(bare) {
        n if n.is_empty() => "rule".to_string(),
        n => n,
    }
}

/// Whether a literal `<` followed by `rest` of its text and then by `later` pieces would start
/// a match of `<[^<> ]*>`: the run after it meets a `>` before a `<`, a space or a nonterminal
/// (which begins with `<`). A `<` written through its own rule begins with `<` too, so this
/// need not know which later `<` are escaped.
fn closes_as_nonterminal(rest: &[char], later: &[Piece]) -> bool {
    let texts = std::iter::once(rest.iter().copied().collect::<String>()).chain(
        later.iter().map_while(|p| match p {
            Piece::Text(t) => Some(t.clone()),
            Piece::Rule(_) => None,
        }),
    );
    for text in texts {
        if let Some(stop) = text.chars().find(|c| matches!(c, '<' | '>' | ' ')) {
            return stop == '>';
        }
    }
    false
}

impl FuzzingbookGrammar {
    /// The JSON dictionary, one rule a line, in rule order (the book's grammars are Python
    /// dictionaries, which keep their order, and so does its coverage's tie-breaking).
    pub fn to_json(&self) -> String {
        let string = |s: &str| serde_json::to_string(s).expect("a string serializes");
        let mut out = String::from("{\n");
        for (i, (name, expansions)) in self.rules.iter().enumerate() {
            let list: Vec<String> = expansions.iter().map(|e| string(e)).collect();
            let comma = if i + 1 < self.rules.len() { "," } else { "" };
            out.push_str(&format!(
                "  {}: [{}]{comma}\n",
                string(name),
                list.join(", ")
            ));
        }
        out.push_str("}\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(alternative: &[Piece]) -> String {
        let grammar = TextGrammar {
            rules: vec![
                super::super::text_grammar::TextRule {
                    name: "start".to_string(),
                    alternatives: vec![alternative.to_vec()],
                },
                super::super::text_grammar::TextRule {
                    name: "x".to_string(),
                    alternatives: vec![vec![Piece::Text("x".to_string())]],
                },
            ],
        };
        let written = Writer::new(&grammar).write(&grammar);
        written.rules[0].1[0].clone()
    }

    fn t(s: &str) -> Piece {
        Piece::Text(s.to_string())
    }

    #[test]
    fn only_what_would_be_misread_is_escaped() {
        assert_eq!(text(&[t("a < b > c")]), "a < b > c");
        assert_eq!(text(&[t("<=>")]), "<lt>=>");
        assert_eq!(text(&[t("<>")]), "<lt>>");
        assert_eq!(text(&[t("<="), Piece::Rule(1), t(">")]), "<=<x>>");
        assert_eq!(text(&[t("<"), t("a>")]), "<lt>a>");
        assert_eq!(text(&[t("<a<b>")]), "<a<lt>b>");
        assert_eq!(text(&[Piece::Rule(1), t("?+")]), "<x><qmark><plus>");
        assert_eq!(text(&[t("(a)*x*")]), "(a)<star>x*");
        assert_eq!(text(&[t("<>*")]), "<lt>>*");
    }
}
