//! What a set of derivation trees covers.

use std::collections::{BTreeMap, HashSet};

use super::{Criterion, Element, Item};
use crate::tree::{DerivationTree, NodeId, NodeKind};

/// The items the trees added so far cover, per criterion asked for.
pub struct Tally {
    covered: BTreeMap<Criterion, HashSet<Item>>,
    trees: usize,
}

impl Tally {
    /// An empty tally for `criteria`.
    pub fn new(criteria: &[Criterion]) -> Self {
        Self {
            covered: criteria.iter().map(|&c| (c, HashSet::new())).collect(),
            trees: 0,
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
    let direct = match tree.node(child).kind {
        NodeKind::Rule { alternative, .. } => Some(alternative),
        _ => None,
    };
    let wrapped = matches!(
        tree.node(child).kind,
        NodeKind::Optional { .. } | NodeKind::Repeat { .. }
    );
    direct
        .into_iter()
        .chain(
            tree.children(child)
                .filter(move |_| wrapped)
                .filter_map(move |item| match tree.node(item).kind {
                    NodeKind::Rule { alternative, .. } => Some(alternative),
                    _ => None,
                }),
        )
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
