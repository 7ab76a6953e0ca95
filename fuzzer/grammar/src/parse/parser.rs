//! The parser for one grammar, built once and used for many texts.

use super::earley::recognize;
use super::extract::Extractor;
use super::input::ParseInput;
use super::pool_renamer::{PoolRenamer, Rename};
use super::rejection::explain;
use super::scanner::Scanner;
use super::{ParseError, ParseTable};
use crate::choice::{ChoiceSequence, OwnWord, OwnWords};
use crate::grammar::{Grammar, LayoutToken, Separator, Symbol, Terminal};
use crate::sampler::Bounds;
use crate::tree::DerivationTree;

/// How tolerant [`Parser::parse_with`] is; the default accepts only texts the grammar derives
/// from pool values as they are.
#[derive(Clone, Copy, Debug, Default)]
pub struct ParseOptions {
    /// What to do with a word of a pool's language that is not among the pool's values.
    pub pool_words: PoolWords,
}

/// What a parse does with a word of a pool's language that is not one of the pool's values (a
/// real seed's `total` where the pool holds `a`, `b`, ...).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PoolWords {
    /// Reject the text there: only what the grammar generates is accepted.
    #[default]
    Reject,
    /// Keep the word as the input's own (see [`OwnWords`]): the choices record an unused pool
    /// value, the same one for every occurrence, and the text replays unchanged.
    Keep,
    /// Replace the word by that unused pool value in the text (see `pool_renamer`).
    Rename,
}

impl ParseOptions {
    /// Options that keep a seed's own words: what importing real files needs.
    pub fn keeping_words() -> Self {
        Self {
            pool_words: PoolWords::Keep,
        }
    }

    /// Options that rename a seed's own words to pool values, changing its text.
    pub fn renaming_words() -> Self {
        Self {
            pool_words: PoolWords::Rename,
        }
    }
}

/// An accepted text: its derivation and the choices that replay to it.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The derivation, in the same shape the sampler builds, so mutators treat a parsed seed as a
    /// generated input.
    pub tree: DerivationTree,
    /// The normalized choices that replay to `tree` under `bounds`.
    pub choices: ChoiceSequence,
    /// The smallest bounds the choices replay under.
    pub bounds: Bounds,
    /// Words renamed with [`PoolWords::Rename`], in order of first occurrence.
    pub renames: Vec<Rename>,
    /// Words kept with [`PoolWords::Keep`], each for the pool value the choices record.
    pub words: OwnWords,
    /// Byte ranges of the text, between tokens, that hold comments (with whitespace around
    /// them): what the replayed text leaves out besides layout.
    pub comments: Vec<std::ops::Range<usize>>,
}

/// An Earley parser for one grammar. Building it desugars the grammar and precomputes every
/// prediction closure, so build it once and parse many texts with it.
pub struct Parser<'g> {
    grammar: &'g Grammar,
    table: ParseTable,
    scanner: Scanner<'g>,
    /// The grammar uses INDENT/DEDENT: read line structure as Python does.
    indented: bool,
    /// Lines go on inside brackets, after a final backslash and in triple-quoted strings, as in
    /// Python; not where the grammar nests indented blocks inside brackets.
    join_lines: bool,
}

impl<'g> Parser<'g> {
    /// Desugars the grammar into a parse table and decides, from its layout tokens, whether texts
    /// are read as indented lines.
    pub fn new(grammar: &'g Grammar) -> Self {
        // Only indentation needs the line reader; NEWLINE alone matches a line break in the
        // text, and GLUE only forbids whitespace.
        let indented = grammar.terminals.iter().any(|t| {
            matches!(
                t,
                Terminal::Layout(LayoutToken::Indent | LayoutToken::Dedent)
            )
        });
        Self {
            grammar,
            table: ParseTable::new(grammar),
            scanner: Scanner::new(grammar, indented),
            indented,
            join_lines: indented && !brackets_hold_blocks(grammar),
        }
    }

    /// The grammar this parser was built for, with its own lifetime rather than the parser's.
    pub fn grammar(&self) -> &'g Grammar {
        self.grammar
    }

    /// Parses with default options: a pool word that is not one of the pool's values is rejected,
    /// not renamed.
    pub fn parse(&self, text: &str) -> Result<Parsed, ParseError> {
        self.parse_with(text, ParseOptions::default())
    }

    /// Parses raw bytes, which must be UTF-8.
    pub fn parse_bytes(&self, bytes: &[u8], options: ParseOptions) -> Result<Parsed, ParseError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| ParseError::at(e.valid_up_to(), "the text is not valid UTF-8 here"))?;
        self.parse_with(text, options)
    }

    /// Parses `text` into a derivation and its choices. A derivation the renderer could have
    /// printed is preferred, so a rendered text comes back with exactly the choices that made it;
    /// failing that, any derivation is taken. Fails on text the grammar does not derive, and on
    /// texts so ambiguous that the chart outgrows its limit.
    pub fn parse_with(&self, text: &str, options: ParseOptions) -> Result<Parsed, ParseError> {
        let mut input = self.input(text)?;
        let unknown_words = options.pool_words != PoolWords::Reject;
        let recognition = recognize(&self.table, &self.scanner, &input, unknown_words);
        if let Some(at) = recognition.exhausted {
            return Err(ParseError::at(
                input.offset(at),
                "the grammar is too ambiguous for a text this long (the parse chart outgrew its limit)",
            ));
        }
        if !recognition.accepted {
            return Err(explain(
                &self.table,
                &self.scanner,
                &recognition.chart,
                &input,
            ));
        }
        for &(start, end) in &recognition.comments {
            input.mark_skipped(start, end);
        }
        // First a derivation the renderer could have printed (see `extract`); failing that,
        // any derivation, for seeds written by hand.
        let mut renamer = PoolRenamer::new(self.grammar);
        let strict = Extractor::new(&self.table, &self.scanner, &recognition.chart, &input, true)
            .extract(&mut renamer);
        let mut tree = match strict {
            Ok(tree) => tree,
            Err(_) => {
                renamer = PoolRenamer::new(self.grammar);
                Extractor::new(
                    &self.table,
                    &self.scanner,
                    &recognition.chart,
                    &input,
                    false,
                )
                .extract(&mut renamer)
                .map_err(|message| ParseError::at(0, message))?
            }
        };
        let choices = tree.index_choices(self.grammar);
        let bounds = Bounds::required_by(self.grammar, &tree);
        let mut comments: Vec<std::ops::Range<usize>> = recognition
            .comments
            .iter()
            .map(|&(start, end)| input.offset(start)..input.offset(end))
            .chain(input.comment_lines.iter().cloned())
            .collect();
        comments.sort_by_key(|range| range.start);
        let (renames, words) = match options.pool_words {
            PoolWords::Keep => {
                let words = renamer.renames.into_iter().map(|rename| OwnWord {
                    pool: rename.pool,
                    value: rename.value,
                    word: rename.from,
                });
                (Vec::new(), OwnWords::new(words.collect()))
            }
            PoolWords::Reject | PoolWords::Rename => (renamer.renames, OwnWords::default()),
        };
        Ok(Parsed {
            tree,
            choices,
            bounds,
            renames,
            words,
            comments,
        })
    }

    /// Whether the grammar derives `text`, without building a tree.
    pub fn accepts(&self, text: &str) -> Result<(), ParseError> {
        let input = self.input(text)?;
        let recognition = recognize(&self.table, &self.scanner, &input, false);
        if recognition.accepted {
            Ok(())
        } else {
            Err(explain(
                &self.table,
                &self.scanner,
                &recognition.chart,
                &input,
            ))
        }
    }

    fn input(&self, text: &str) -> Result<ParseInput, ParseError> {
        let comments = &self.grammar.layout.comments;
        let mut input = if self.indented {
            ParseInput::with_layout(text, comments, self.join_lines)?
        } else {
            ParseInput::plain(text)
        };
        input.skip_comments(comments);
        if let Separator::Text(separator) = &self.grammar.layout.separator {
            input.skip_separator(separator);
        }
        Ok(input)
    }
}

/// Whether an indented block can stand between an opening bracket and its closing one in
/// some alternative (JavaScript's `f(() => {` NEWLINE INDENT ... `})`), so that a line break
/// inside brackets is line structure, not whitespace as in Python.
fn brackets_hold_blocks(grammar: &Grammar) -> bool {
    let indent = |symbol: &Symbol| match symbol {
        Symbol::Terminal(t) => *grammar.terminal(*t) == Terminal::Layout(LayoutToken::Indent),
        _ => false,
    };
    // Rules that can derive INDENT, to a fixpoint.
    let mut reaches = vec![false; grammar.rules.len()];
    loop {
        let mut changed = false;
        for (r, rule) in grammar.rules.iter().enumerate() {
            if reaches[r] {
                continue;
            }
            let hit = rule.alternatives.iter().any(|alt| {
                alt.symbols.iter().any(|s| {
                    indent(s) || Grammar::referenced_rule(s).is_some_and(|i| reaches[i.index()])
                })
            });
            if hit {
                reaches[r] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // +1 for an opening bracket, -1 for a closing one.
    let bracket = |symbol: &Symbol| match symbol {
        Symbol::Terminal(t) => match grammar.terminal(*t) {
            Terminal::Literal(l) if matches!(l.as_str(), "(" | "[" | "{") => 1,
            Terminal::Literal(l) if matches!(l.as_str(), ")" | "]" | "}") => -1,
            _ => 0,
        },
        _ => 0,
    };
    // Between an opener and its closer in the same alternative (or the alternative's end).
    grammar.rules.iter().any(|rule| {
        rule.alternatives.iter().any(|alt| {
            let mut depth = 0i32;
            alt.symbols.iter().any(|s| {
                depth = (depth + bracket(s)).max(0);
                depth > 0
                    && (indent(s)
                        || Grammar::referenced_rule(s).is_some_and(|r| reaches[r.index()]))
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use fast_rands::StdRand;

    use super::*;
    use crate::choice::Replay;
    use crate::parse::with_large_stack;
    use crate::sampler::{Sample, Sampler};
    use crate::text::render;

    #[test]
    fn lines_join_inside_brackets_only_where_brackets_hold_no_blocks() {
        let shipped = |name: &str, text: &str| Grammar::from_text(name, text).unwrap();
        let starlark = shipped(
            "starlark",
            include_str!("../../../../grammars/starlark.ebnf"),
        );
        let chocopy = shipped("chocopy", include_str!("../../../../grammars/chocopy.ebnf"));
        let javascript = shipped(
            "javascript",
            include_str!("../../../../grammars/javascript.ebnf"),
        );
        assert!(!brackets_hold_blocks(&starlark));
        assert!(!brackets_hold_blocks(&chocopy));
        assert!(brackets_hold_blocks(&javascript));
        assert!(Parser::new(&starlark).join_lines);
        assert!(!Parser::new(&javascript).join_lines);
    }

    /// 64 KB of statements that each chain a thousand ambiguous binary operators: before the
    /// table left one reading of such chains this took minutes (4 KB in one chain took
    /// seconds, 12 KB over half a minute); now it takes as long as any 64 KB. The tree must
    /// still render and replay to the text.
    #[test]
    fn sixty_four_kilobytes_of_operator_chains_parse_and_replay() {
        let grammar =
            Grammar::from_text("planted", include_str!("../../../../grammars/planted.ebnf"))
                .unwrap();
        let mut statements = Vec::new();
        let mut length = 0;
        while length < 64 << 10 {
            let terms: Vec<String> = (0..1000)
                .map(|i| ((i * 7 + statements.len()) % 1000).to_string())
                .collect();
            let operators = [" + ", " * "];
            let mut statement = String::from("print ");
            for (i, term) in terms.iter().enumerate() {
                if i > 0 {
                    statement.push_str(operators[(i / 3) % 2]);
                }
                statement.push_str(term);
            }
            statement.push(';');
            length += statement.len() + 1;
            statements.push(statement);
        }
        let text = statements.join(" ");
        with_large_stack(|| {
            let parser = Parser::new(&grammar);
            let parsed = parser.parse(&text).unwrap();
            assert_eq!(render(&grammar, &parsed.tree), text);
            let mut sampler = Sampler::new(&grammar, parsed.bounds).unwrap();
            let mut replayed = Sample::default();
            sampler
                .sample(
                    parsed.choices.as_slice(),
                    Replay::Strict,
                    &mut StdRand::with_seed(1),
                    &mut replayed,
                )
                .unwrap();
            assert_eq!(replayed.tree, parsed.tree);
        });
    }
}
