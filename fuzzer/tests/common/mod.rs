//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod tree_sitter_crates;

use std::path::PathBuf;

use bonsai::grammar::{DepthMeasure, Grammar, Symbol, Terminal};
use bonsai::sampler::Bounds;
use bonsai::tree::{DerivationTree, NodeId, NodeKind};

pub const SHIPPED: &[&str] = &[
    "expr",
    "cgi",
    "url",
    "json",
    "simpl",
    "chocopy",
    "starlark",
    "javascript",
];

pub fn grammar_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../grammars")
        .join(format!("{name}.ebnf"))
}

/// A file under `grammars/`, such as `antlr/Json.g4`.
pub fn grammar_file(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../grammars")
        .join(relative)
}

/// A grammar of any format under `grammars/`, imported.
pub fn imported(relative: &str) -> Grammar {
    bonsai::import::load(&grammar_file(relative))
        .unwrap_or_else(|e| panic!("{relative}: {e}"))
        .grammar
}

/// `count` inputs from `grammar` under `bounds`, each checked against the bounds.
pub fn generate_checked(grammar: &Grammar, bounds: Bounds, seed: u64, count: usize) -> Vec<String> {
    use bonsai::sampler::{Sample, Sampler};
    let mut sampler = Sampler::new(grammar, bounds).unwrap_or_else(|e| panic!("{e}"));
    let mut sample = Sample::default();
    let mut rng = libafl_bolts::rands::StdRand::with_seed(seed);
    (0..count)
        .map(|_| {
            sampler.generate(&mut rng, &mut sample);
            check_bounds(grammar, &sample.tree, bounds)
                .unwrap_or_else(|e| panic!("{}: {e}", grammar.name));
            bonsai::text::render(grammar, &sample.tree)
        })
        .collect()
}

/// Runs the `bonsai` binary; returns its exit code, stdout and stderr.
pub fn bonsai(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_bonsai"))
        .args(args)
        .output()
        .expect("the bonsai binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

pub fn shipped(name: &str) -> Grammar {
    Grammar::from_file(&grammar_path(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The depth of `tree` under the grammar's `%depth` measure, computed the slow and obvious
/// way, independently of `sampler::DepthTracker`: every root-to-leaf path's named rules are
/// listed; per rule, its count on the path; per cycle (rules that reach each other, found by
/// a transitive closure), the number of segments the path's rules of that cycle fall into when
/// a segment ends just before a rule it already holds.
pub fn nesting_depth(grammar: &Grammar, tree: &DerivationTree) -> u32 {
    let reaches = reachability(grammar);
    let nodes = tree.nodes();
    let mut deepest = 0;
    for leaf in 0..nodes.len() {
        if nodes[leaf].end as usize != leaf + 1 {
            continue;
        }
        let path: Vec<usize> = (0..=leaf)
            .filter(|&i| nodes[i].end as usize > leaf)
            .filter_map(|i| match nodes[i].kind {
                NodeKind::Rule { rule, .. } if rule.index() < grammar.named_rules => {
                    Some(rule.index())
                }
                _ => None,
            })
            .collect();
        for &r in &path {
            let depth = match grammar.depth {
                DepthMeasure::Rule => path.iter().filter(|&&p| p == r).count() as u32,
                DepthMeasure::Cycle if !reaches[r][r] => 1,
                DepthMeasure::Cycle => {
                    let mut level = 1;
                    let mut segment: Vec<usize> = Vec::new();
                    for &p in path.iter().filter(|&&p| reaches[r][p] && reaches[p][r]) {
                        if segment.contains(&p) {
                            level += 1;
                            segment.clear();
                        }
                        segment.push(p);
                    }
                    level
                }
            };
            deepest = deepest.max(depth);
        }
    }
    deepest
}

/// `reaches[a][b]`: rule a derives something containing rule b.
type Reaches = std::rc::Rc<Vec<Vec<bool>>>;

/// Which rules reach which, per grammar: the transitive closure is cubic in the rules, and
/// the checks call this for every generated input (1,400 per imported tree-sitter grammar of
/// a few hundred rules), so it is computed once per grammar and thread.
fn reachability(grammar: &Grammar) -> Reaches {
    thread_local! {
        static CACHE: std::cell::RefCell<Vec<(u64, Reaches)>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    let key = grammar.fingerprint();
    if let Some(hit) = CACHE.with(|c| {
        c.borrow()
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, r)| r.clone())
    }) {
        return hit;
    }
    let n = grammar.rules.len();
    let mut reaches = vec![vec![false; n]; n];
    for (r, rule) in grammar.rules.iter().enumerate() {
        for symbol in rule.alternatives.iter().flat_map(|a| &a.symbols) {
            if let Some(next) = Grammar::referenced_rule(symbol) {
                reaches[r][next.index()] = true;
            }
        }
    }
    for k in 0..n {
        let via = reaches[k].clone();
        for row in reaches.iter_mut().filter(|row| row[k]) {
            for (cell, &onward) in row.iter_mut().zip(&via) {
                *cell |= onward;
            }
        }
    }
    let reaches = std::rc::Rc::new(reaches);
    CACHE.with(|c| c.borrow_mut().push((key, reaches.clone())));
    reaches
}

/// Checks a tree against all three bounds by walking it independently of the sampler:
/// children of a rule node are matched against the symbols of its alternative.
pub fn check_bounds(
    grammar: &Grammar,
    tree: &DerivationTree,
    bounds: Bounds,
) -> Result<(), String> {
    let depth = nesting_depth(grammar, tree);
    if depth > bounds.depth {
        return Err(format!(
            "nesting depth {depth} exceeds d = {}",
            bounds.depth
        ));
    }
    let mut pool_values = vec![std::collections::BTreeSet::new(); grammar.pools.len()];
    for (i, node) in tree.nodes().iter().enumerate() {
        match node.kind {
            NodeKind::Rule { rule, alternative } => {
                let symbols = &grammar.rule(rule).alternatives[alternative as usize].symbols;
                let children: Vec<NodeId> = tree.children(NodeId(i as u32)).collect();
                if children.len() != symbols.len() {
                    return Err(format!(
                        "rule {} has {} children for {} symbols",
                        grammar.rule(rule).name,
                        children.len(),
                        symbols.len()
                    ));
                }
                for (child, symbol) in children.iter().zip(symbols) {
                    if let Symbol::Repeat { min, max, .. } = *symbol {
                        let items = tree.children(*child).count() as u32;
                        let limit = bounds.item_limit(min, max);
                        if items < min || items > limit {
                            return Err(format!("{items} items where {min}..={limit} are allowed"));
                        }
                    }
                }
            }
            NodeKind::Terminal { terminal, value } => {
                if let Terminal::Pool(p) = grammar.terminal(terminal) {
                    if value >= bounds.idents {
                        return Err(format!("pool index {value} with m = {}", bounds.idents));
                    }
                    pool_values[p.index()].insert(value);
                }
            }
            _ => {}
        }
    }
    for (p, values) in pool_values.iter().enumerate() {
        if values.len() as u32 > bounds.idents {
            return Err(format!(
                "pool {} uses {} distinct values",
                grammar.pools[p].name,
                values.len()
            ));
        }
    }
    Ok(())
}
