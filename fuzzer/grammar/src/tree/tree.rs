//! A derivation tree as a pre-order arena.

use super::{Node, NodeId, NodeKind};
use crate::grammar::{Grammar, RuleId, Symbol};

/// A derivation tree stored as a pre-order arena of [`Node`]s, so that subtrees are contiguous
/// ranges; built by the sampler and by the parser.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DerivationTree {
    nodes: Vec<Node>,
}

impl DerivationTree {
    /// An empty tree, with no root.
    pub fn new() -> Self {
        Self::default()
    }

    /// Empties the tree but keeps its allocation, so that a hot loop reuses one tree.
    pub fn clear(&mut self) {
        self.nodes.clear();
    }

    /// Gives back the arena's spare capacity: for a tree that is kept (a cached donor) rather
    /// than reused by a hot loop, where growing by doubling leaves up to half of it unused.
    pub fn shrink_to_fit(&mut self) {
        self.nodes.shrink_to_fit();
    }

    /// Number of nodes, not the length of the rendered text.
    #[inline]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree has no nodes (not even a root), as a default tree does.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Every node in pre-order; the root is first.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Panics when `id` is not a node of this tree.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The root node, which is always id 0; `None` for an empty tree.
    pub fn root(&self) -> Option<NodeId> {
        (!self.nodes.is_empty()).then_some(NodeId(0))
    }

    /// The direct children of `id` in order, found by skipping each child's subtree.
    pub fn children(&self, id: NodeId) -> Children<'_> {
        let node = &self.nodes[id.index()];
        Children {
            tree: self,
            next: id.0 + 1,
            end: node.end,
        }
    }

    /// Nodes of the subtree rooted at `id`, the root first.
    pub fn subtree(&self, id: NodeId) -> &[Node] {
        &self.nodes[id.index()..self.nodes[id.index()].end as usize]
    }

    /// Starts the subtree of a node whose decisions begin at choice `choice`; its children
    /// follow until [`Self::close`].
    #[inline]
    pub(crate) fn open(&mut self, kind: NodeKind, choice: usize) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node {
            kind,
            end: id.0 + 1,
            choices_start: choice as u32,
            choices_end: choice as u32,
        });
        id
    }

    #[inline]
    pub(crate) fn close(&mut self, id: NodeId, choice: usize) {
        let end = self.nodes.len() as u32;
        let node = &mut self.nodes[id.index()];
        node.end = end;
        node.choices_end = choice as u32;
    }

    /// A node without children, which consumed choices `start..end`.
    #[inline]
    pub(crate) fn leaf(&mut self, kind: NodeKind, start: usize, end: usize) {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            kind,
            end: id + 1,
            choices_start: start as u32,
            choices_end: end as u32,
        });
    }

    pub(crate) fn set_choice_span(&mut self, node: usize, start: u32, end: u32) {
        let node = &mut self.nodes[node];
        node.choices_start = start;
        node.choices_end = end;
    }

    /// For every repetition node: its item count and the `min`/`max` of its symbol.
    pub fn repetitions<'t>(
        &'t self,
        grammar: &'t Grammar,
    ) -> impl Iterator<Item = (u32, u32, Option<u32>)> + 't {
        self.nodes.iter().enumerate().flat_map(move |(i, node)| {
            let symbols: &[Symbol] = match node.kind {
                NodeKind::Rule { rule, alternative } => {
                    &grammar.rule(rule).alternatives[alternative as usize].symbols
                }
                _ => &[],
            };
            self.children(NodeId(i as u32))
                .zip(symbols)
                .filter_map(move |(child, symbol)| match *symbol {
                    Symbol::Repeat { min, max, .. } => {
                        Some((self.children(child).count() as u32, min, max))
                    }
                    _ => None,
                })
        })
    }

    /// The named rules on the path from the root down to `id`'s parent, root first: where the
    /// depth bound stands at `id` (see `sampler::DepthTracker`), which decides what may replace
    /// `id` there.
    pub fn named_ancestors(&self, grammar: &Grammar, id: NodeId, out: &mut Vec<RuleId>) {
        out.clear();
        for node in &self.nodes[..id.index()] {
            if node.end as usize > id.index()
                && let NodeKind::Rule { rule, .. } = node.kind
                && rule.index() < grammar.named_rules
            {
                out.push(rule);
            }
        }
    }
}

/// The direct children of one node, from [`DerivationTree::children`].
pub struct Children<'t> {
    tree: &'t DerivationTree,
    next: u32,
    end: u32,
}

impl Iterator for Children<'_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let id = NodeId(self.next);
        self.next = self.tree.nodes[id.index()].end;
        Some(id)
    }
}
