//! Strongly connected components of a graph over dense node indices.
//!
//! Recursive cycles (`cycles`) are the components of the reference graph; the first, follow,
//! last and precede sets (`first_follow`) are unions that propagate along a graph, solved once
//! per component in topological order instead of by repeated passes over the whole grammar.

use super::work;

/// Tarjan's algorithm without recursion (grammars imported from tree-sitter have hundreds of
/// rules in long chains, generated ones tens of thousands): the component index of every node.
///
/// Components are numbered in the order Tarjan's algorithm finishes them, which is a reverse
/// topological order: every edge leads to a component with the same or a smaller number. A
/// fixpoint over the components in increasing order therefore sees each successor final.
pub(super) fn strongly_connected(successors: &[Vec<usize>]) -> Vec<usize> {
    const UNVISITED: usize = usize::MAX;
    let n = successors.len();
    let mut index = vec![UNVISITED; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut component = vec![UNVISITED; n];
    let mut components = 0;
    let mut next = 0;
    for root in 0..n {
        if index[root] != UNVISITED {
            continue;
        }
        // Frames of (node, position in its successor list).
        let mut frames = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut at)) = frames.last_mut() {
            if let Some(&w) = successors[v].get(*at) {
                *at += 1;
                work::step(1);
                if index[w] == UNVISITED {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    frames.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = components;
                    if w == v {
                        break;
                    }
                }
                components += 1;
            }
        }
    }
    component
}
