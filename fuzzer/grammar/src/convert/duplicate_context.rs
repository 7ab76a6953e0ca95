//! Context duplication (the fuzzingbook chapter's `duplicate_context`): in one rule's
//! alternative (or all of them), every nonterminal it refers to is replaced by a copy of its own,
//! recursively below it up to a depth, so that a coverage criterion counts that context's
//! expansions apart from the same rules' other uses (the digits of `<integer-1> "." <integer-2>`
//! apart from those of a plain `<integer>`).
//!
//! On the normalized grammar, a group is part of the rule it was written in: it is copied with
//! its owner and does not count towards the depth. A rule already copied on the way down
//! refers to its copy, which keeps recursion finite. Rules no longer reachable from the start
//! rule afterwards are left out. The result is a grammar like any other, named rules first.

use std::collections::HashMap;

use crate::grammar::{Alternative, Grammar, Rule, RuleId, RuleKind, Symbol};

/// What duplication made.
pub struct Duplicated {
    /// The new grammar.
    pub grammar: Grammar,
    /// Rules of the new grammar that are copies.
    pub added: usize,
    /// Rules of the old grammar no longer reachable, left out.
    pub removed: usize,
}

/// Duplicates the context of `rule`'s alternative `alternative` (all alternatives with `None`),
/// `depth` levels of named rules deep (`None`: until every rule on the way is copied once).
pub fn duplicate_context(
    grammar: &Grammar,
    rule: RuleId,
    alternative: Option<usize>,
    depth: Option<u32>,
) -> Duplicated {
    let mut work = Work {
        original: grammar,
        rules: grammar.rules.clone(),
        copies: Vec::new(),
        taken: grammar.rules.iter().map(|r| r.name.clone()).collect(),
    };
    work.duplicate(rule, alternative, depth, &HashMap::new());
    work.assemble()
}

struct Work<'g> {
    original: &'g Grammar,
    /// The grammar's rules, then every copy; ids index this list until `assemble`.
    rules: Vec<Rule>,
    /// Ids (in `rules`) of the copies, in the order they were made.
    copies: Vec<usize>,
    taken: std::collections::HashSet<String>,
}

impl Work<'_> {
    fn duplicate(
        &mut self,
        rule: RuleId,
        alternative: Option<usize>,
        depth: Option<u32>,
        seen: &HashMap<RuleId, RuleId>,
    ) {
        for a in 0..self.rules[rule.index()].alternatives.len() {
            if alternative.is_some_and(|only| only != a) {
                continue;
            }
            for s in 0..self.rules[rule.index()].alternatives[a].symbols.len() {
                let symbol = self.rules[rule.index()].alternatives[a].symbols[s];
                let Some(referred) = Grammar::referenced_rule(&symbol) else {
                    continue;
                };
                let replacement = self.replacement(rule, referred, depth, seen);
                self.rules[rule.index()].alternatives[a].symbols[s] =
                    with_rule(symbol, replacement);
            }
        }
    }

    /// The rule a reference to `referred` inside `owner` becomes.
    fn replacement(
        &mut self,
        owner: RuleId,
        referred: RuleId,
        depth: Option<u32>,
        seen: &HashMap<RuleId, RuleId>,
    ) -> RuleId {
        if let Some(&copy) = seen.get(&referred) {
            return copy;
        }
        let is_group = matches!(self.original.rule(referred).kind, RuleKind::Group { .. });
        if !is_group && depth == Some(0) {
            return referred;
        }
        let copy = RuleId(self.rules.len() as u32);
        let mut rule = self.original.rule(referred).clone();
        if is_group {
            rule.kind = RuleKind::Group {
                owner: self.named_owner(owner),
            };
        } else {
            rule.name = self.fresh_name(&rule.name);
        }
        self.rules.push(rule);
        self.copies.push(copy.index());
        let mut below = seen.clone();
        if !is_group {
            below.insert(referred, copy);
        }
        let depth = if is_group {
            depth
        } else {
            depth.map(|d| d - 1)
        };
        self.duplicate(copy, None, depth, &below);
        copy
    }

    /// The named rule a rule belongs to: itself, or a group's owner.
    fn named_owner(&self, rule: RuleId) -> RuleId {
        match self.rules[rule.index()].kind {
            RuleKind::Named => rule,
            RuleKind::Group { owner } => owner,
        }
    }

    /// `name-1`, `name-2`, ... (inside the brackets of a `<name>`), the first not yet used.
    fn fresh_name(&mut self, name: &str) -> String {
        let (open, inner, close) = match name.strip_prefix('<').and_then(|n| n.strip_suffix('>')) {
            Some(inner) => ("<", inner, ">"),
            None => ("", name, ""),
        };
        (1..)
            .map(|k| format!("{open}{inner}-{k}{close}"))
            .find(|candidate| self.taken.insert(candidate.clone()))
            .expect("some suffix is free")
    }

    /// The final grammar: reachable named rules (originals, then copies), then reachable
    /// groups, every reference renumbered.
    fn assemble(self) -> Duplicated {
        let start = self.original.start;
        let mut reachable = vec![false; self.rules.len()];
        let mut stack = vec![start.index()];
        reachable[start.index()] = true;
        while let Some(r) = stack.pop() {
            for alt in &self.rules[r].alternatives {
                for symbol in &alt.symbols {
                    if let Some(next) = Grammar::referenced_rule(symbol)
                        && !reachable[next.index()]
                    {
                        reachable[next.index()] = true;
                        stack.push(next.index());
                    }
                }
            }
        }
        let named = |r: &usize| matches!(self.rules[*r].kind, RuleKind::Named);
        let order: Vec<usize> = (0..self.rules.len())
            .filter(|r| reachable[*r] && named(r))
            .chain((0..self.rules.len()).filter(|r| reachable[*r] && !named(r)))
            .collect();
        let mut renumbered = vec![None; self.rules.len()];
        for (new, &old) in order.iter().enumerate() {
            renumbered[old] = Some(RuleId(new as u32));
        }
        let id =
            |r: RuleId| renumbered[r.index()].expect("reachable rules refer to reachable ones");
        let rules: Vec<Rule> = order
            .iter()
            .map(|&old| {
                let mut rule = self.rules[old].clone();
                if let RuleKind::Group { owner } = rule.kind {
                    rule.kind = RuleKind::Group {
                        owner: renumbered[owner.index()].unwrap_or(owner),
                    };
                }
                rule.alternatives = rule
                    .alternatives
                    .iter()
                    .map(|alt| Alternative {
                        symbols: alt
                            .symbols
                            .iter()
                            .map(|&s| match Grammar::referenced_rule(&s) {
                                Some(r) => with_rule(s, id(r)),
                                None => s,
                            })
                            .collect(),
                        span: alt.span,
                    })
                    .collect();
                rule
            })
            .collect();
        let named_rules = order.iter().filter(|r| named(r)).count();
        let added = self.copies.iter().filter(|&&c| reachable[c]).count();
        let removed = (0..self.original.rules.len())
            .filter(|&r| !reachable[r] && named(&r))
            .count();
        let mut grammar = self.original.clone();
        grammar.rules = rules;
        grammar.named_rules = named_rules;
        grammar.start = id(start);
        Duplicated {
            grammar,
            added,
            removed,
        }
    }
}

/// `symbol` referring to `rule` instead of the rule it referred to.
fn with_rule(symbol: Symbol, rule: RuleId) -> Symbol {
    match symbol {
        Symbol::Rule(_) => Symbol::Rule(rule),
        Symbol::Optional(_) => Symbol::Optional(rule),
        Symbol::Repeat { min, max, .. } => Symbol::Repeat {
            body: rule,
            min,
            max,
        },
        Symbol::Terminal(_) => symbol,
    }
}
