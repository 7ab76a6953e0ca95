//! Building a cover suite for one criterion.

use crate::bounds::Bounds;
use crate::choice::ChoiceSequence;
use crate::coverage::{Criterion, Element, Item, Required, Requirements, Tally};
use crate::grammar::{Grammar, RuleId, Symbol};
use crate::sampler::{MinimalDerivations, replay_strict};
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
/// among the first m). Fails for a criterion whose requirements are too many to list, and for
/// k-paths, whose construction is not built yet.
pub fn cover(
    grammar: &Grammar,
    requirements: &Requirements<'_>,
    criterion: Criterion,
    bounds: Bounds,
) -> Result<CoverSuite, String> {
    if let Criterion::KPath(_) = criterion {
        return Err(format!(
            "{criterion}: cover suites are built for symbol, rule and cdrc so far"
        ));
    }
    let Required::Listed(items) = requirements.required(criterion) else {
        return Err(format!(
            "{criterion}: too many requirements to build a suite"
        ));
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
        match word_for(grammar, requirements, &mut minimal, item, bounds) {
            Ok(word) => {
                tally.add(&word.tree);
                if !tally.covered(criterion).contains(item) {
                    return Err(format!(
                        "internal error: the word built for {} does not cover it: {}",
                        item.describe(grammar),
                        word.text
                    ));
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
fn word_for(
    grammar: &Grammar,
    requirements: &Requirements<'_>,
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
            (
                rule,
                minimal.expansion(rule, alternative, None, &[], &mut hole),
            )
        }
        Item::Rule { rule, alternative } => (
            rule,
            minimal.expansion(rule, alternative, None, &[], &mut hole),
        ),
        Item::Cdrc {
            rule,
            alternative,
            position,
            inner,
        } => (
            rule,
            minimal.expansion(rule, alternative, Some((position, inner)), &[], &mut hole),
        ),
        Item::Path(_) => return Err("k-paths have no construction yet".into()),
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
