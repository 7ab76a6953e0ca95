//! The engine's top-level modules form no cycle: each stage depends only on stages above it
//! (ARCHITECTURE.md). A use of `crate::m` anywhere in module `n`'s files, outside comments and
//! test code, is an edge n → m; a new back edge fails this test with the cycle it closes.
//! The grammar toolkit's modules (crate `bonsai-grammar`, `fuzzer/grammar/src`) are read into
//! the same graph: the engine re-exports them under the same names, so `crate::grammar` means
//! one module on both sides. The engine's `choice` adds to the toolkit's; they count as one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn source_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).unwrap() {
        files.extend(source_files(&entry.unwrap().path()));
    }
    files
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "rs"))
        .collect()
}

/// The modules `text` names as `crate::m`, outside comments and the test module at its end.
fn used_modules(text: &str) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut used = BTreeSet::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for (at, _) in line.match_indices("crate::") {
            let rest = &line[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            if !name.is_empty() {
                used.insert(name);
            }
        }
    }
    used
}

fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut modules: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for src in [manifest_dir.join("src"), manifest_dir.join("grammar/src")] {
        for entry in std::fs::read_dir(&src).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if name == "lib" || name == "main" {
                continue;
            }
            modules.entry(name).or_default().push(path);
        }
    }
    let names: BTreeSet<String> = modules.keys().cloned().collect();
    modules
        .iter()
        .map(|(name, paths)| {
            let mut uses = BTreeSet::new();
            for file in paths.iter().flat_map(|path| source_files(path)) {
                let text = std::fs::read_to_string(&file).unwrap();
                uses.extend(
                    used_modules(&text)
                        .into_iter()
                        .filter(|m| m != name && names.contains(m)),
                );
            }
            (name.clone(), uses)
        })
        .collect()
}

/// A cycle of `graph` as the list of its modules, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // 0 unvisited, 1 on the current path, 2 done.
    fn visit<'a>(
        node: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        state.insert(node, 1);
        path.push(node);
        for next in &graph[node] {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = path.iter().position(|n| n == next).unwrap();
                    let mut cycle: Vec<String> =
                        path[start..].iter().map(|s| s.to_string()).collect();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(cycle) = visit(next, graph, state, path) {
                        return Some(cycle);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(node, 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if state.get(node.as_str()).copied().unwrap_or(0) == 0
            && let Some(cycle) = visit(node, graph, &mut state, &mut Vec::new())
        {
            return Some(cycle);
        }
    }
    None
}

#[test]
fn top_level_modules_form_no_cycle() {
    let graph = module_graph();
    assert!(graph.len() > 20, "modules not found: {graph:?}");
    assert!(graph["sampler"].contains("grammar"), "edges not found");
    assert!(
        graph["mutators"].contains("sampler"),
        "engine edges not found"
    );
    if let Some(cycle) = find_cycle(&graph) {
        panic!("a cycle between top-level modules: {}", cycle.join(" -> "));
    }
}

#[test]
fn the_check_finds_a_cycle() {
    let edge = |a: &str, b: &[&str]| {
        (
            a.to_string(),
            b.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(),
        )
    };
    let acyclic: BTreeMap<_, _> = [edge("a", &["b"]), edge("b", &["c"]), edge("c", &[])].into();
    assert_eq!(find_cycle(&acyclic), None);
    let cyclic: BTreeMap<_, _> = [edge("a", &["b"]), edge("b", &["c"]), edge("c", &["a"])].into();
    assert_eq!(find_cycle(&cyclic).unwrap().len(), 4);
    assert_eq!(
        used_modules("use crate::grammar::X;\n// crate::cli\nfn f() { crate::fs_util::g() }"),
        ["fs_util", "grammar"].map(String::from).into()
    );
}
