//! The least size of a derivation, to refuse grammars whose every input is enormous.
//!
//! A fixed count `{n}` is not a choice: the sampler builds all n items whatever the bounds
//! are, and nested counts multiply. `s = "a"{65535}{65535}{65535};` passed `grammar check` and
//! then aborted `generate` on a 6 GB allocation, since its shortest word has 2.8 * 10^14
//! characters. The bounds and the node budget limit every other choice, so the least size of
//! a derivation is the one cost of an input that nothing at sampling time can cap.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use fixedbitset::FixedBitSet;

use super::{Grammar, Symbol, Terminal};
use crate::diagnostic::{Diagnostic, Diagnostics};

/// The largest least size (tree nodes plus characters, see [`least_sizes`]) that a rule's
/// alternative may have. A million is far beyond any real grammar (fixed counts are for a
/// few hex digits or a padded field) and still an input of a few megabytes.
pub const MAX_LEAST_SIZE: u64 = 1_000_000;

/// Where one symbol's size comes from: a constant, or `factor` times a rule's least size.
struct Dependency {
    rule: usize,
    alternative: usize,
    factor: u64,
}

/// Per alternative of every rule, the size of its smallest derivation in tree nodes (the
/// alternative's own symbols, each rule and repetition node) plus characters (a terminal
/// weighs its shortest text, at least 1), not counting the rule's own node; `None` where the
/// alternative derives no word.
///
/// Computed with Knuth's generalisation of Dijkstra's algorithm (a rule's size is final when
/// it is the smallest open candidate, since sizes only grow along a derivation): linear in
/// the grammar up to the heap's logarithm, where a fixpoint over all rules would be quadratic
/// on a long chain of rules.
pub fn least_sizes(grammar: &Grammar) -> Vec<Vec<Option<u64>>> {
    let terminal: Vec<u64> = grammar
        .terminals
        .iter()
        .map(|t| match t {
            Terminal::Literal(s) => s.chars().count() as u64,
            Terminal::Pool(p) => grammar.pools[p.index()]
                .values
                .iter()
                .map(|v| v.chars().count() as u64)
                .min()
                .unwrap_or(0),
            Terminal::Class(_) | Terminal::Layout(_) => 1,
        })
        .map(|len| len.max(1))
        .collect();
    let mut partial: Vec<Vec<u64>> = Vec::with_capacity(grammar.rules.len());
    let mut pending: Vec<Vec<u32>> = Vec::with_capacity(grammar.rules.len());
    let mut uses: Vec<Vec<Dependency>> = (0..grammar.rules.len()).map(|_| Vec::new()).collect();
    for (r, rule) in grammar.rules.iter().enumerate() {
        let mut sums = Vec::with_capacity(rule.alternatives.len());
        let mut waits = Vec::with_capacity(rule.alternatives.len());
        for (a, alternative) in rule.alternatives.iter().enumerate() {
            let mut sum = 0u64;
            let mut wait = 0u32;
            for symbol in &alternative.symbols {
                let (own, dependency) = match *symbol {
                    Symbol::Terminal(t) => (terminal[t.index()], None),
                    Symbol::Rule(b) => (0, Some((b, 1))),
                    Symbol::Optional(_) | Symbol::Repeat { min: 0, .. } => (1, None),
                    Symbol::Repeat { body, min, .. } => (1, Some((body, u64::from(min)))),
                };
                sum = sum.saturating_add(own);
                if let Some((body, factor)) = dependency {
                    wait += 1;
                    uses[body.index()].push(Dependency {
                        rule: r,
                        alternative: a,
                        factor,
                    });
                }
            }
            sums.push(sum);
            waits.push(wait);
        }
        partial.push(sums);
        pending.push(waits);
    }
    let mut open: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    for (r, waits) in pending.iter().enumerate() {
        for (a, &wait) in waits.iter().enumerate() {
            if wait == 0 {
                open.push(Reverse((partial[r][a].saturating_add(1), r)));
            }
        }
    }
    let mut done = FixedBitSet::with_capacity(grammar.rules.len());
    while let Some(Reverse((size, r))) = open.pop() {
        if done.put(r) {
            continue;
        }
        for used in &uses[r] {
            let (owner, a) = (used.rule, used.alternative);
            partial[owner][a] = partial[owner][a].saturating_add(size.saturating_mul(used.factor));
            pending[owner][a] -= 1;
            if pending[owner][a] == 0 && !done.contains(owner) {
                open.push(Reverse((partial[owner][a].saturating_add(1), owner)));
            }
        }
    }
    partial
        .into_iter()
        .zip(pending)
        .map(|(sums, waits)| {
            sums.into_iter()
                .zip(waits)
                .map(|(sum, wait)| (wait == 0).then_some(sum))
                .collect()
        })
        .collect()
}

/// Refuses every alternative whose smallest derivation exceeds [`MAX_LEAST_SIZE`] while each
/// rule it uses stays within it: the place where the sizes multiply past the limit, located
/// at the alternative (for `"a"{65535}{65535}`, the inner `"a"{65535}` is fine and the whole
/// is not). Alternatives above such a place are not reported again.
pub fn check(grammar: &Grammar) -> Result<(), Diagnostics> {
    let sizes = least_sizes(grammar);
    let rule_size: Vec<Option<u64>> = sizes
        .iter()
        .map(|alternatives| {
            alternatives
                .iter()
                .flatten()
                .min()
                .map(|s| s.saturating_add(1))
        })
        .collect();
    let within = |r: usize| rule_size[r].is_some_and(|s| s <= MAX_LEAST_SIZE);
    let mut errors = Vec::new();
    for (rule, alternatives) in grammar.rules.iter().zip(&sizes) {
        for (alternative, size) in rule.alternatives.iter().zip(alternatives) {
            let Some(size) = *size else { continue };
            let culprit = size > MAX_LEAST_SIZE
                && alternative
                    .symbols
                    .iter()
                    .filter_map(Grammar::referenced_rule)
                    .all(|b| within(b.index()));
            if !culprit {
                continue;
            }
            let amount = if size == u64::MAX {
                "more than 10^19".to_string()
            } else {
                size.to_string()
            };
            let message = format!(
                "this cannot derive anything smaller than {amount} tree nodes and characters, \
                 more than the {MAX_LEAST_SIZE} one generated input may take; nested fixed \
                 counts such as {{65535}} multiply: make them smaller, or ranges such as \
                 {{0,65535}}, which the bound n limits"
            );
            errors.push(match &grammar.origin {
                Some(source) => source.error(alternative.span, message),
                None => Diagnostic::error(message),
            });
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Diagnostics(errors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Grammar, Diagnostics> {
        Grammar::from_text("size", text)
    }

    fn start_size(text: &str) -> Option<u64> {
        let grammar = load(text).unwrap();
        let sizes = least_sizes(&grammar);
        sizes[grammar.start.index()].iter().flatten().min().copied()
    }

    #[test]
    fn least_size_counts_nodes_and_characters() {
        // "ab" is 2 characters; the repetition node and its 3 items of 1 node + 1 character.
        assert_eq!(
            start_size(r#"s = "ab" x{3}; x = "c";"#),
            Some(2 + 1 + 3 * 2)
        );
        // The recursive alternative is never the smallest; `*` and `?` may be empty.
        assert_eq!(
            start_size(r#"s = "(" s ")" | "x" y* z?; y = "y"; z = "z";"#),
            Some(3)
        );
        // An alternative that never finishes has no size; its rule's other one does.
        let grammar = load(r#"s = "x" | t; t = "t" t;"#).unwrap();
        let sizes = least_sizes(&grammar);
        assert_eq!(sizes[1], vec![None]);
        assert_eq!(sizes[0], vec![Some(1), None]);
    }

    #[test]
    fn nested_fixed_counts_are_refused_where_they_multiply() {
        let err = load("s = \"x\" | big;\nbig = \"a\"{65535}{65535}{65535};")
            .unwrap_err()
            .to_string();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("size.ebnf:2:7: error:"), "{err}");
        assert!(err.contains("8589803521 tree nodes"), "{err}");
        // Through named rules too, each within the limit on its own.
        let err = load("s = a{1000};\na = b{1000};\nb = \"c\";")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("size.ebnf:1:5: error:"), "{err}");
        // Ranges are bounded by n, and one large count is fine.
        load(r#"s = "a"{0,65535}{0,65535}{0,65535} "b"{65535};"#).unwrap();
    }
}
