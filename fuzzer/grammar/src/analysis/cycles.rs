//! The recursive cycles of a grammar: its strongly connected components of rules.
//!
//! Nesting in a language is recursion in its grammar: an expression inside parentheses is a
//! trip round the expression cycle (`expr → ... → primary → "(" expr ")"`), a block inside an
//! `if` a trip round the statement cycle. However many precedence levels such a cycle passes
//! through, one trip is one level of nesting, which is how the Bonsai paper's depth bound
//! counts (see `sampler::DepthTracker`).

use super::components::strongly_connected;
use crate::grammar::Grammar;

/// Marks a named rule on no cycle: it can occur at most once on any root-to-leaf path.
pub const NOT_RECURSIVE: u32 = u32::MAX;

/// The grammar's recursive cycles, numbered, so the sampler's depth bound can count one trip
/// round a cycle as one level of nesting.
pub struct Cycles {
    /// Per named rule: the index of its cycle, or [`NOT_RECURSIVE`].
    pub of_rule: Vec<u32>,
    /// Number of cycles.
    pub count: u32,
}

impl Cycles {
    /// Components over every rule, groups included (a group is how a named rule reaches the
    /// rules inside its `(...)`, `?` and `*`), numbered in the order their first named rule
    /// appears; a component counts as a cycle when it has two or more rules or a rule that
    /// refers to itself.
    pub fn compute(grammar: &Grammar) -> Self {
        let n = grammar.rules.len();
        let successors: Vec<Vec<usize>> = grammar
            .rules
            .iter()
            .map(|rule| {
                rule.alternatives
                    .iter()
                    .flat_map(|alt| &alt.symbols)
                    .filter_map(Grammar::referenced_rule)
                    .map(|r| r.index())
                    .collect()
            })
            .collect();
        let component = strongly_connected(&successors);
        let mut size = vec![0u32; n];
        for &c in &component {
            size[c] += 1;
        }
        let recursive = |r: usize| size[component[r]] > 1 || successors[r].contains(&r);
        let mut numbering = vec![NOT_RECURSIVE; n];
        let mut count = 0;
        let of_rule = (0..grammar.named_rules)
            .map(|r| {
                if !recursive(r) {
                    return NOT_RECURSIVE;
                }
                let c = component[r];
                if numbering[c] == NOT_RECURSIVE {
                    numbering[c] = count;
                    count += 1;
                }
                numbering[c]
            })
            .collect();
        Self { of_rule, count }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cycles(source: &str) -> (Grammar, Cycles) {
        let grammar = Grammar::from_text("test", source).unwrap();
        let cycles = Cycles::compute(&grammar);
        (grammar, cycles)
    }

    fn of(grammar: &Grammar, cycles: &Cycles, name: &str) -> u32 {
        let r = grammar.rules.iter().position(|r| r.name == name).unwrap();
        cycles.of_rule[r]
    }

    #[test]
    fn precedence_levels_and_parentheses_are_one_cycle_and_blocks_another() {
        let (g, c) = cycles(
            r#"
            program = stmt* ;
            stmt = "if" expr block | expr ";" ;
            block = "{" stmt* "}" ;
            expr = term ( "+" expr )? ;
            term = atom ( "*" term )? ;
            atom = "x" | "(" expr ")" ;
            op = "+" ;
            "#,
        );
        let expr = of(&g, &c, "expr");
        assert_ne!(expr, NOT_RECURSIVE);
        assert_eq!(of(&g, &c, "term"), expr);
        assert_eq!(of(&g, &c, "atom"), expr);
        let stmt = of(&g, &c, "stmt");
        assert_ne!(stmt, NOT_RECURSIVE);
        assert_ne!(stmt, expr, "expressions never contain statements");
        assert_eq!(of(&g, &c, "block"), stmt);
        assert_eq!(of(&g, &c, "program"), NOT_RECURSIVE);
        assert_eq!(c.count, 2);
    }

    #[test]
    fn a_rule_that_refers_to_itself_directly_is_a_cycle() {
        let (g, c) = cycles(r#"list = "x" | "x" "," list ; start = list ;"#);
        assert_ne!(of(&g, &c, "list"), NOT_RECURSIVE);
        assert_eq!(of(&g, &c, "start"), NOT_RECURSIVE);
    }
}
