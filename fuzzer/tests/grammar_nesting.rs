//! Nesting in a grammar is bounded: ten thousand parentheses (or stacked repetitions, or
//! groups in a fuzzingbook expansion, or blocks in ANTLR) are refused with an error at the
//! parenthesis that goes too deep, in every format, instead of overflowing the loader's
//! stack; the deepest nesting allowed loads, generates and is checked.
//!
//! Each load runs on a thread with the main thread's 8 MiB stack, the stack `bonsai` has.

use bonsai::analysis::Analysis;
use bonsai::diagnostic::{Diagnostics, SourceFile};
use bonsai::import;
use bonsai::sampler::{Bounds, Sample, Sampler};
use libafl_bolts::rands::StdRand;

/// The limit the loader documents (`grammar::syntax::MAX_NESTING`).
const LIMIT: usize = 256;

fn load(name: &str, text: String) -> Result<bonsai::grammar::Grammar, Diagnostics> {
    let name = name.to_string();
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            let source = SourceFile::new(&name, text);
            let grammar = import::from_source(&source)?.grammar;
            // Everything after loading walks the grammar too.
            let analysis = Analysis::new(&grammar);
            analysis.check(&grammar)?;
            let mut sampler =
                Sampler::new(&grammar, Bounds::new(2, 2, 2).unwrap()).map_err(Diagnostics::from)?;
            let mut sample = Sample::default();
            for seed in 0..4 {
                sampler.generate(&mut StdRand::with_seed(seed), &mut sample);
            }
            Ok(grammar)
        })
        .unwrap()
        .join()
        .expect("the load did not crash")
}

/// The error is located at the offending character of `text`, and says why.
fn assert_refused_at(result: Result<bonsai::grammar::Grammar, Diagnostics>, text: &str) {
    let errors = result.expect_err("refused").0;
    let error = &errors[0];
    assert!(
        error.message.contains("nests deeper than 256 levels"),
        "{}",
        error.message
    );
    let location = error.location.as_ref().expect("located");
    let line = text.lines().nth(location.line - 1).unwrap();
    let at: String = line.chars().skip(location.column - 1).take(1).collect();
    assert!(
        at == "(" || at == "?",
        "{location:?} points at {at:?}, not at the nesting"
    );
}

fn ebnf(depth: usize) -> String {
    format!(
        "s = {}\"b\"{} ;\n",
        "(\"a\" ".repeat(depth),
        ")?".repeat(depth)
    )
}

#[test]
fn ebnf_parentheses_and_repetitions_are_bounded() {
    assert!(load("ok.ebnf", ebnf(LIMIT / 2)).is_ok());
    let deep = ebnf(10_000);
    assert_refused_at(load("deep.ebnf", deep.clone()), &deep);
    let lone = format!("s = {}\"a\"{} ;\n", "(".repeat(10_000), ")".repeat(10_000));
    assert_refused_at(load("lone.ebnf", lone.clone()), &lone);
    let stacked = format!("s = \"a\"{} ;\n", "?".repeat(10_000));
    assert_refused_at(load("stacked.ebnf", stacked.clone()), &stacked);
    assert!(load("ok.ebnf", format!("s = \"a\"{} ;\n", "?".repeat(LIMIT))).is_ok());
}

#[test]
fn antlr_blocks_are_bounded() {
    let g4 = |depth: usize| {
        format!(
            "grammar deep;\ns : {}'b'{} ;\n",
            "('a' ".repeat(depth),
            ")?".repeat(depth)
        )
    };
    assert!(load("ok.g4", g4(LIMIT - 1)).is_ok());
    let deep = g4(10_000);
    assert_refused_at(load("deep.g4", deep.clone()), &deep);
}

#[test]
fn fuzzingbook_groups_are_bounded() {
    let json = |depth: usize| {
        format!(
            "{{\"<start>\": [\"{}x{}\"]}}\n",
            "(a".repeat(depth),
            ")?".repeat(depth)
        )
    };
    assert!(load("ok.json", json(LIMIT)).is_ok());
    let deep = json(2_000);
    assert_refused_at(load("deep.json", deep.clone()), &deep);
}
