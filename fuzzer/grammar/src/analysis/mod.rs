//! Analysis. Facts about the grammar that every later stage relies on: which symbols
//! are usable, how fast each rule can close a tree, which terminals can meet.

mod components;
mod cycles;
mod dependents;
mod first_follow;
mod height;
mod min_context;
mod min_yield;
mod nullable;
mod reachability;
#[cfg(test)]
mod sweeps;
mod work;

use fixedbitset::FixedBitSet;

pub use cycles::{Cycles, NOT_RECURSIVE};
pub use first_follow::{Direction, TerminalSets};
pub use height::{Heights, UNREACHABLE_HEIGHT};
pub use min_context::{ContextStep, MinContext};
pub use min_yield::{MinYield, NO_YIELD};
pub use nullable::{nullable_rules, symbol_is_nullable};
pub use reachability::Reachability;

use crate::diagnostic::{Diagnostic, Diagnostics, Span};
use crate::grammar::{Grammar, RuleId};

/// The grammar facts computed once at load time, before any input is generated: `grammar check`
/// reports from them, and the fuzz loop starts only when [`Analysis::check`] passes.
pub struct Analysis {
    /// Rules and pools the start rule can reach; anything outside is dead and only warned about.
    pub reachability: Reachability,
    /// Minimal derivation heights with nothing forbidden; a rule is productive when its height is
    /// finite.
    pub heights: Heights,
    /// Rules (by index) that can derive the empty word.
    pub nullable: FixedBitSet,
    /// first and follow
    pub forward: TerminalSets,
    /// last and precede
    pub backward: TerminalSets,
    /// Shortest word of every rule and alternative, in characters, with no token weight.
    pub min_yield: MinYield,
}

impl Analysis {
    /// Runs every analysis; the work is linear in the grammar's size, so this is safe on
    /// grammars of tens of thousands of rules.
    pub fn new(grammar: &Grammar) -> Self {
        let nullable = nullable_rules(grammar);
        Self {
            reachability: Reachability::compute(grammar),
            heights: Heights::unrestricted(grammar),
            forward: TerminalSets::compute(grammar, &nullable, Direction::Forward),
            backward: TerminalSets::compute(grammar, &nullable, Direction::Backward),
            nullable,
            min_yield: MinYield::compute(grammar),
        }
    }

    /// Terminals (by terminal id) that can begin a word of `rule`.
    pub fn first(&self, rule: RuleId) -> &FixedBitSet {
        &self.forward.edge[rule.index()]
    }

    /// Terminals that can come right after `rule`; the extra bit at `terminals.len()` means the
    /// end of input.
    pub fn follow(&self, rule: RuleId) -> &FixedBitSet {
        &self.forward.neighbour[rule.index()]
    }

    /// Terminals that can end a word of `rule` (first, read backwards).
    pub fn last(&self, rule: RuleId) -> &FixedBitSet {
        &self.backward.edge[rule.index()]
    }

    /// Terminals that can come right before `rule`; the extra bit at `terminals.len()` means the
    /// beginning of input.
    pub fn precede(&self, rule: RuleId) -> &FixedBitSet {
        &self.backward.neighbour[rule.index()]
    }

    /// Errors that make the grammar unusable, then warnings about dead parts of it.
    ///
    /// A grammar whose start rule derives no word is an error. An unproductive or unreachable
    /// rule elsewhere is only a warning: the sampler never chooses an alternative it cannot
    /// finish, so such a rule is dead weight, not a hazard.
    pub fn check(&self, grammar: &Grammar) -> Result<Vec<Diagnostic>, Diagnostics> {
        let locate = |span: Span, message: String, error: bool| match &grammar.origin {
            Some(src) if error => src.error(span, message),
            Some(src) => src.warning(span, message),
            None if error => Diagnostic::error(message),
            None => Diagnostic::warning(message),
        };
        let start = grammar.rule(grammar.start);
        if !self.heights.is_productive(grammar.start.index()) {
            let culprits: Vec<&str> = (0..grammar.named_rules)
                .filter(|&r| !self.heights.is_productive(r) && self.reachability.rules.contains(r))
                .map(|r| grammar.rules[r].name.as_str())
                .collect();
            return Err(locate(
                start.span,
                format!(
                    "the grammar cannot derive any word: the start rule '{}' never terminates (unproductive rules: {})",
                    start.name,
                    culprits.join(", ")
                ),
                true,
            )
            .into());
        }
        let mut warnings = Vec::new();
        for (r, rule) in grammar.rules.iter().enumerate().take(grammar.named_rules) {
            if !self.reachability.rules.contains(r) {
                warnings.push(locate(
                    rule.span,
                    format!(
                        "rule '{}' is unreachable from the start rule '{}'",
                        rule.name, start.name
                    ),
                    false,
                ));
            } else if !self.heights.is_productive(r) {
                warnings.push(locate(
                    rule.span,
                    format!(
                        "rule '{}' cannot derive any word and will never be chosen",
                        rule.name
                    ),
                    false,
                ));
            }
        }
        for (p, pool) in grammar.pools.iter().enumerate() {
            if !self.reachability.pools.contains(p) {
                warnings.push(locate(
                    pool.span,
                    format!("pool '{}' is never used", pool.name),
                    false,
                ));
            }
        }
        Ok(warnings)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::diagnostic::Span;
    use crate::grammar::{Alternative, Rule, RuleKind, Symbol};

    /// Steps allowed per unit of grammar size (rules, alternatives and symbols): the
    /// analysis takes about 30; sweeping a chain of n rules takes about n.
    const STEPS_PER_UNIT: u64 = 100;

    fn size(grammar: &Grammar) -> u64 {
        grammar
            .rules
            .iter()
            .map(|r| {
                1 + r
                    .alternatives
                    .iter()
                    .map(|a| 1 + a.symbols.len() as u64)
                    .sum::<u64>()
            })
            .sum()
    }

    /// `r0 = r1 ; r1 = r2 ; ... ; rN = "x" ;`, with the rules in the order that made every
    /// sweep advance by one rule.
    fn chain(n: usize) -> Grammar {
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!("r{i} = r{} ;\n", i + 1));
        }
        text.push_str(&format!("r{n} = \"x\" ;\n"));
        Grammar::from_text("chain", &text).unwrap()
    }

    /// `s = "x"?*?*...` nested `depth` times, as the loader lowers it: one group per operator,
    /// each the operand of the one before. The text would exceed the loader's nesting bound,
    /// so the grammar is built directly.
    fn stacked(depth: usize) -> Grammar {
        let mut grammar = Grammar::from_text("stacked", "s = \"x\" ;").unwrap();
        let x = grammar.rules[0].alternatives[0].symbols[0];
        let alternative = |symbol| Alternative {
            symbols: vec![symbol],
            span: Span::default(),
        };
        grammar.rules[0].alternatives.clear();
        for level in 0..depth {
            let body = RuleId(grammar.rules.len() as u32);
            let symbol = if level % 2 == 0 {
                Symbol::Optional(body)
            } else {
                Symbol::Repeat {
                    body,
                    min: 0,
                    max: None,
                }
            };
            let owner = grammar.rules.len() - 1;
            grammar.rules[owner].alternatives.push(alternative(symbol));
            grammar.rules.push(Rule {
                name: format!("s#{}", body.0),
                kind: RuleKind::Group { owner: RuleId(0) },
                lexical: false,
                alternatives: Vec::new(),
                span: Span::default(),
            });
        }
        let last = grammar.rules.len() - 1;
        grammar.rules[last].alternatives.push(alternative(x));
        grammar
    }

    /// The whole analysis and check, as `grammar check` runs them, within a linear budget.
    fn analyse_within_linear_work(grammar: &Grammar) -> Analysis {
        let budget = STEPS_PER_UNIT * size(grammar);
        let (analysis, steps) = work::metered(budget, || {
            let analysis = Analysis::new(grammar);
            analysis.check(grammar).unwrap();
            analysis
        });
        assert!(steps > 0 && steps <= budget);
        analysis
    }

    #[test]
    fn a_chain_of_20000_rules_takes_linear_work() {
        let grammar = chain(20_000);
        let analysis = analyse_within_linear_work(&grammar);
        assert_eq!(analysis.heights.rule[0], 20_001);
        assert_eq!(analysis.min_yield.rule[0], 1);
        assert!(analysis.first(RuleId(0)).contains(0));
        assert!(analysis.follow(RuleId(20_000)).contains(1), "end of input");
        assert!(analysis.reachability.rules.contains(20_000));
    }

    #[test]
    fn ten_thousand_stacked_optionals_and_stars_take_linear_work() {
        let grammar = stacked(10_000);
        let analysis = analyse_within_linear_work(&grammar);
        assert_eq!(analysis.heights.rule[0], 1);
        assert_eq!(analysis.min_yield.rule[0], 0);
        let innermost = RuleId(grammar.rules.len() as u32 - 1);
        assert!((0..innermost.index()).all(|r| analysis.nullable.contains(r)));
        assert!(!analysis.nullable.contains(innermost.index()));
        assert!(analysis.first(RuleId(0)).contains(0));
        // The innermost "x" can be followed by itself (a `*` repeats it) or the end.
        assert!(analysis.follow(innermost).contains(0));
        assert!(analysis.follow(innermost).contains(1));
    }

    /// The budget is what tells the two apart: sweeping until nothing changes exceeds it on
    /// the same chain, and stops there instead of running for minutes.
    #[test]
    #[should_panic(expected = "the analysis took more than")]
    fn sweeping_a_chain_exceeds_the_linear_budget() {
        let grammar = chain(20_000);
        work::metered(STEPS_PER_UNIT * size(&grammar), || {
            sweeps::heights(&grammar, &FixedBitSet::with_capacity(grammar.rules.len()))
        });
    }

    /// A random grammar over rules r0..r5 and the terminals "a", "b" and GLUE, with every
    /// operator; None when it does not load (an undefined start, say).
    fn random_grammar(rules: &[Vec<Vec<u8>>]) -> Option<Grammar> {
        let n = rules.len();
        let mut text = String::from("%layout auto;\n");
        for (r, alternatives) in rules.iter().enumerate() {
            let alternatives: Vec<String> = alternatives
                .iter()
                .map(|symbols| {
                    let items: Vec<String> = symbols
                        .iter()
                        .map(|&code| {
                            let target = format!("r{}", code as usize % n);
                            match code / 8 % 10 {
                                0 => "\"a\"".to_string(),
                                1 => "\"b\"".to_string(),
                                2 => "GLUE".to_string(),
                                3 => format!("{target}?"),
                                4 => format!("{target}*"),
                                5 => format!("{target}+"),
                                6 => format!("{target}{{2,3}}"),
                                7 => format!("( {target} \"a\" | \"b\" )?"),
                                _ => target,
                            }
                        })
                        .collect();
                    if items.is_empty() {
                        "\"\"".to_string()
                    } else {
                        items.join(" ")
                    }
                })
                .collect();
            text.push_str(&format!("r{r} = {} ;\n", alternatives.join(" | ")));
        }
        Grammar::from_text("random", &text).ok()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn worklists_agree_with_sweeping(
            rules in prop::collection::vec(
                prop::collection::vec(prop::collection::vec(any::<u8>(), 0..4), 1..4),
                1..6,
            ),
            forbidden in any::<u8>(),
            weight in 0u64..3,
        ) {
            let Some(grammar) = random_grammar(&rules) else {
                return Ok(());
            };
            let mut banned = FixedBitSet::with_capacity(grammar.rules.len());
            for r in 0..grammar.rules.len().min(8) {
                if forbidden & (1 << r) != 0 {
                    banned.insert(r);
                }
            }
            let nullable = nullable_rules(&grammar);
            prop_assert_eq!(&nullable, &sweeps::nullable_rules(&grammar));
            prop_assert_eq!(Heights::compute(&grammar, &banned), sweeps::heights(&grammar, &banned));
            prop_assert_eq!(
                MinYield::compute_weighted(&grammar, &banned, weight),
                sweeps::min_yield(&grammar, &banned, weight)
            );
            for direction in [Direction::Forward, Direction::Backward] {
                let fast = TerminalSets::compute(&grammar, &nullable, direction);
                let slow = sweeps::terminal_sets(&grammar, &nullable, direction);
                prop_assert_eq!(fast.edge, slow.edge);
                prop_assert_eq!(fast.neighbour, slow.neighbour);
                prop_assert_eq!(fast.terminal_neighbour, slow.terminal_neighbour);
            }
        }
    }
}
