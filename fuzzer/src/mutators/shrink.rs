//! Replace a subtree by its minimal derivation.

use std::borrow::Cow;
use std::rc::Rc;

use libafl::HasMetadata;
use libafl::corpus::CorpusId;
use libafl::mutators::{MutationResult, Mutator};
use libafl::state::HasRand;
use libafl_bolts::rands::Rand;
use libafl_bolts::{Error, Named};

use super::parent::{nodes_with_choices, symbol_of};
use super::{Mutation, SharedTrees, record, replace_span};
use crate::analysis::MinYield;
use crate::choice::{ChoiceInput, UNBOUNDED};
use crate::grammar::{Grammar, RuleId, Symbol, Terminal};
use crate::sampler::Sample;
use crate::text::render_into;
use crate::tree::NodeKind;

/// Deepest minimal derivation followed; a grammar whose shortest words nest deeper than this
/// is left alone rather than risking unbounded recursion.
const MAX_NESTING: usize = 256;

/// The choices that derive `rule` along its shortest word: the alternative of least yield
/// ([`MinYield::best_alternative`]), optionals absent, repetitions at their minimum count, the
/// first character of each class and the first pool value. `None` for an unproductive rule.
pub fn minimal_rule_choices(
    grammar: &Grammar,
    min_yield: &MinYield,
    rule: RuleId,
) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    minimal_rule(grammar, min_yield, rule, 0, &mut out)?;
    Some(out)
}

fn minimal_rule(
    grammar: &Grammar,
    min_yield: &MinYield,
    rule: RuleId,
    depth: usize,
    out: &mut Vec<u32>,
) -> Option<()> {
    if depth > MAX_NESTING {
        return None;
    }
    let definition = grammar.rule(rule);
    let best = min_yield.best_alternative[rule.index()]?;
    if definition.alternatives.len() > 1 {
        out.push(best as u32);
    }
    for symbol in &definition.alternatives[best].symbols {
        minimal_symbol(grammar, min_yield, symbol, depth, out)?;
    }
    Some(())
}

fn minimal_symbol(
    grammar: &Grammar,
    min_yield: &MinYield,
    symbol: &Symbol,
    depth: usize,
    out: &mut Vec<u32>,
) -> Option<()> {
    match *symbol {
        Symbol::Terminal(t) => match grammar.terminal(t) {
            Terminal::Class(class) if class.size() > 1 => out.push(0),
            Terminal::Pool(p) if grammar.pools[p.index()].values.len() > 1 => out.push(0),
            _ => {}
        },
        Symbol::Rule(r) => minimal_rule(grammar, min_yield, r, depth + 1, out)?,
        Symbol::Optional(_) => out.push(0),
        Symbol::Repeat { body, min, max } => {
            let range = max.map_or(UNBOUNDED, |max| max - min + 1);
            if range != 1 {
                out.push(0);
            }
            for _ in 0..min {
                minimal_rule(grammar, min_yield, body, depth + 1, out)?;
            }
        }
    }
    Some(())
}

/// Replaces one subtree's span by the choices of its minimal derivation, and keeps the mutant
/// only if its text is no longer than the parent's. The check matters where the depth bound
/// forbids the shortest alternative at that position and repairing replay picks another: the
/// mutator promises never to grow the input, which is what lets it drive a corpus towards
/// small inputs, the Bonsai goal.
pub struct ShrinkMutator {
    trees: SharedTrees,
    scratch: Sample,
    text: String,
}

impl ShrinkMutator {
    pub fn new(trees: SharedTrees) -> Self {
        Self {
            trees,
            scratch: Sample::default(),
            text: String::new(),
        }
    }
}

impl Named for ShrinkMutator {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed("shrink");
        &NAME
    }
}

impl<S: HasRand + HasMetadata> Mutator<ChoiceInput, S> for ShrinkMutator {
    fn mutate(&mut self, state: &mut S, input: &mut ChoiceInput) -> Result<MutationResult, Error> {
        let mut trees = self.trees.borrow_mut();
        let grammar = trees.grammar;
        let min_yield = Rc::clone(&trees.min_yield);
        let rng = state.rand_mut();
        let parent = trees.parent(input.choices.as_slice(), rng);
        let candidates =
            nodes_with_choices(&parent.tree, |k| !matches!(k, NodeKind::Terminal { .. }));
        let mut mutant = None;
        for _ in 0..4 {
            let Some(&id) = rng.choose(&candidates) else {
                break;
            };
            let node = *parent.tree.node(id);
            let minimal = match node.kind {
                NodeKind::Rule { rule, .. } => minimal_rule_choices(grammar, &min_yield, rule),
                _ => symbol_of(grammar, &parent.tree, id).and_then(|symbol| {
                    let mut out = Vec::new();
                    minimal_symbol(grammar, &min_yield, &symbol, 0, &mut out)?;
                    Some(out)
                }),
            };
            let Some(minimal) = minimal else {
                continue;
            };
            let (start, end) = (node.choices_start as usize, node.choices_end as usize);
            if minimal.as_slice() == &parent.choices.as_slice()[start..end] {
                continue;
            }
            mutant = Some(replace_span(
                parent.choices.as_slice(),
                start,
                end,
                &minimal,
            ));
            break;
        }
        let Some(mutant) = mutant else {
            return Ok(MutationResult::Skipped);
        };
        let parent_len = trees.parent_text().len();
        trees.sample(&mutant, rng, &mut self.scratch);
        render_into(grammar, &self.scratch.tree, &mut self.text);
        if self.text.len() > parent_len {
            return Ok(MutationResult::Skipped);
        }
        input.choices = self.scratch.choices.clone();
        drop(trees);
        record(state, Mutation::Shrink);
        Ok(MutationResult::Mutated)
    }

    fn post_exec(&mut self, _state: &mut S, _id: Option<CorpusId>) -> Result<(), Error> {
        Ok(())
    }
}
