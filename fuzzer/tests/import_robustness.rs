//! Bad input never panics an importer: grammar files of every format, cut and spliced at
//! random, are either imported or refused with diagnostics.

mod common;

use bonsai::diagnostic::SourceFile;
use bonsai::import;
use common::grammar_file;
use proptest::prelude::*;
use std::sync::LazyLock;

static FILES: LazyLock<Vec<(String, Vec<char>)>> = LazyLock::new(|| {
    [
        "antlr/Json.g4",
        "antlr/Arith.g4",
        "antlr/Tiny.g4",
        "fuzzingbook/json.json",
        "fuzzingbook/url.json",
    ]
    .iter()
    .map(|name| {
        let text = std::fs::read_to_string(grammar_file(name)).unwrap();
        (
            name.rsplit('/').next().unwrap().to_string(),
            text.chars().collect(),
        )
    })
    .chain(std::iter::once((
        "grammar.json".to_string(),
        std::fs::read_to_string(common::tree_sitter_crates::grammar_json("tree-sitter-json"))
            .unwrap()
            .chars()
            .collect(),
    )))
    .collect()
});

/// Characters that matter to the formats' syntax.
const SYNTAX: &[char] = &[
    '{', '}', '[', ']', '(', ')', '<', '>', '"', '\'', '\\', ':', ';', '|', '*', '+', '?', '~',
    '.', ',', '-', '#', '/', 'u', 'a', '\n', ' ',
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn mutated_files_import_or_fail_with_diagnostics(
        file in 0..6usize,
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0..8usize, prop::collection::vec(prop::sample::select(SYNTAX), 0..4)), 1..4),
    ) {
        let (name, original) = &FILES[file];
        let mut chars = original.clone();
        for (at, cut, insert) in edits {
            let start = at.index(chars.len() + 1);
            let end = (start + cut).min(chars.len());
            chars.splice(start..end, insert);
        }
        let text: String = chars.into_iter().collect();
        match import::from_source(&SourceFile::new(name, text)) {
            Ok(imported) => {
                // An imported grammar is usable: analysis runs on it.
                let _ = bonsai::analysis::Analysis::new(&imported.grammar).check(&imported.grammar);
            }
            Err(diagnostics) => prop_assert!(diagnostics.errors().next().is_some()),
        }
    }
}
