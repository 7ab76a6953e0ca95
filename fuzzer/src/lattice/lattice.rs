//! The Bonsai lattice: every F(m,n,d,v) up to a maximum, ordered as in the paper.

use super::{Node, Restriction};
use crate::bounds::BoundsError;
use crate::sampler::Bounds;

/// The most nodes a lattice may have. Every node is a fuzzing run of its own (an hour each by
/// default) and campaign.json lists them all before anything starts: `--max-bounds
/// 100,100,100` wrote a 778 MB file of two million nodes that no machine could fuzz. The
/// paper's lattice has 54 nodes; 10,10,10 (2000) is far beyond what a campaign can finish.
pub const MAX_NODES: u64 = 2000;

/// All nodes with 1 <= m,n,d <= max and v in {r, u}: 54 nodes for the default (3,3,3). The
/// bottom F(1,1,1,r) starts from nothing; the top F(max,u) produces the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lattice {
    max: Bounds,
    /// Sorted by rank, then lexicographically, so that iteration order is a valid schedule.
    nodes: Vec<Node>,
}

impl Lattice {
    pub fn new(max: Bounds) -> Self {
        let mut nodes = Vec::new();
        for m in 1..=max.idents {
            for n in 1..=max.items {
                for d in 1..=max.depth {
                    let bounds = Bounds::new(m, n, d).expect("bounds start at 1");
                    for validity in [Restriction::Restricted, Restriction::Unrestricted] {
                        nodes.push(Node::new(bounds, validity));
                    }
                }
            }
        }
        nodes.sort_by_key(|n| (n.rank(), *n));
        Self { max, nodes }
    }

    /// How many nodes the lattice up to `max` has, without building it.
    pub fn node_count(max: Bounds) -> u64 {
        2 * u64::from(max.idents) * u64::from(max.items) * u64::from(max.depth)
    }

    /// The top of a new lattice from a command line: bounds as [`Bounds::parse_arg`] reads
    /// them, whose lattice has at most [`MAX_NODES`] nodes.
    pub fn parse_max_bounds(s: &str) -> Result<Bounds, BoundsError> {
        let max = Bounds::parse_arg(s)?;
        Self::check_size(max)?;
        Ok(max)
    }

    /// Refuses a lattice of more than [`MAX_NODES`] nodes.
    pub fn check_size(max: Bounds) -> Result<(), BoundsError> {
        let count = Self::node_count(max);
        if count > MAX_NODES {
            return Err(BoundsError::LatticeTooLarge {
                max_bounds: max,
                nodes: count,
                max: MAX_NODES,
            });
        }
        Ok(())
    }

    pub fn max(&self) -> Bounds {
        self.max
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub fn contains(&self, node: &Node) -> bool {
        node.bounds.within(&self.max)
    }

    pub fn bottom(&self) -> Node {
        self.nodes[0]
    }

    pub fn top(&self) -> Node {
        Node::new(self.max, Restriction::Unrestricted)
    }

    /// Immediate predecessors: one bound one smaller with the same v, or the restricted node
    /// with the same bounds when `node` is unrestricted. These are the nodes whose corpora
    /// seed `node`.
    pub fn predecessors(&self, node: &Node) -> Vec<Node> {
        let b = node.bounds;
        let mut out = Vec::new();
        let smaller = [
            (b.idents > 1).then(|| Bounds {
                idents: b.idents - 1,
                ..b
            }),
            (b.items > 1).then(|| Bounds {
                items: b.items - 1,
                ..b
            }),
            (b.depth > 1).then(|| Bounds {
                depth: b.depth - 1,
                ..b
            }),
        ];
        out.extend(
            smaller
                .into_iter()
                .flatten()
                .map(|s| Node::new(s, node.validity)),
        );
        if node.validity == Restriction::Unrestricted {
            out.push(Node::new(b, Restriction::Restricted));
        }
        out.sort();
        out
    }

    /// Immediate successors within this lattice.
    pub fn successors(&self, node: &Node) -> Vec<Node> {
        let b = node.bounds;
        let mut out = Vec::new();
        let larger = [
            Bounds {
                idents: b.idents + 1,
                ..b
            },
            Bounds {
                items: b.items + 1,
                ..b
            },
            Bounds {
                depth: b.depth + 1,
                ..b
            },
        ];
        out.extend(
            larger
                .into_iter()
                .filter(|l| l.within(&self.max))
                .map(|l| Node::new(l, node.validity)),
        );
        if node.validity == Restriction::Restricted {
            out.push(Node::new(b, Restriction::Unrestricted));
        }
        out.sort();
        out
    }

    /// Nodes that may start once `done` holds every finished node: not done themselves, and
    /// with all predecessors done. Independent nodes can run in parallel.
    pub fn ready<'a>(&'a self, done: &'a dyn Fn(&Node) -> bool) -> impl Iterator<Item = Node> + 'a {
        self.nodes
            .iter()
            .filter(move |n| !done(n) && self.predecessors(n).iter().all(done))
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    fn node(s: &str) -> Node {
        s.parse().unwrap()
    }

    #[test]
    fn lattice_size_is_capped() {
        assert_eq!(
            Lattice::parse_max_bounds("10,10,10").unwrap().to_string(),
            "10,10,10"
        );
        assert_eq!(Lattice::node_count("10,10,10".parse().unwrap()), 2000);
        let err = Lattice::parse_max_bounds("100,100,100").unwrap_err();
        assert!(
            matches!(
                err,
                BoundsError::LatticeTooLarge {
                    nodes: 2_000_000,
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("2000000 nodes"), "{err}");
        assert!(Lattice::parse_max_bounds("1,1,1001").is_err());
        assert!(Lattice::parse_max_bounds("1,1,1000").is_ok());
    }

    #[test]
    fn default_lattice_has_54_nodes_from_bottom_to_top() {
        let lattice = Lattice::new(Bounds::new(3, 3, 3).unwrap());
        assert_eq!(lattice.nodes().len(), 54);
        assert_eq!(lattice.bottom(), node("F(1,1,1,r)"));
        assert_eq!(lattice.top(), node("F(3,3,3,u)"));
        assert_eq!(*lattice.nodes().last().unwrap(), lattice.top());
        assert!(lattice.predecessors(&lattice.bottom()).is_empty());
        assert!(lattice.successors(&lattice.top()).is_empty());
    }

    #[test]
    fn neighbours_match_the_paper() {
        let lattice = Lattice::new(Bounds::new(2, 2, 2).unwrap());
        // successors(F(1,1,1,r)) = {F(2,1,1,r), F(1,2,1,r), F(1,1,2,r), F(1,1,1,u)}
        let s: HashSet<Node> = lattice
            .successors(&node("F(1,1,1,r)"))
            .into_iter()
            .collect();
        let expected: HashSet<Node> = ["F(2,1,1,r)", "F(1,2,1,r)", "F(1,1,2,r)", "F(1,1,1,u)"]
            .into_iter()
            .map(node)
            .collect();
        assert_eq!(s, expected);
        // predecessors(F(2,1,1,u)) = {F(1,1,1,u), F(2,1,1,r)}
        let p: HashSet<Node> = lattice
            .predecessors(&node("F(2,1,1,u)"))
            .into_iter()
            .collect();
        assert_eq!(
            p,
            [node("F(1,1,1,u)"), node("F(2,1,1,r)")]
                .into_iter()
                .collect()
        );
    }

    #[test]
    fn covering_relation_is_the_order_without_shortcuts() {
        let lattice = Lattice::new(Bounds::new(2, 3, 2).unwrap());
        for a in lattice.nodes() {
            for b in lattice.nodes() {
                let covers = lattice.successors(a).contains(b);
                let strictly_between = lattice.nodes().iter().any(|c| {
                    c != a && c != b && a.precedes_or_equals(c) && c.precedes_or_equals(b)
                });
                let expected = a != b && a.precedes_or_equals(b) && !strictly_between;
                assert_eq!(covers, expected, "{a} -> {b}");
                assert_eq!(covers, lattice.predecessors(b).contains(a), "{a} -> {b}");
                if covers {
                    assert_eq!(b.rank(), a.rank() + 1);
                }
            }
        }
    }

    #[test]
    fn ready_nodes_respect_predecessors() {
        let lattice = Lattice::new(Bounds::new(2, 2, 2).unwrap());
        let mut done: HashSet<Node> = HashSet::new();
        let mut order = Vec::new();
        loop {
            let ready: Vec<Node> = lattice.ready(&|n| done.contains(n)).collect();
            if ready.is_empty() {
                break;
            }
            for n in &ready {
                for p in lattice.predecessors(n) {
                    assert!(done.contains(&p));
                }
            }
            // Run one at a time, as a single job would.
            done.insert(ready[0]);
            order.push(ready[0]);
        }
        assert_eq!(order.len(), lattice.nodes().len());
        assert_eq!(order[0], lattice.bottom());
        assert_eq!(*order.last().unwrap(), lattice.top());
    }

    #[test]
    fn node_names_round_trip() {
        for s in ["F(2,1,3,u)", "m2-n1-d3-u"] {
            let n = node(s);
            assert_eq!(n.to_string(), "F(2,1,3,u)");
            assert_eq!(n.slug(), "m2-n1-d3-u");
            assert_eq!(n.slug().parse::<Node>().unwrap(), n);
        }
        for bad in [
            "F(0,1,1,r)",
            "F(1,1,1,x)",
            "m1-n1-d1",
            "F(1,1,1,ru)",
            "hello",
        ] {
            assert!(bad.parse::<Node>().is_err(), "{bad}");
        }
    }
}
