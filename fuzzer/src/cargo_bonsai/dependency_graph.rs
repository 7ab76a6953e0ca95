//! The crates a harness build compiles and who depends on whom, from `cargo metadata` with
//! dependencies: which crates the engine's build shares with the user's (a crate both use
//! cannot change its instrumentation without rebuilding the engine), and which crates the
//! user's crates call directly (the parser a wrapper crate hands its input to).

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

/// Packages by id, with their library crate names (as rustc names them) and normal
/// dependencies (build scripts' and tests' left out: they are not linked into the harness).
pub struct DependencyGraph {
    crate_names: HashMap<String, String>,
    edges: HashMap<String, Vec<String>>,
}

impl DependencyGraph {
    /// Reads `cargo metadata --format-version 1` output (with dependencies and `resolve`).
    pub fn from_metadata(metadata: &Value) -> DependencyGraph {
        let mut crate_names = HashMap::new();
        for package in metadata["packages"].as_array().into_iter().flatten() {
            let Some(id) = package["id"].as_str() else {
                continue;
            };
            let lib = package["targets"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|t| {
                    t["kind"].as_array().is_some_and(|kinds| {
                        kinds
                            .iter()
                            .any(|k| matches!(k.as_str(), Some("lib" | "rlib" | "dylib")))
                    })
                })
                .and_then(|t| t["name"].as_str());
            if let Some(name) = lib {
                crate_names.insert(id.to_string(), name.replace('-', "_"));
            }
        }
        let mut edges = HashMap::new();
        for node in metadata["resolve"]["nodes"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let Some(id) = node["id"].as_str() else {
                continue;
            };
            let deps = node["deps"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|dep| {
                    dep["dep_kinds"]
                        .as_array()
                        .is_none_or(|kinds| kinds.iter().any(|k| k["kind"].is_null()))
                })
                .filter_map(|dep| dep["pkg"].as_str().map(str::to_string))
                .collect();
            edges.insert(id.to_string(), deps);
        }
        DependencyGraph { crate_names, edges }
    }

    fn ids_of<'a>(&'a self, names: &'a [&str]) -> impl Iterator<Item = &'a String> + 'a {
        self.crate_names
            .iter()
            .filter(|(_, name)| names.contains(&name.as_str()))
            .map(|(id, _)| id)
    }

    /// The crates `roots` depend on directly, the roots themselves and `never` left out.
    pub fn direct_dependencies(&self, roots: &[&str], never: &[&str]) -> Vec<String> {
        let names: BTreeSet<&String> = self
            .ids_of(roots)
            .flat_map(|id| self.edges.get(id).into_iter().flatten())
            .filter_map(|dep| self.crate_names.get(dep))
            .filter(|name| !never.contains(&name.as_str()) && !roots.contains(&name.as_str()))
            .collect();
        names.into_iter().cloned().collect()
    }

    /// The crates `roots` depend on, directly or not, with the roots.
    pub fn closure(&self, roots: &[&str]) -> BTreeSet<String> {
        let mut seen: BTreeSet<&String> = self.ids_of(roots).collect();
        let mut stack: Vec<&String> = seen.iter().copied().collect();
        while let Some(id) = stack.pop() {
            for dep in self.edges.get(id).into_iter().flatten() {
                if seen.insert(dep) {
                    stack.push(dep);
                }
            }
        }
        seen.into_iter()
            .filter_map(|id| self.crate_names.get(id).cloned())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A harness over a wrapper of a SQL parser, and the engine: serde is both sides'.
    fn metadata() -> Value {
        let package = |name: &str| {
            serde_json::json!({
                "id": format!("{name} 0.1.0"),
                "name": name,
                "targets": [{"kind": ["lib"], "name": name}],
            })
        };
        let node = |name: &str, deps: &[(&str, Option<&str>)]| {
            let deps: Vec<Value> = deps
                .iter()
                .map(|&(d, kind)| {
                    serde_json::json!({
                        "name": d,
                        "pkg": format!("{d} 0.1.0"),
                        "dep_kinds": [{"kind": kind}],
                    })
                })
                .collect();
            serde_json::json!({"id": format!("{name} 0.1.0"), "deps": deps})
        };
        let all = [
            "harness",
            "wrapper",
            "sql-parser",
            "lexer",
            "serde",
            "bonsai",
            "libafl",
            "proptest",
            "cc",
        ];
        serde_json::json!({
            "packages": all.iter().map(|n| package(n)).collect::<Vec<_>>(),
            "resolve": {"nodes": [
                node("harness", &[("wrapper", None), ("bonsai", None)]),
                node("wrapper", &[("sql-parser", None), ("serde", None), ("proptest", Some("dev"))]),
                node("sql-parser", &[("lexer", None)]),
                node("bonsai", &[("libafl", None), ("serde", None), ("cc", Some("build"))]),
                node("lexer", &[]), node("serde", &[]), node("libafl", &[]), node("proptest", &[]),
                node("cc", &[]),
            ]},
        })
    }

    #[test]
    fn direct_dependencies_are_the_user_crates_own_calls() {
        let graph = DependencyGraph::from_metadata(&metadata());
        // serde is the wrapper's too; the lexer is the parser's; proptest is for tests.
        assert_eq!(
            graph.direct_dependencies(&["wrapper"], &["bonsai"]),
            ["serde", "sql_parser"]
        );
        // A member that depends on the engine does not bring the engine in.
        assert_eq!(
            graph.direct_dependencies(&["harness", "wrapper"], &["bonsai"]),
            ["serde", "sql_parser"]
        );
    }

    #[test]
    fn the_engine_s_closure_holds_what_its_build_links() {
        let graph = DependencyGraph::from_metadata(&metadata());
        let engine: Vec<String> = graph.closure(&["bonsai"]).into_iter().collect();
        assert_eq!(engine, ["bonsai", "libafl", "serde"]);
        assert!(graph.closure(&["wrapper"]).contains("lexer"));
    }
}
