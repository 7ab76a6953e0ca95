//! The normalized grammar every later stage works on.

use std::collections::HashSet;
use std::hash::Hasher;

use super::{DepthMeasure, Layout, Pool, Rule, RuleId, Symbol, Terminal, TerminalId};
use crate::diagnostic::SourceFile;

/// A grammar after lowering: every EBNF group is a rule of its own and every terminal is
/// interned, so later stages work with dense integer ids and never see the source syntax.
#[derive(Clone, Debug)]
pub struct Grammar {
    /// Display name: the file stem the grammar was read from, or the name given to `from_text`.
    pub name: String,
    /// The file the grammar was read from, for located warnings; importers may leave it out.
    pub origin: Option<SourceFile>,
    /// Named rules occupy `0..named_rules`; groups follow.
    pub rules: Vec<Rule>,
    /// How many of `rules` are named; only these count towards the depth bound.
    pub named_rules: usize,
    /// Every distinct terminal, indexed by [`TerminalId`].
    pub terminals: Vec<Terminal>,
    /// Every pool, indexed by [`PoolId`].
    pub pools: Vec<Pool>,
    /// The rule every derivation starts from: the one `%start` names, else the first rule.
    pub start: RuleId,
    /// What goes between tokens when a tree is rendered (`%layout`, `%indent`, `%comment`).
    pub layout: Layout,
    /// What one level of the depth bound is (`%depth`).
    pub depth: DepthMeasure,
    /// `%reserved`: the keywords that can never be identifiers; every other keyword is one only
    /// where the grammar expects it, as tree-sitter's `reserved` words say of the rest (Python's
    /// `match`, `type` and `_` are names too). `None` when the grammar does not say, and then
    /// every keyword is reserved: a pool never draws one and a seed's identifier is never one.
    pub reserved: Option<Vec<String>>,
}

impl Grammar {
    /// Panics when `id` is not a rule of this grammar; ids from another grammar are a bug.
    pub fn rule(&self, id: RuleId) -> &Rule {
        &self.rules[id.index()]
    }

    /// Panics when `id` is not a terminal of this grammar.
    pub fn terminal(&self, id: TerminalId) -> &Terminal {
        &self.terminals[id.index()]
    }

    /// Every rule id, named rules first, then groups; owns nothing, so `self` can be borrowed
    /// mutably while iterating.
    pub fn rule_ids(&self) -> impl Iterator<Item = RuleId> + use<> {
        (0..self.rules.len() as u32).map(RuleId)
    }

    /// Every symbol of every alternative, with the rule and alternative index it sits in.
    pub fn occurrences(&self) -> impl Iterator<Item = (RuleId, usize, &Symbol)> {
        self.rules.iter().enumerate().flat_map(|(r, rule)| {
            rule.alternatives
                .iter()
                .enumerate()
                .flat_map(move |(a, alt)| alt.symbols.iter().map(move |s| (RuleId(r as u32), a, s)))
        })
    }

    /// Rules a symbol refers to directly.
    pub fn referenced_rule(symbol: &Symbol) -> Option<RuleId> {
        match *symbol {
            Symbol::Terminal(_) => None,
            Symbol::Rule(r) | Symbol::Optional(r) | Symbol::Repeat { body: r, .. } => Some(r),
        }
    }

    /// The literals that are whole tokens (see `keywords`); the reserved ones among them are
    /// never a pool value nor an identifier of a seed.
    pub fn keywords(&self) -> HashSet<&str> {
        super::keywords::keywords(&self.rules, self.named_rules, &self.terminals)
    }

    /// The keywords an identifier can never be (see [`Grammar::reserved`]).
    pub fn reserved_keywords(&self) -> HashSet<&str> {
        super::keywords::reserved(self.keywords(), self.reserved.as_deref())
    }

    /// A stable hash of the grammar's structure (rules, terminals, pools, start rule and depth
    /// measure), not its formatting or comments; saved with every choice sequence so that replaying
    /// it against a changed grammar is refused instead of decoding into some other input.
    pub fn fingerprint(&self) -> u64 {
        let mut h = fnv::FnvHasher::default();
        let mut write = |s: &str| {
            h.write(s.as_bytes());
            h.write_u8(0);
        };
        write(&self.start.0.to_string());
        // Choices replay to other inputs under another measure. Per rule, the measure that
        // came first, adds nothing, so files recorded before `%depth` existed still load.
        if self.depth != DepthMeasure::Rule {
            write(&format!("%depth {}", self.depth));
        }
        for rule in &self.rules {
            write(&rule.name);
            write(if rule.lexical { "L" } else { "S" });
            for alt in &rule.alternatives {
                write("|");
                for symbol in &alt.symbols {
                    write(&format!("{symbol:?}"));
                }
            }
        }
        for terminal in &self.terminals {
            write(&format!("{terminal:?}"));
        }
        for pool in &self.pools {
            write(&pool.name);
            for v in &pool.values {
                write(v);
            }
        }
        h.finish()
    }
}
