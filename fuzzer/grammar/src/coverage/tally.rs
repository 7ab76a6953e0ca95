//! What a set of derivation trees covers.

use std::collections::{BTreeMap, HashSet};

use super::products::for_each_combination;
use super::{Criterion, Element, Item};
use crate::analysis::symbol_is_nullable;
use crate::grammar::{Grammar, RuleId, Symbol, TerminalId};
use crate::tree::{DerivationTree, NodeId, NodeKind};

/// The items the trees added so far cover, per criterion asked for.
pub struct Tally {
    covered: BTreeMap<Criterion, HashSet<Item>>,
    trees: usize,
    /// Terminals that are no tokens (empty literals, GLUE), passed over when looking for a
    /// node's first token.
    not_tokens: HashSet<TerminalId>,
}

impl Tally {
    /// An empty tally for `criteria`, counting every terminal as a token (see
    /// [`Self::for_grammar`]).
    pub fn new(criteria: &[Criterion]) -> Self {
        Self {
            covered: criteria.iter().map(|&c| (c, HashSet::new())).collect(),
            trees: 0,
            not_tokens: HashSet::new(),
        }
    }

    /// An empty tally for `criteria` on trees of `grammar`: PLL coverage needs the grammar to
    /// tell a node's first token from an empty literal or GLUE before it, as the first sets
    /// do; the other criteria read the trees alone.
    pub fn for_grammar(grammar: &Grammar, criteria: &[Criterion]) -> Self {
        let none = fixedbitset::FixedBitSet::new();
        let not_tokens = (0..grammar.terminals.len())
            .map(|t| TerminalId(t as u32))
            .filter(|&t| symbol_is_nullable(grammar, &Symbol::Terminal(t), &none))
            .collect();
        Self {
            not_tokens,
            ..Self::new(criteria)
        }
    }

    /// Number of trees added.
    pub fn trees(&self) -> usize {
        self.trees
    }

    /// The items of `criterion` covered so far; empty for a criterion not asked for.
    pub fn covered(&self, criterion: Criterion) -> &HashSet<Item> {
        static NONE: std::sync::OnceLock<HashSet<Item>> = std::sync::OnceLock::new();
        self.covered
            .get(&criterion)
            .unwrap_or_else(|| NONE.get_or_init(HashSet::new))
    }

    /// Adds what one derivation covers.
    pub fn add(&mut self, tree: &DerivationTree) {
        self.trees += 1;
        let paths: Vec<usize> = self
            .covered
            .keys()
            .filter_map(|c| match c {
                Criterion::KPath(k) => Some(*k),
                _ => None,
            })
            .collect();
        let steps: Vec<usize> = self
            .covered
            .keys()
            .filter_map(|c| match c {
                Criterion::KStep(k) => Some(*k),
                _ => None,
            })
            .collect();
        let combinations = self.covered.contains_key(&Criterion::Cdrc2);
        if let Some(found) = self.covered.get_mut(&Criterion::Pairs) {
            for_each_pair(tree, |item| {
                found.insert(item);
            });
        }
        if let Some(found) = self.covered.get_mut(&Criterion::Pll) {
            for_each_first(tree, &self.not_tokens, |item| {
                found.insert(item);
            });
        }
        let mut path = Vec::new();
        for (index, node) in tree.nodes().iter().enumerate() {
            let id = NodeId(index as u32);
            let Some(element) = element_of(&node.kind) else {
                continue;
            };
            self.insert(Criterion::Symbol, Item::Symbol(element));
            for &k in &paths {
                let found = self
                    .covered
                    .get_mut(&Criterion::KPath(k))
                    .expect("asked for");
                walk_paths(tree, id, element, k, &mut path, found);
            }
            let NodeKind::Rule { rule, alternative } = node.kind else {
                continue;
            };
            self.insert(Criterion::Rule, Item::Rule { rule, alternative });
            for &k in &steps {
                let found = self
                    .covered
                    .get_mut(&Criterion::KStep(k))
                    .expect("asked for");
                let mut chain = Chain {
                    rule,
                    alternatives: Vec::with_capacity(k),
                    positions: Vec::with_capacity(k),
                };
                walk_chains(tree, id, k, &mut chain, found);
            }
            if combinations {
                let found = self.covered.get_mut(&Criterion::Cdrc2).expect("asked for");
                add_combinations(tree, id, rule, alternative, found);
            }
            for (position, child) in tree.children(id).enumerate() {
                let mut context = |inner: u32| Item::Cdrc {
                    rule,
                    alternative,
                    position: position as u32,
                    inner,
                };
                let items: Vec<Item> = expansions(tree, child).map(&mut context).collect();
                for item in items {
                    self.insert(Criterion::Cdrc, item);
                }
            }
        }
    }

    fn insert(&mut self, criterion: Criterion, item: Item) {
        if let Some(set) = self.covered.get_mut(&criterion) {
            set.insert(item);
        }
    }
}

/// The symbol a node stands for; `None` for the `?` and `*` wrappers, which are not symbols
/// but the positions their items fill.
fn element_of(kind: &NodeKind) -> Option<Element> {
    match *kind {
        NodeKind::Rule { rule, .. } => Some(Element::Rule(rule)),
        NodeKind::Terminal { terminal, .. } => Some(Element::Terminal(terminal)),
        NodeKind::Optional { .. } | NodeKind::Repeat { .. } => None,
    }
}

/// The alternatives the nonterminal at a position was expanded with: one for a rule, one per
/// item for a `?` or `*`, none for a terminal.
fn expansions(tree: &DerivationTree, child: NodeId) -> impl Iterator<Item = u32> + '_ {
    expansion_nodes(tree, child).filter_map(move |node| match tree.node(node).kind {
        NodeKind::Rule { alternative, .. } => Some(alternative),
        _ => None,
    })
}

/// The rule nodes that expand the nonterminal at a position: the child itself for a rule, its
/// items for a `?` or `*`, none for a terminal.
fn expansion_nodes(tree: &DerivationTree, child: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    let kind = tree.node(child).kind;
    let direct = matches!(kind, NodeKind::Rule { .. }).then_some(child);
    let wrapped = matches!(kind, NodeKind::Optional { .. } | NodeKind::Repeat { .. });
    direct
        .into_iter()
        .chain(tree.children(child).filter(move |_| wrapped))
}

/// The chain being walked down (see [`Criterion::KStep`]).
struct Chain {
    rule: RuleId,
    alternatives: Vec<u32>,
    positions: Vec<u32>,
}

/// Records every chain of `k` productions that starts at the rule node `id` (whose production
/// is the last of `chain` once pushed) and goes down the tree.
fn walk_chains(
    tree: &DerivationTree,
    id: NodeId,
    k: usize,
    chain: &mut Chain,
    found: &mut HashSet<Item>,
) {
    let NodeKind::Rule { alternative, .. } = tree.node(id).kind else {
        return;
    };
    chain.alternatives.push(alternative);
    if chain.alternatives.len() == k {
        found.insert(Item::Chain {
            rule: chain.rule,
            alternatives: chain.alternatives.clone(),
            positions: chain.positions.clone(),
        });
    } else {
        for (position, child) in tree.children(id).enumerate() {
            chain.positions.push(position as u32);
            for below in expansion_nodes(tree, child) {
                walk_chains(tree, below, k, chain, found);
            }
            chain.positions.pop();
        }
    }
    chain.alternatives.pop();
}

/// Records the combinations one rule node multiplies out (see [`Criterion::Cdrc2`]): one
/// alternative from each nonterminal position's expansions, in every way; none when a
/// position expands nothing (an absent `?`, an empty `*`).
fn add_combinations(
    tree: &DerivationTree,
    id: NodeId,
    rule: RuleId,
    alternative: u32,
    found: &mut HashSet<Item>,
) {
    let mut choices: Vec<Vec<u32>> = Vec::new();
    for child in tree.children(id) {
        if matches!(tree.node(child).kind, NodeKind::Terminal { .. }) {
            continue;
        }
        let mut at: Vec<u32> = expansions(tree, child).collect();
        at.sort_unstable();
        at.dedup();
        if at.is_empty() {
            return;
        }
        choices.push(at);
    }
    if !choices.is_empty() {
        for_each_combination(&choices, |inner| {
            found.insert(Item::Combination {
                rule,
                alternative,
                inner,
            });
        });
    }
}

/// Calls `found` with every (rule, symbol) pair of a node and a descendant, in one pass over
/// the nodes in pre-order with the distinct rules above the current node kept aside (with how
/// many times each is open), so that a deep tree costs its size times the number of distinct
/// rules above, not times its depth.
fn for_each_pair(tree: &DerivationTree, mut found: impl FnMut(Item)) {
    let mut open: Vec<(u32, Option<RuleId>)> = Vec::new();
    let mut above: Vec<(RuleId, u32)> = Vec::new();
    for (index, node) in tree.nodes().iter().enumerate() {
        while let Some(&(end, rule)) = open.last() {
            if (index as u32) < end {
                break;
            }
            open.pop();
            if let Some(rule) = rule {
                let at = above.iter().position(|&(r, _)| r == rule).expect("open");
                above[at].1 -= 1;
                if above[at].1 == 0 {
                    above.swap_remove(at);
                }
            }
        }
        if let Some(below) = element_of(&node.kind) {
            for &(rule, _) in &above {
                found(Item::Pair { above: rule, below });
            }
        }
        let rule = match node.kind {
            NodeKind::Rule { rule, .. } => Some(rule),
            _ => None,
        };
        if let Some(rule) = rule {
            match above.iter_mut().find(|(r, _)| *r == rule) {
                Some((_, count)) => *count += 1,
                None => above.push((rule, 1)),
            }
        }
        open.push((node.end, rule));
    }
}

/// Calls `found` with (rule, first token) for every rule node whose subtree holds a token, in
/// one pass: rule nodes wait for the next token in pre-order, which is the first of every
/// waiting node whose subtree reaches that far. Empty literals and GLUE are no tokens (see
/// [`Criterion::Pll`]) and leave the nodes waiting.
fn for_each_first(
    tree: &DerivationTree,
    not_tokens: &HashSet<TerminalId>,
    mut found: impl FnMut(Item),
) {
    let mut waiting: Vec<(u32, RuleId)> = Vec::new();
    for (index, node) in tree.nodes().iter().enumerate() {
        match node.kind {
            NodeKind::Rule { rule, .. } => waiting.push((node.end, rule)),
            NodeKind::Terminal { terminal, .. } if !not_tokens.contains(&terminal) => {
                for (end, rule) in waiting.drain(..) {
                    if (index as u32) < end {
                        found(Item::First {
                            rule,
                            first: terminal,
                        });
                    }
                }
            }
            _ => {}
        }
    }
}

/// The symbol children of a node: its children, with a `?` or `*` replaced by its items.
fn symbol_children(tree: &DerivationTree, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    tree.children(id).flat_map(move |child| {
        let wrapped = element_of(&tree.node(child).kind).is_none();
        let own = (!wrapped).then_some(child);
        own.into_iter()
            .chain(tree.children(child).filter(move |_| wrapped))
    })
}

/// Records every path of `k` symbols that starts at `id` and goes down the tree.
fn walk_paths(
    tree: &DerivationTree,
    id: NodeId,
    element: Element,
    k: usize,
    path: &mut Vec<Element>,
    found: &mut HashSet<Item>,
) {
    path.push(element);
    if path.len() == k {
        found.insert(Item::Path(path.clone()));
    } else {
        for child in symbol_children(tree, id) {
            if let Some(below) = element_of(&tree.node(child).kind) {
                walk_paths(tree, child, below, k, path, found);
            }
        }
    }
    path.pop();
}

/// Calls `found` with a hash of every path of `k` symbols down `tree` (as [`Tally`] counts
/// k-paths, `?` and `*` wrappers left out), in one pass over the nodes with the symbols above
/// the current one on a stack: cheap enough to run on every execution of a fuzzing loop.
pub fn for_each_path_hash(tree: &DerivationTree, k: usize, mut found: impl FnMut(u64)) {
    let mut open: Vec<(u32, bool)> = Vec::new();
    let mut path: Vec<Element> = Vec::new();
    for (index, node) in tree.nodes().iter().enumerate() {
        while let Some(&(end, is_symbol)) = open.last() {
            if (index as u32) < end {
                break;
            }
            open.pop();
            if is_symbol {
                path.pop();
            }
        }
        let element = element_of(&node.kind);
        open.push((node.end, element.is_some()));
        if let Some(element) = element {
            path.push(element);
            if path.len() >= k {
                let mut hash = 0xcbf2_9ce4_8422_2325_u64;
                for e in &path[path.len() - k..] {
                    let code = match *e {
                        Element::Rule(r) => u64::from(r.0) << 1,
                        Element::Terminal(t) => (u64::from(t.0) << 1) | 1,
                    };
                    hash = (hash ^ code).wrapping_mul(0x0100_0000_01b3);
                }
                found(hash);
            }
        }
    }
}
