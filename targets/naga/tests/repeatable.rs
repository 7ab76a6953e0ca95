//! naga's coverage repeats run after run: generated inputs replay to the same edges in two
//! processes, and one input to the same edges in ten forked runs.

#[path = "../../../fuzzer/tests/support/repeatable.rs"]
mod repeatable;

use std::path::PathBuf;

#[test]
fn generated_inputs_cover_the_same_edges_in_two_replays_and_ten_forked_runs() {
    let grammar = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../grammars/wgsl.ebnf");
    repeatable::assert_generated_inputs_repeat(env!("CARGO_BIN_EXE_bonsai-naga"), "naga", &grammar);
}
