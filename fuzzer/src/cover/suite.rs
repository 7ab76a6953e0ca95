//! Building a cover suite for one criterion.

use crate::analysis::Analysis;
use crate::bounds::Bounds;
use crate::choice::ChoiceSequence;
use crate::coverage::{Criterion, Element, Item, Required, Requirements, Tally};
use crate::grammar::{Grammar, RuleId, Symbol};
use crate::sampler::{MinimalDerivations, Step, replay_strict};
use crate::text::render;
use crate::tree::DerivationTree;

/// One word of a suite.
#[derive(Clone, Debug)]
pub struct CoverWord {
    /// The requirement the word was built for (it usually covers others too).
    pub item: Item,
    /// The word's derivation.
    pub tree: DerivationTree,
    /// The choices that replay to `tree` under `bounds`.
    pub choices: ChoiceSequence,
    /// The smallest bounds the choices replay under.
    pub bounds: Bounds,
    /// The rendered word.
    pub text: String,
}

/// A requirement no word of the suite covers, with the reason.
#[derive(Clone, Debug)]
pub struct Uncovered {
    /// The requirement, described in the grammar's names.
    pub item: String,
    /// Why the construction found no word for it.
    pub reason: String,
}

/// Why no suite could be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CoverError {
    /// The criterion has more requirements than can be listed (k-paths of a large k).
    TooMany(Criterion),
    /// A word did not do what it was built for: a bug in the construction, described.
    Internal(String),
}

impl std::fmt::Display for CoverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CoverError::TooMany(criterion) => {
                write!(f, "{criterion}: too many requirements to build a suite")
            }
            CoverError::Internal(what) => write!(f, "internal error: {what}"),
        }
    }
}

impl std::error::Error for CoverError {}

/// A suite for one criterion.
#[derive(Clone, Debug)]
pub struct CoverSuite {
    /// The words, in the order they were built.
    pub words: Vec<CoverWord>,
    /// Requirements the suite does not cover: none unless bounds forbid them.
    pub uncovered: Vec<Uncovered>,
    /// Feasible requirements of the criterion.
    pub required: usize,
}

/// The suite for `criterion`, every word within `bounds` (shortest derivations take pool values
/// among the first m). Fails for a criterion whose requirements are too many to list.
pub fn cover(
    grammar: &Grammar,
    analysis: &Analysis,
    criterion: Criterion,
    bounds: Bounds,
) -> Result<CoverSuite, CoverError> {
    let requirements = Requirements::new(grammar, analysis);
    let Required::Listed(items) = requirements.required(criterion) else {
        return Err(CoverError::TooMany(criterion));
    };
    let mut minimal = MinimalDerivations::new(grammar, bounds);
    let mut tally = Tally::new(&[criterion]);
    let mut suite = CoverSuite {
        words: Vec::new(),
        uncovered: Vec::new(),
        required: items.len(),
    };
    for item in &items {
        if tally.covered(criterion).contains(item) {
            continue;
        }
        match word_for(grammar, &requirements, analysis, &mut minimal, item, bounds) {
            Ok(word) => {
                tally.add(&word.tree);
                if !tally.covered(criterion).contains(item) {
                    return Err(CoverError::Internal(format!(
                        "the word built for {} does not cover it: {}",
                        item.describe(grammar),
                        word.text
                    )));
                }
                suite.words.push(word);
            }
            Err(reason) => suite.uncovered.push(Uncovered {
                item: item.describe(grammar),
                reason,
            }),
        }
    }
    Ok(suite)
}

/// The shortest word the construction gives for one requirement.
pub(super) fn word_for(
    grammar: &Grammar,
    requirements: &Requirements<'_>,
    analysis: &Analysis,
    minimal: &mut MinimalDerivations<'_>,
    item: &Item,
    bounds: Bounds,
) -> Result<CoverWord, String> {
    let mut hole = Vec::new();
    let (rule, built) = match *item {
        Item::Symbol(Element::Rule(rule)) => (rule, minimal.rule(rule, &[], &mut hole)),
        Item::Symbol(Element::Terminal(terminal)) => {
            let (rule, alternative) = holder(grammar, requirements, terminal)
                .ok_or("no production holds the terminal")?;
            let steps = [Step {
                alternative,
                below: None,
            }];
            (rule, minimal.descent(rule, &steps, &[], &mut hole))
        }
        Item::Rule { rule, alternative } => {
            let steps = [Step {
                alternative,
                below: None,
            }];
            (rule, minimal.descent(rule, &steps, &[], &mut hole))
        }
        Item::Cdrc {
            rule,
            alternative,
            position,
            inner,
        } => {
            let steps = [
                Step {
                    alternative,
                    below: Some(position),
                },
                Step {
                    alternative: inner,
                    below: None,
                },
            ];
            (rule, minimal.descent(rule, &steps, &[], &mut hole))
        }
        Item::Path(ref elements) => match elements.as_slice() {
            [Element::Rule(rule)] => (*rule, minimal.rule(*rule, &[], &mut hole)),
            [Element::Terminal(terminal)] => {
                return word_for(
                    grammar,
                    requirements,
                    analysis,
                    minimal,
                    &Item::Symbol(Element::Terminal(*terminal)),
                    bounds,
                )
                .map(|word| CoverWord {
                    item: item.clone(),
                    ..word
                });
            }
            [Element::Rule(first), ..] => {
                let steps = path_steps(grammar, requirements, analysis, elements)
                    .ok_or("no production links two of its symbols")?;
                (*first, minimal.descent(*first, &steps, &[], &mut hole))
            }
            _ => return Err("a path that starts at a terminal has no second symbol".into()),
        },
    };
    built.ok_or("no word within the bounds expands it so")?;
    let (mut before, mut after) = (Vec::new(), Vec::new());
    minimal
        .context(grammar.start, rule, &[], &mut before, &mut after)
        .ok_or("the start rule reaches it only beyond the bounds")?;
    before.extend(hole);
    before.extend(after);
    let sample = replay_strict(grammar, bounds, &before)
        .map_err(|e| format!("its shortest word does not fit the bounds: {e}"))?;
    let tree = sample.tree;
    let least = Bounds::required_by(grammar, &tree);
    let choices = tree.choices(grammar);
    let replayed = replay_strict(grammar, least, choices.as_slice())
        .map_err(|e| format!("internal error: the saved choices do not replay: {e}"))?;
    if replayed.tree != tree {
        return Err("internal error: the saved choices replay to another tree".into());
    }
    Ok(CoverWord {
        item: item.clone(),
        text: render(grammar, &tree),
        tree,
        choices,
        bounds: least,
    })
}

/// The first feasible production (in grammar order) whose right-hand side holds `terminal`.
fn holder(
    grammar: &Grammar,
    requirements: &Requirements<'_>,
    terminal: crate::grammar::TerminalId,
) -> Option<(RuleId, u32)> {
    grammar.rule_ids().find_map(|rule| {
        grammar
            .rule(rule)
            .alternatives
            .iter()
            .enumerate()
            .position(|(a, alt)| {
                requirements.feasible(rule, a) && alt.symbols.contains(&Symbol::Terminal(terminal))
            })
            .map(|a| (rule, a as u32))
    })
}

/// The descent along a k-path: at each of its rules, the shortest feasible alternative that
/// holds the next symbol (as itself, or as the body of a `?` or `*`), at its first position.
fn path_steps(
    grammar: &Grammar,
    requirements: &Requirements<'_>,
    analysis: &Analysis,
    elements: &[Element],
) -> Option<Vec<Step>> {
    elements
        .windows(2)
        .map(|pair| {
            let Element::Rule(rule) = pair[0] else {
                return None;
            };
            let holds = |symbol: &Symbol| match (symbol, pair[1]) {
                (Symbol::Terminal(t), Element::Terminal(next)) => *t == next,
                (symbol, Element::Rule(next)) => Grammar::referenced_rule(symbol) == Some(next),
                _ => false,
            };
            grammar
                .rule(rule)
                .alternatives
                .iter()
                .enumerate()
                .filter(|&(a, _)| requirements.feasible(rule, a))
                .filter_map(|(a, alt)| Some((a, alt.symbols.iter().position(holds)?)))
                .min_by_key(|&(a, _)| analysis.min_yield.alternative[rule.index()][a])
                .map(|(a, position)| Step {
                    alternative: a as u32,
                    below: Some(position as u32),
                })
        })
        .collect()
}
