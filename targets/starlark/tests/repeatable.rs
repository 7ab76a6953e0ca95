//! starlark-rust's coverage repeats run after run. Before the forked runner pinned hash seeds
//! and the heap, two replays of corpus/starlark disagreed on 391 of its 523 inputs (by 1 to 10
//! edges), and an input replayed alone covered other edges than inside its corpus.

#[path = "../../../fuzzer/tests/support/repeatable.rs"]
mod repeatable;

use std::path::PathBuf;

const BINARY: &str = env!("CARGO_BIN_EXE_bonsai-starlark");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_input_of_the_committed_corpus_covers_the_same_edges_in_two_replays() {
    repeatable::assert_corpus_replays_identically(
        BINARY,
        "starlark",
        &root().join("grammars/starlark.ebnf"),
        &root().join("corpus/starlark"),
    );
}

#[test]
fn one_input_covers_the_same_edges_in_ten_forked_runs() {
    // The corpus's largest input: the most code, the most hash maps.
    let corpus = root().join("corpus/starlark");
    let largest = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "star"))
        .max_by_key(|p| (std::fs::metadata(p).unwrap().len(), p.clone()))
        .unwrap();
    repeatable::assert_input_repeats(
        BINARY,
        "starlark",
        &root().join("grammars/starlark.ebnf"),
        &largest.with_extension("choices"),
        10,
    );
}
