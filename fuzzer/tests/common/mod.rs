//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod tree_sitter_crates;

use std::path::PathBuf;

use bonsai::grammar::{Grammar, Symbol, Terminal};
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

/// Checks a tree against all three bounds by walking it independently of the sampler:
/// children of a rule node are matched against the symbols of its alternative.
pub fn check_bounds(
    grammar: &Grammar,
    tree: &DerivationTree,
    bounds: Bounds,
) -> Result<(), String> {
    let depth = tree.nesting_depth(grammar);
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
