//! The tree-sitter grammar crates the importer is tested on, located through `cargo metadata`
//! as a user's build would find them: each ships its `src/grammar.json`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::LazyLock;

pub struct GrammarCrate {
    pub package: &'static str,
    pub language: fn() -> tree_sitter::Language,
}

pub const CRATES: &[GrammarCrate] = &[
    GrammarCrate {
        package: "tree-sitter-json",
        language: || tree_sitter_json::LANGUAGE.into(),
    },
    GrammarCrate {
        package: "tree-sitter-javascript",
        language: || tree_sitter_javascript::LANGUAGE.into(),
    },
    GrammarCrate {
        package: "tree-sitter-lua",
        language: || tree_sitter_lua::LANGUAGE.into(),
    },
    GrammarCrate {
        package: "tree-sitter-starlark",
        language: || tree_sitter_starlark::LANGUAGE.into(),
    },
    GrammarCrate {
        package: "tree-sitter-python",
        language: || tree_sitter_python::LANGUAGE.into(),
    },
    GrammarCrate {
        package: "tree-sitter-rust",
        language: || tree_sitter_rust::LANGUAGE.into(),
    },
];

/// Package name -> its `src/grammar.json`, for every tree-sitter package in the build.
static GRAMMAR_FILES: LazyLock<HashMap<String, PathBuf>> = LazyLock::new(|| {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(&manifest)
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    metadata["packages"]
        .as_array()
        .expect("a package list")
        .iter()
        .filter_map(|p| {
            let name = p["name"].as_str()?;
            let manifest = PathBuf::from(p["manifest_path"].as_str()?);
            let dir = manifest.parent()?;
            name.starts_with("tree-sitter-")
                .then(|| (name.to_string(), dir.join("src/grammar.json")))
        })
        .collect()
});

/// The `grammar.json` of `package`; panics with a clear message when the crate or its file
/// is missing.
pub fn grammar_json(package: &str) -> PathBuf {
    let path = GRAMMAR_FILES
        .get(package)
        .unwrap_or_else(|| panic!("{package} is not a dependency of this build (cargo metadata)"));
    assert!(
        path.is_file(),
        "{package} ships no src/grammar.json at {}",
        path.display()
    );
    path.clone()
}

pub fn version(package: &str) -> String {
    grammar_json(package)
        .parent()
        .and_then(|p| p.parent())
        .and_then(|p| p.file_name())
        .map(|n| {
            n.to_string_lossy()
                .trim_start_matches(package)
                .trim_start_matches('-')
                .to_string()
        })
        .unwrap_or_default()
}
