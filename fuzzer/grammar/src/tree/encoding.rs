//! From a derivation tree back to the choices that build it: the inverse of the sampler's
//! decisions.
//!
//! The sampler consumes one choice at every decision the grammar offers (k ≥ 2 options),
//! whatever the bounds allow, and its value is the decision itself. So the sequence for a tree
//! is read off in pre-order: the alternative of a rule with several, presence of an optional,
//! the item count above the minimum of a repetition whose count is not fixed, the offset into
//! a character class of more than one character, the index into a pool of more than one
//! value. A tree built by the parser thereby becomes a sequence the sampler replays into the
//! same tree.

use super::{DerivationTree, NodeKind};
use crate::choice::{ChoiceSequence, UNBOUNDED};
use crate::grammar::{Grammar, Symbol, Terminal};

impl DerivationTree {
    /// The normalized choice sequence that makes the sampler build this tree.
    pub fn choices(&self, grammar: &Grammar) -> ChoiceSequence {
        let mut choices = Vec::new();
        self.encode(grammar, &mut choices, |_, _, _| {});
        ChoiceSequence(choices)
    }

    /// Like [`Self::choices`], and also sets every node's choice span, as the sampler does
    /// while it builds a tree.
    pub(crate) fn index_choices(&mut self, grammar: &Grammar) -> ChoiceSequence {
        let mut choices = Vec::new();
        let mut spans = vec![(0u32, 0u32); self.len()];
        self.encode(grammar, &mut choices, |node, start, end| {
            spans[node] = (start, end)
        });
        for (node, (start, end)) in spans.into_iter().enumerate() {
            self.set_choice_span(node, start, end);
        }
        ChoiceSequence(choices)
    }

    fn encode(&self, grammar: &Grammar, out: &mut Vec<u32>, mut span: impl FnMut(usize, u32, u32)) {
        struct Open<'g> {
            node: usize,
            end: usize,
            start: u32,
            /// The symbols of a rule node's alternative, and how many children were seen.
            symbols: &'g [Symbol],
            next: usize,
        }
        let nodes = self.nodes();
        let mut open: Vec<Open<'_>> = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            while let Some(top) = open.last()
                && top.end <= i
            {
                span(top.node, top.start, out.len() as u32);
                open.pop();
            }
            let symbol = open.last_mut().and_then(|parent| {
                let symbol = parent.symbols.get(parent.next).copied();
                parent.next += 1;
                symbol
            });
            let start = out.len() as u32;
            let mut symbols: &[Symbol] = &[];
            match node.kind {
                NodeKind::Rule { rule, alternative } => {
                    let alternatives = &grammar.rule(rule).alternatives;
                    if alternatives.len() >= 2 {
                        out.push(alternative);
                    }
                    symbols = &alternatives[alternative as usize].symbols;
                }
                NodeKind::Optional { .. } => out.push(u32::from(node.end as usize > i + 1)),
                NodeKind::Repeat { .. } => {
                    if let Some(Symbol::Repeat { min, max, .. }) = symbol {
                        let range = max.map_or(UNBOUNDED, |max| max - min + 1);
                        if range != 1 {
                            let items = self.children(super::NodeId(i as u32)).count() as u32;
                            out.push(items.saturating_sub(min));
                        }
                    }
                }
                NodeKind::Terminal { terminal, value } => match grammar.terminal(terminal) {
                    Terminal::Class(class) if class.size() > 1 => out.push(value),
                    Terminal::Pool(p) if grammar.pools[p.index()].values.len() > 1 => {
                        out.push(value)
                    }
                    _ => {}
                },
            }
            open.push(Open {
                node: i,
                end: node.end as usize,
                start,
                symbols,
                next: 0,
            });
        }
        while let Some(top) = open.pop() {
            span(top.node, top.start, out.len() as u32);
        }
    }
}
