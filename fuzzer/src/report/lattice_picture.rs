//! The lattice as a picture: one box per node, placed by its longest chain of predecessors
//! (so seeding always flows left to right), an arrow from each predecessor that seeds it,
//! shaded by how many inputs of the top corpus the node found first, the top node outlined.
//! A table of 54 rows does not show where the corpus came from; this does at a glance.
//!
//! Drawn as plain SVG rather than with plotters, which draws charts over axes, not graphs.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::facts::NodeFacts;

const BOX_W: f64 = 118.0;
const BOX_H: f64 = 34.0;
const COLUMN: f64 = 150.0;
const ROW: f64 = 46.0;
const MARGIN: f64 = 16.0;

/// The SVG of the lattice of `nodes` (in lattice order, predecessors first), `top` outlined.
pub fn draw(nodes: &[NodeFacts], top: usize) -> String {
    let index: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i))
        .collect();
    // Lattice order lists predecessors first, so one pass finds every rank.
    let mut rank = vec![0usize; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        rank[i] = node
            .predecessors
            .iter()
            .filter_map(|p| index.get(p.as_str()).filter(|&&j| j < i))
            .map(|&j| rank[j] + 1)
            .max()
            .unwrap_or(0);
    }
    let mut row = vec![0usize; nodes.len()];
    let mut filled: HashMap<usize, usize> = HashMap::new();
    for (i, &r) in rank.iter().enumerate() {
        let next = filled.entry(r).or_default();
        row[i] = *next;
        *next += 1;
    }
    let rows = filled.values().copied().max().unwrap_or(1);
    let columns = rank.iter().copied().max().map_or(1, |r| r + 1);
    let width = 2.0 * MARGIN + (columns - 1) as f64 * COLUMN + BOX_W;
    let height = 2.0 * MARGIN + (rows - 1) as f64 * ROW + BOX_H + 22.0;
    let at = |i: usize| {
        (
            MARGIN + rank[i] as f64 * COLUMN,
            MARGIN + row[i] as f64 * ROW,
        )
    };
    let most = nodes
        .iter()
        .map(|n| n.contributed)
        .max()
        .unwrap_or(0)
        .max(1);

    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" \
         markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#999\"/></marker></defs>\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    for (i, node) in nodes.iter().enumerate() {
        for p in &node.predecessors {
            let Some(&j) = index.get(p.as_str()) else {
                continue;
            };
            let ((x0, y0), (x1, y1)) = (at(j), at(i));
            let _ = writeln!(
                svg,
                "<line class=\"seeds\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" \
                 stroke=\"#bbb\" stroke-width=\"1.2\" marker-end=\"url(#arrow)\"><title>{} seeds {}</title></line>",
                x0 + BOX_W,
                y0 + BOX_H / 2.0,
                x1,
                y1 + BOX_H / 2.0,
                escape(p),
                escape(&node.name)
            );
        }
    }
    for (i, node) in nodes.iter().enumerate() {
        let (x, y) = at(i);
        let share = node.contributed as f64 / most as f64;
        // White for nothing, deepening green for the largest contribution.
        let shade = |full: f64| (255.0 - share * (255.0 - full)).round() as u8;
        let fill = format!(
            "#{:02x}{:02x}{:02x}",
            shade(46.0),
            shade(139.0),
            shade(87.0)
        );
        let (class, stroke, stroke_width) = if i == top {
            ("node top", "#000", 3.0)
        } else {
            ("node", "#666", 1.0)
        };
        let text = if share > 0.55 { "white" } else { "#222" };
        let _ = writeln!(
            svg,
            "<g class=\"{class}\"><title>{name}: {contributed} inputs of the top corpus, {edges} edges</title>\
             <rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{BOX_W}\" height=\"{BOX_H}\" rx=\"4\" fill=\"{fill}\" \
             stroke=\"{stroke}\" stroke-width=\"{stroke_width}\"/>\
             <text x=\"{tx:.1}\" y=\"{ty1:.1}\" text-anchor=\"middle\" fill=\"{text}\">{name}</text>\
             <text x=\"{tx:.1}\" y=\"{ty2:.1}\" text-anchor=\"middle\" fill=\"{text}\" font-size=\"10\">{contributed} in top corpus</text></g>",
            name = escape(&node.name),
            contributed = node.contributed,
            edges = node.edges,
            tx = x + BOX_W / 2.0,
            ty1 = y + 14.0,
            ty2 = y + 27.0,
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{MARGIN}\" y=\"{:.1}\" fill=\"#555\">Arrows: seeding, left to right. Shade: inputs of the top corpus found first there. Outlined: the top node.</text>\n</svg>",
        height - 8.0
    );
    svg
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, predecessors: &[&str], contributed: usize) -> NodeFacts {
        NodeFacts {
            name: name.into(),
            predecessors: predecessors.iter().map(|p| p.to_string()).collect(),
            contributed,
            ..NodeFacts::default()
        }
    }

    /// The `x` of the box of `name`.
    fn column(svg: &str, name: &str) -> f64 {
        let group = &svg[svg.find(&format!("<title>{name}: ")).unwrap()..];
        let x = &group[group.find("x=\"").unwrap() + 3..];
        x[..x.find('"').unwrap()].parse().unwrap()
    }

    #[test]
    fn a_node_stands_right_of_its_longest_chain_of_predecessors() {
        let nodes = [
            node("a", &[], 0),
            node("b", &["a"], 3),
            node("c", &["a", "b"], 6),
            node("d", &["a", "elsewhere"], 0),
        ];
        let svg = draw(&nodes, 2);
        assert_eq!(column(&svg, "a"), MARGIN);
        assert_eq!(column(&svg, "b"), MARGIN + COLUMN);
        assert_eq!(column(&svg, "c"), MARGIN + 2.0 * COLUMN);
        assert_eq!(column(&svg, "d"), MARGIN + COLUMN);
        // An arrow per known predecessor; the unknown one is left out.
        assert_eq!(svg.matches("class=\"seeds\"").count(), 4, "{svg}");
        // The largest contributor in full green, nothing in white, the top outlined.
        assert!(
            svg.contains("<g class=\"node top\"><title>c: 6 inputs"),
            "{svg}"
        );
        assert!(svg.contains("fill=\"#2e8b57\""), "{svg}");
        assert_eq!(svg.matches("fill=\"#ffffff\"").count(), 2, "{svg}");
    }
}
