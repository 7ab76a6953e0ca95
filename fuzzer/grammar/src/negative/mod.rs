//! Negative suites: words guaranteed to be outside the grammar's language, each with an
//! oracle (after Raselimo, Taljaard and Fischer, "Fu(t|z)zing with Grammars").
//!
//! Positive words can never show that a parser accepts too much. A negative word here is
//! built so that two adjacent tokens form a poisoned pair (`pairs`): by word mutation of a
//! positive word (`word_mutation`) or through a mutated rule (`rule_mutation`). The oracle is
//! the place of that pair: a correct parser reading left to right has rejected the word once it
//! has read the pair's second token. Where the text around the pair could be read as other
//! tokens (`readings`), the mutation is skipped and counted, never written.

mod manifest;
mod minimal_word;
mod pairs;
mod readings;
mod rule_mutation;
mod sample;
mod token;
mod word_mutation;

pub use manifest::write_suite;
pub use pairs::Pairs;
pub use rule_mutation::RuleOperator;
pub use token::{Token, TokenGrammar, render, tokens_of};
pub use word_mutation::{OperatorCount, Positive, WordOperator};

use crate::analysis::Analysis;
use crate::grammar::{Grammar, Terminal};
use crate::tree::DerivationTree;
use minimal_word::MinimalWords;
use readings::{LexicalGrammars, Readings};
use rule_mutation::RuleMutations;
use word_mutation::WordMutations;

/// One negative word with its oracle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Negative {
    /// The operator that made it (`token-deletion`, ..., `symbol-insertion`).
    pub operator: &'static str,
    /// The positive word it was mutated from, or the mutant rule it was derived through.
    pub source: String,
    /// The poisoned pair (and for rule mutants the rule) that puts it outside the language.
    pub relies_on: String,
    /// The word.
    pub text: String,
    /// Byte offset where the pair's second token starts (the text's length for the end of
    /// input): where the word stops being the prefix of any word of the language.
    pub token_offset: usize,
    /// Byte offset by which a correct parser must have rejected: the end of that token.
    pub reject_by: usize,
}

/// Which operator families to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operators {
    /// Token deletion, insertion, substitution and transposition of positive words.
    pub word: bool,
    /// Symbol deletion and insertion in right-hand sides.
    pub rule: bool,
}

/// What the generator did, per operator.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Poisoned pairs among the kinds of tokens, and all pairs.
    pub poisoned_pairs: (u64, u64),
    /// Positive words used, and those left out because their tokens, one space apart, do not
    /// parse again (a token reaching across a space, as in some layout-sensitive grammars).
    pub positives: (usize, usize),
    /// Per operator name: possible, undecidable (word mutants: of all; rule mutants: of those
    /// tried), emitted.
    pub operators: Vec<(&'static str, OperatorCount)>,
}

/// Builds the negatives for one grammar: at most `max` in all, split evenly among the
/// operators that have candidates, each operator's share spread evenly over its candidates.
pub fn generate(
    grammar: &Grammar,
    analysis: &Analysis,
    positives: &[DerivationTree],
    names: &[String],
    operators: Operators,
    max: usize,
) -> (Vec<Negative>, Summary) {
    let view = TokenGrammar::new(grammar);
    let pairs = Pairs::new(&view);
    let lexical = LexicalGrammars::new(grammar, &view);
    let mut readings = Readings::new(grammar, analysis, &view, &pairs, &lexical);
    let mut summary = Summary {
        poisoned_pairs: pairs.count(&view),
        ..Summary::default()
    };
    let parser = crate::parse::Parser::new(grammar);
    let mut words = Vec::new();
    for (tree, name) in positives.iter().zip(names) {
        let tokens = tokens_of(grammar, &view, tree);
        let text = render(grammar, &tokens).text;
        if parser.accepts(&text).is_ok() {
            let open = readings.open_tokens(&text);
            words.push(Positive {
                source: name.clone(),
                tokens,
                text,
                open,
            });
        }
    }
    summary.positives = (words.len(), positives.len() - words.len());

    let minimal = MinimalWords::new(grammar, &view);
    let insertable = insertable_tokens(grammar, &view, &minimal);
    let rules = RuleMutations::new(grammar, &view, &pairs);
    let word_candidates: Vec<_> = if operators.word {
        let mut mutations =
            WordMutations::new(grammar, &view, &pairs, &mut readings, insertable.clone());
        WordOperator::ALL
            .iter()
            .map(|&op| {
                let mut count = OperatorCount::default();
                // An even sample of the decidable mutants, large enough that a share of
                // `max` still has others to fall back on in each of its parts.
                let keep = max.saturating_mul(8).max(1024);
                let found = mutations.candidates(op, &words, &mut count, keep);
                (op, found, count)
            })
            .collect()
    } else {
        Vec::new()
    };
    let rule_candidates: Vec<_> = if operators.rule {
        RuleOperator::ALL
            .iter()
            .map(|&op| (op, rules.candidates(op)))
            .collect()
    } else {
        Vec::new()
    };
    let available: Vec<usize> = word_candidates
        .iter()
        .map(|(_, _, count)| (count.possible - count.undecidable) as usize)
        .chain(rule_candidates.iter().map(|(_, found)| found.len()))
        .collect();
    let share = sample::shares(max, &available);
    let mut negatives = Vec::new();
    let mut mutations = WordMutations::new(grammar, &view, &pairs, &mut readings, insertable);
    for (k, (op, found, mut count)) in word_candidates.into_iter().enumerate() {
        let made = mutations.emit(op, &words, &found, share[k], &mut count);
        negatives.extend(made);
        summary.operators.push((op.name(), count));
    }
    let offset = summary.operators.len();
    for (k, (op, found)) in rule_candidates.into_iter().enumerate() {
        let (made, undecided) = rules.generate(op, &found, share[offset + k], &mut readings);
        summary.operators.push((
            op.name(),
            OperatorCount {
                possible: found.len() as u64,
                undecidable: undecided,
                emitted: made.len() as u64,
            },
        ));
        negatives.extend(made);
    }
    (negatives, summary)
}

/// One token per kind that a mutation may put into a word: a literal as written, a pool's
/// first value, a class's first character, a lexical rule's shortest text.
fn insertable_tokens(grammar: &Grammar, view: &TokenGrammar, words: &MinimalWords) -> Vec<Token> {
    let mut tokens = Vec::new();
    for kind in view.reachable_kinds.ones() {
        if view.is_layout(kind) {
            continue;
        }
        let text = match view.kind_rule[kind] {
            Some(rule) => words.lexical_text(rule),
            None => match &grammar.terminals[kind] {
                Terminal::Literal(text) => text.clone(),
                Terminal::Pool(pool) => grammar.pools[pool.index()]
                    .values
                    .first()
                    .cloned()
                    .unwrap_or_default(),
                Terminal::Class(class) if class.size() > 0 => class.nth(0).to_string(),
                _ => String::new(),
            },
        };
        if !text.is_empty() {
            tokens.push(Token {
                kind,
                text,
                glued: false,
            });
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(grammar: &Grammar, view: &TokenGrammar, name: &str) -> usize {
        (0..view.kinds())
            .find(|&k| view.name(grammar, k) == name)
            .unwrap_or_else(|| panic!("no kind {name}"))
    }

    #[test]
    fn simpl_pairs_follow_the_slides() {
        let grammar =
            Grammar::from_text("simpl", include_str!("../../../../grammars/simpl.ebnf")).unwrap();
        let view = TokenGrammar::new(&grammar);
        let pairs = Pairs::new(&view);
        let k = |name: &str| kind_of(&grammar, &view, name);
        let begin = pairs.boundary();
        assert!(pairs.poisoned(k("\"module\""), k("\"module\"")));
        assert!(pairs.poisoned(k("NUM"), k("ID")));
        assert!(!pairs.poisoned(k("\"[\""), k("NUM")));
        assert!(!pairs.poisoned(k("ID"), k("\"=\"")));
        assert!(!pairs.poisoned(k("\";\""), k("\"end\"")));
        assert!(!pairs.poisoned(begin, k("\"module\"")));
        assert!(pairs.poisoned(begin, k("\"[\"")));
        assert!(!pairs.poisoned(k("\".\""), begin));
        assert!(pairs.poisoned(k("\"end\""), begin));
    }

    /// Inside a number a digit follows a digit, but two numbers never meet in `s`; a GLUE
    /// between two tokens still makes them a pair.
    #[test]
    fn a_lexical_rule_is_one_kind_and_glue_is_no_token() {
        let grammar = Grammar::from_text(
            "t",
            r#"s = NUM "+" NUM | "a" GLUE "b" ; NUM = [0-9] [0-9]* ;"#,
        )
        .unwrap();
        let view = TokenGrammar::new(&grammar);
        let pairs = Pairs::new(&view);
        let k = |name: &str| kind_of(&grammar, &view, name);
        assert!(pairs.poisoned(k("NUM"), k("NUM")));
        assert!(!pairs.poisoned(k("NUM"), k("\"+\"")));
        assert!(!pairs.poisoned(k("\"a\""), k("\"b\"")));
        assert!(pairs.poisoned(k("\"b\""), k("\"a\"")));
    }

    /// The slides' examples on SIMPL: deleting NUM from `prio = "[" NUM "]"` leaves `[ ]`, and
    /// the written word derives through the mutant rule and fails where the oracle says.
    #[test]
    fn simpl_rule_mutants_include_the_empty_priority() {
        let grammar =
            Grammar::from_text("simpl", include_str!("../../../../grammars/simpl.ebnf")).unwrap();
        let analysis = Analysis::new(&grammar);
        let ops = Operators {
            word: false,
            rule: true,
        };
        let (negatives, summary) = generate(&grammar, &analysis, &[], &[], ops, 10_000);
        let deletions = &summary.operators[0];
        assert_eq!(deletions.0, "symbol-deletion");
        assert!(deletions.1.emitted > 0 && deletions.1.possible >= deletions.1.emitted);
        let empty = negatives
            .iter()
            .find(|n| n.source.starts_with("prio") && n.source.contains("[-NUM]"))
            .expect("the empty priority");
        assert_eq!(empty.text, "module [ ] a = begin end .");
        assert_eq!(&empty.text[empty.token_offset..empty.reject_by], "]");
        let parser = crate::parse::Parser::new(&grammar);
        assert_eq!(parser.accepts(&empty.text).unwrap_err().offset, 9);
        // Every insertion puts a symbol into a right-hand side of the grammar.
        assert!(
            negatives
                .iter()
                .filter(|n| n.operator == "symbol-insertion")
                .all(|n| n.source.contains("[+"))
        );
    }
}
