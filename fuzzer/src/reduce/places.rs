//! Where each node of a derivation tree sits: its parent, its level, and the grammar symbol it
//! stands for.

use crate::grammar::{Grammar, Symbol};
use crate::tree::{DerivationTree, NodeId, NodeKind};

/// Facts about the nodes of one tree that the tree itself does not store, computed in one
/// pre-order pass. HDD needs the level (it works level by level), the symbol (the minimal
/// derivation of an optional or a repetition depends on the symbol, not only on the node) and
/// the ancestors (the depth bound at a place depends on the named rules above it).
pub struct Places {
    parent: Vec<Option<NodeId>>,
    level: Vec<u32>,
    symbol: Vec<Symbol>,
    /// Node ids per level, each in pre-order.
    by_level: Vec<Vec<NodeId>>,
}

impl Places {
    /// Computes every node's place in one pre-order pass; valid only for `tree` as it is now.
    pub fn new(grammar: &Grammar, tree: &DerivationTree) -> Self {
        let n = tree.len();
        let mut parent = vec![None; n];
        let mut level = vec![0; n];
        let mut symbol = vec![Symbol::Rule(grammar.start); n];
        for (i, node) in tree.nodes().iter().enumerate() {
            let id = NodeId(i as u32);
            let child_symbols: Option<&[Symbol]> = match node.kind {
                NodeKind::Rule { rule, alternative } => {
                    Some(&grammar.rule(rule).alternatives[alternative as usize].symbols)
                }
                _ => None,
            };
            for (index, child) in tree.children(id).enumerate() {
                let c = child.index();
                parent[c] = Some(id);
                level[c] = level[i] + 1;
                symbol[c] = match (node.kind, child_symbols) {
                    (_, Some(symbols)) => symbols[index],
                    (NodeKind::Optional { body } | NodeKind::Repeat { body }, None) => {
                        Symbol::Rule(body)
                    }
                    _ => unreachable!("only rules, optionals and repetitions have children"),
                };
            }
        }
        let mut by_level: Vec<Vec<NodeId>> = Vec::new();
        for (i, &l) in level.iter().enumerate() {
            if by_level.len() <= l as usize {
                by_level.resize_with(l as usize + 1, Vec::new);
            }
            by_level[l as usize].push(NodeId(i as u32));
        }
        Self {
            parent,
            level,
            symbol,
            by_level,
        }
    }

    /// Number of levels: one more than the deepest node's level; 0 for an empty tree.
    pub fn levels(&self) -> u32 {
        self.by_level.len() as u32
    }

    /// Distance from the root, which is at level 0.
    pub fn level(&self, id: NodeId) -> u32 {
        self.level[id.index()]
    }

    /// The nodes at `level`, in pre-order (which is also text order).
    pub fn at_level(&self, level: u32) -> &[NodeId] {
        self.by_level.get(level as usize).map_or(&[], Vec::as_slice)
    }

    /// `None` for the root only.
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.parent[id.index()]
    }

    /// The symbol of the parent's alternative that `id` derives: `Rule(start)` for the root,
    /// `Rule(body)` for an item of a repetition or the body of an optional.
    pub fn symbol(&self, id: NodeId) -> Symbol {
        self.symbol[id.index()]
    }
}
