//! naga's coverage repeats run after run: generated inputs replay to the same edges in two
//! processes, and one input to the same edges in ten forked runs.

#[path = "../../../fuzzer/tests/support/repeatable.rs"]
mod repeatable;

use std::path::PathBuf;

const BINARY: &str = env!("CARGO_BIN_EXE_bonsai-naga");

fn grammar() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../grammars/wgsl.ebnf")
}

#[test]
fn generated_inputs_cover_the_same_edges_in_two_replays_and_ten_forked_runs() {
    let inputs = repeatable::generated_inputs(BINARY, &grammar(), 150, 11);
    repeatable::assert_corpus_replays_identically(BINARY, "naga", &grammar(), inputs.path());
    let largest = std::fs::read_dir(inputs.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .max_by_key(|p| (std::fs::metadata(p).unwrap().len(), p.clone()))
        .unwrap();
    repeatable::assert_input_repeats(
        BINARY,
        "naga",
        &grammar(),
        &largest.with_extension("choices"),
        10,
    );
}
