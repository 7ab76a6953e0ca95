//! The grammar laid out for the sampler's inner loop.
//!
//! The sampler visits a rule, an alternative and its symbols at every node. Through
//! [`Grammar`] that is a chain of dependent loads (rule, its alternatives, their symbols, then
//! the terminal to see whether it needs a decision); here every alternative's symbols sit in one
//! array and each terminal already says what deciding it takes.

use crate::grammar::{Grammar, PoolId, RuleId, Symbol, Terminal, TerminalId};

#[derive(Clone, Copy, Debug)]
pub enum Step {
    Terminal(TerminalStep),
    Rule(RuleId),
    Optional(RuleId),
    Repeat {
        body: RuleId,
        min: u32,
        max: Option<u32>,
    },
}

impl Step {
    /// Whether the step draws a subtree of its own, which gets a share of the node budget.
    #[inline]
    pub fn opens_subtree(self) -> bool {
        !matches!(self, Step::Terminal(_))
    }
}

#[derive(Clone, Copy, Debug)]
pub enum TerminalStep {
    /// A terminal with one possible value: a literal, a layout token, a one-character class or
    /// a one-value pool.
    Fixed(TerminalId),
    /// A character class of `size` characters; the choice is the offset.
    Class { terminal: TerminalId, size: u32 },
    /// A pool of `size` values; the choice is the index, and the bound m limits it.
    Pool {
        terminal: TerminalId,
        pool: PoolId,
        size: u32,
    },
}

pub struct Steps {
    /// Per rule: the index of its first alternative in `alternatives` and how many it has.
    rules: Vec<(u32, u32)>,
    /// Per alternative: its range in `steps`.
    alternatives: Vec<(u32, u32)>,
    steps: Vec<Step>,
}

impl Steps {
    pub fn new(grammar: &Grammar) -> Self {
        let mut rules = Vec::with_capacity(grammar.rules.len());
        let mut alternatives = Vec::new();
        let mut steps = Vec::new();
        for rule in &grammar.rules {
            rules.push((alternatives.len() as u32, rule.alternatives.len() as u32));
            for alternative in &rule.alternatives {
                let start = steps.len() as u32;
                steps.extend(alternative.symbols.iter().map(|s| step(grammar, *s)));
                alternatives.push((start, steps.len() as u32));
            }
        }
        Self {
            rules,
            alternatives,
            steps,
        }
    }

    #[inline]
    pub fn alternative_count(&self, rule: usize) -> u32 {
        self.rules[rule].1
    }

    /// The range of `steps` that alternative `alternative` of `rule` consists of.
    #[inline]
    pub fn alternative(&self, rule: usize, alternative: u32) -> std::ops::Range<usize> {
        let (start, end) = self.alternatives[(self.rules[rule].0 + alternative) as usize];
        start as usize..end as usize
    }

    #[inline]
    pub fn get(&self, index: usize) -> Step {
        self.steps[index]
    }
}

fn step(grammar: &Grammar, symbol: Symbol) -> Step {
    match symbol {
        Symbol::Terminal(terminal) => Step::Terminal(match grammar.terminal(terminal) {
            Terminal::Literal(_) | Terminal::Layout(_) => TerminalStep::Fixed(terminal),
            Terminal::Class(class) if class.size() == 1 => TerminalStep::Fixed(terminal),
            Terminal::Class(class) => TerminalStep::Class {
                terminal,
                size: class.size(),
            },
            Terminal::Pool(pool) => match grammar.pools[pool.index()].values.len() as u32 {
                0 | 1 => TerminalStep::Fixed(terminal),
                size => TerminalStep::Pool {
                    terminal,
                    pool: *pool,
                    size,
                },
            },
        }),
        Symbol::Rule(rule) => Step::Rule(rule),
        Symbol::Optional(body) => Step::Optional(body),
        Symbol::Repeat { body, min, max } => Step::Repeat { body, min, max },
    }
}
