//! Building a cover suite for one criterion.

use crate::analysis::Analysis;
use crate::bounds::Bounds;
use crate::choice::ChoiceSequence;
use std::collections::BTreeSet;

use super::route::Routes;
use crate::coverage::{
    Criterion, Element, Item, Required, Requirements, Tally, nonterminal_positions, production,
};
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
    /// Feasible requirements of the criterion the construction went through.
    pub required: usize,
    /// Where a criterion has too many requirements to list (CDRC², k-steps), the productions
    /// whose requirements were left out, each with their number; the suite is built for the
    /// others.
    pub left_out: Vec<Uncovered>,
    /// How many requirements `left_out` stands for (saturating).
    pub unlisted: u128,
}

/// Most requirements of CDRC² or k-steps a suite is built for. Each may need a word of its
/// own, and a suite of tens of thousands of words takes minutes to build and is one no one
/// reads; past it, the productions with more than [`MAX_GROUP`] of their own are reported as
/// left out instead (on wgsl's CDRC², one production multiplies four `vec4` positions of 18
/// alternatives each into 104 976 of the 115 763).
const MAX_SUITE: u128 = 20_000;

/// Most requirements one production may bring into a suite past [`MAX_SUITE`].
const MAX_GROUP: u128 = 2_000;

/// The suite for `criterion`, every word within `bounds` (shortest derivations take pool values
/// among the first m). Fails for a criterion whose requirements are too many to list.
pub fn cover(
    grammar: &Grammar,
    analysis: &Analysis,
    criterion: Criterion,
    bounds: Bounds,
) -> Result<CoverSuite, CoverError> {
    let requirements = Requirements::new(grammar, analysis);
    let mut suite = CoverSuite {
        words: Vec::new(),
        uncovered: Vec::new(),
        required: 0,
        left_out: Vec::new(),
        unlisted: 0,
    };
    let products = matches!(criterion, Criterion::Cdrc2 | Criterion::KStep(_));
    let items = match requirements.required(criterion) {
        Required::Listed(items) if !products || items.len() as u128 <= MAX_SUITE => items,
        _ if products => listable_part(grammar, &requirements, criterion, &mut suite),
        _ => return Err(CoverError::TooMany(criterion)),
    };
    suite.required = items.len();
    let mut minimal = MinimalDerivations::new(grammar, bounds);
    let mut tally = Tally::for_grammar(grammar, &[criterion]);
    let mut routes = match criterion {
        Criterion::Pairs => Some(Routes::new(grammar, &requirements, analysis, false)),
        Criterion::Pll => Some(Routes::new(grammar, &requirements, analysis, true)),
        _ => None,
    };
    for item in &items {
        if tally.covered(criterion).contains(item) {
            continue;
        }
        let built = word_for(
            grammar,
            &requirements,
            analysis,
            &mut minimal,
            routes.as_mut(),
            item,
            bounds,
        );
        match built {
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

/// The requirements of the productions whose own are at most [`MAX_GROUP`] while the whole
/// stays within [`MAX_SUITE`]; the other productions go to `suite.left_out`.
fn listable_part(
    grammar: &Grammar,
    requirements: &Requirements<'_>,
    criterion: Criterion,
    suite: &mut CoverSuite,
) -> BTreeSet<Item> {
    let products = requirements.products(criterion, true);
    let mut items = BTreeSet::new();
    for (rule, alternative, count) in products.groups() {
        if count <= MAX_GROUP && (items.len() as u128).saturating_add(count) <= MAX_SUITE {
            items.extend(requirements.product_items(&products, rule, alternative));
        } else {
            suite.unlisted = suite.unlisted.saturating_add(count);
            suite.left_out.push(Uncovered {
                item: format!(
                    "the {count} requirements that start at {}",
                    production(grammar, rule, alternative)
                ),
                reason: format!(
                    "more than {MAX_GROUP} for one production, in a criterion with more than \
                     {MAX_SUITE} requirements; not attempted"
                ),
            });
        }
    }
    items
}

/// The shortest word the construction gives for one requirement.
pub(super) fn word_for(
    grammar: &Grammar,
    requirements: &Requirements<'_>,
    analysis: &Analysis,
    minimal: &mut MinimalDerivations<'_>,
    routes: Option<&mut Routes<'_>>,
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
                    routes,
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
        Item::Chain {
            rule,
            ref alternatives,
            ref positions,
        } => {
            let steps: Vec<Step> = alternatives
                .iter()
                .enumerate()
                .map(|(i, &alternative)| Step {
                    alternative,
                    below: positions.get(i).copied(),
                })
                .collect();
            (rule, minimal.descent(rule, &steps, &[], &mut hole))
        }
        Item::Combination {
            rule,
            alternative,
            ref inner,
        } => {
            let forced: Vec<(u32, u32)> = nonterminal_positions(grammar, rule, alternative)
                .into_iter()
                .zip(inner)
                .map(|((position, _), &b)| (position, b))
                .collect();
            (
                rule,
                minimal.combination(rule, alternative, &forced, &[], &mut hole),
            )
        }
        Item::Pair { above, below } => {
            let routes = routes.ok_or("internal error: no routes for a pair")?;
            let steps = routes
                .steps(above, below)
                .ok_or("no feasible derivation leads from the one to the other")?;
            (above, minimal.descent(above, &steps, &[], &mut hole))
        }
        Item::First { rule, first } => {
            let routes = routes.ok_or("internal error: no routes for a first token")?;
            let steps = routes
                .steps(rule, Element::Terminal(first))
                .ok_or("only derivations through infeasible alternatives begin so")?;
            (rule, minimal.descent(rule, &steps, &[], &mut hole))
        }
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
