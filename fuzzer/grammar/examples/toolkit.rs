//! The grammar toolkit used as a library, without the fuzzer: load a grammar, generate inputs,
//! parse a seed file to its choices, measure the grammar coverage of both, and write a cover
//! suite and a negative suite. `docs/book/src/grammar-library.md` walks through this file, one
//! function per step (the `ANCHOR` comments mark the pieces it includes).
//!
//! ```text
//! cargo run -p bonsai-grammar --example toolkit -- [GRAMMAR [SEED [OUT]]]
//! ```
//!
//! With no arguments it uses the Starlark grammar and the seed `corpus/starlark/0540.star`, and
//! writes into `target/grammar-example` (which must not exist yet or be empty).

// ANCHOR: imports
use std::path::{Path, PathBuf};

use bonsai_grammar::analysis::Analysis;
use bonsai_grammar::bounds::{Bounds, MAX_BOUND};
use bonsai_grammar::choice::SavedChoices;
use bonsai_grammar::coverage::{Criterion, CriterionReport, Requirements, Tally};
use bonsai_grammar::diagnostic::{Diagnostic, Diagnostics};
use bonsai_grammar::fs_util::{create_dir, has_entries, write_atomic};
use bonsai_grammar::grammar::Grammar;
use bonsai_grammar::parse::{ParseOptions, Parser, with_large_stack};
use bonsai_grammar::rands::StdRand;
use bonsai_grammar::sampler::{Sample, Sampler};
use bonsai_grammar::text::render;
use bonsai_grammar::tree::DerivationTree;
use bonsai_grammar::{cover, import, negative};
// ANCHOR_END: imports

fn main() -> std::process::ExitCode {
    // The repository root, two levels above this crate (fuzzer/grammar).
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the crate lies two levels below the repository root");
    let mut args = std::env::args_os().skip(1).map(PathBuf::from);
    let grammar = args
        .next()
        .unwrap_or_else(|| root.join("grammars/starlark.ebnf"));
    let seed = args
        .next()
        .unwrap_or_else(|| root.join("corpus/starlark/0540.star"));
    let out = args
        .next()
        .unwrap_or_else(|| root.join("target/grammar-example"));
    match run(&grammar, &seed, &out) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(diagnostics) => {
            eprintln!("{diagnostics}");
            std::process::ExitCode::from(2)
        }
    }
}

// ANCHOR: run
fn run(grammar_path: &Path, seed_path: &Path, out: &Path) -> Result<(), Diagnostics> {
    if has_entries(out) {
        return Err(failed(format!("{} is not empty", out.display())));
    }
    create_dir(out)?;
    let (grammar, analysis) = load(grammar_path)?;
    let mut trees = generate(&grammar, 20)?;
    println!("generated, for example:\n{}", render(&grammar, &trees[0]));
    trees.push(parse_seed(&grammar, seed_path, &out.join("seed.choices"))?);
    measure(&grammar, &analysis, &trees);
    let cover_words = write_cover_suite(&grammar, &analysis, &out.join("cover"))?;
    write_negative_suite(&grammar, &analysis, &cover_words, &out.join("negative"))
}
// ANCHOR_END: run

/// Errors of any step as diagnostics, the toolkit's one error type for what a user hands in.
fn failed(why: impl std::fmt::Display) -> Diagnostics {
    Diagnostic::error(why.to_string()).into()
}

// ANCHOR: load
/// Any format `bonsai import` reads (native EBNF, tree-sitter, ANTLR4, fuzzingbook), with the
/// analysis every later step needs; `check` refuses a grammar that derives no word.
fn load(path: &Path) -> Result<(Grammar, Analysis), Diagnostics> {
    let imported = import::load(path)?;
    let grammar = imported.grammar;
    let analysis = Analysis::new(&grammar);
    for warning in analysis.check(&grammar)? {
        eprintln!("{warning}");
    }
    Ok((grammar, analysis))
}
// ANCHOR_END: load

// ANCHOR: generate
/// `count` random derivations within bounds m = 3, n = 4, d = 12. The generator is seeded, so
/// every run draws the same ones; each sample's `choices` replay to its `tree`.
fn generate(grammar: &Grammar, count: usize) -> Result<Vec<DerivationTree>, Diagnostics> {
    let bounds = Bounds::new(3, 4, 12).map_err(failed)?;
    let mut sampler = Sampler::new(grammar, bounds)?;
    let mut rng = StdRand::with_seed(7);
    let mut sample = Sample::default();
    let mut trees = Vec::with_capacity(count);
    for _ in 0..count {
        sampler.generate(&mut rng, &mut sample);
        trees.push(sample.tree.clone());
    }
    Ok(trees)
}
// ANCHOR_END: generate

// ANCHOR: parse
/// The seed's derivation in the sampler's shape, and its choices saved to `choices` (what
/// `bonsai parse --to-choices` writes, and the fuzzer reads). Deep inputs recurse deeply,
/// hence the large stack.
fn parse_seed(
    grammar: &Grammar,
    seed: &Path,
    choices: &Path,
) -> Result<DerivationTree, Diagnostics> {
    let bytes = std::fs::read(seed)
        .map_err(|e| Diagnostic::error(format!("cannot read: {e}")).in_file(seed))?;
    let parsed = with_large_stack(|| {
        Parser::new(grammar).parse_bytes(&bytes, ParseOptions::keeping_words())
    })
    .map_err(|e| e.diagnostic(seed, &String::from_utf8_lossy(&bytes)))?;
    println!(
        "{}: {} choices, within bounds {}",
        seed.display(),
        parsed.choices.len(),
        parsed.bounds
    );
    SavedChoices {
        grammar: grammar.fingerprint(),
        bounds: parsed.bounds,
        choices: parsed.choices,
        words: parsed.words,
    }
    .write(choices)?;
    Ok(parsed.tree)
}
// ANCHOR_END: parse

// ANCHOR: coverage
/// What `trees` cover per criterion, against what the grammar's feasible part requires, with
/// the first few items missing (as `bonsai coverage` prints them).
fn measure(grammar: &Grammar, analysis: &Analysis, trees: &[DerivationTree]) {
    let criteria = [Criterion::Symbol, Criterion::Rule, Criterion::KPath(2)];
    let mut tally = Tally::for_grammar(grammar, &criteria);
    for tree in trees {
        tally.add(tree);
    }
    let requirements = Requirements::new(grammar, analysis);
    for criterion in criteria {
        let report = CriterionReport::new(grammar, &requirements, &tally, criterion);
        print!("{}", report.text(3));
    }
}
// ANCHOR_END: coverage

// ANCHOR: cover
/// Short words that together use every production (the `rule` criterion), each written into
/// `dir` as `NNNN.txt` with the `NNNN.choices` that replay it, as `bonsai cover` writes them.
/// Returns the words' derivations.
fn write_cover_suite(
    grammar: &Grammar,
    analysis: &Analysis,
    dir: &Path,
) -> Result<Vec<DerivationTree>, Diagnostics> {
    let widest = Bounds::new(1, MAX_BOUND, MAX_BOUND).map_err(failed)?;
    let suite = with_large_stack(|| cover::cover(grammar, analysis, Criterion::Rule, widest))
        .map_err(failed)?;
    create_dir(dir)?;
    for (i, word) in suite.words.iter().enumerate() {
        let stem = dir.join(format!("{:04}", i + 1));
        write_atomic(&stem.with_extension("txt"), word.text.as_bytes())?;
        SavedChoices {
            grammar: grammar.fingerprint(),
            bounds: word.bounds,
            choices: word.choices.clone(),
            words: Default::default(),
        }
        .write(&stem.with_extension("choices"))?;
    }
    println!(
        "cover suite: {} words for {} productions in {}",
        suite.words.len(),
        suite.required,
        dir.display()
    );
    Ok(suite.words.into_iter().map(|word| word.tree).collect())
}
// ANCHOR_END: cover

// ANCHOR: negative
/// At most 50 words outside the language, mutated from `positives`, written into `dir` as
/// `NNNN.txt` with `manifest.json`: for each word, where a correct parser must reject it.
fn write_negative_suite(
    grammar: &Grammar,
    analysis: &Analysis,
    positives: &[DerivationTree],
    dir: &Path,
) -> Result<(), Diagnostics> {
    let names: Vec<String> = (1..=positives.len())
        .map(|i| format!("cover word {i}"))
        .collect();
    let operators = negative::Operators {
        word: true,
        rule: true,
    };
    let (negatives, summary) = with_large_stack(|| {
        negative::generate(grammar, analysis, positives, &names, operators, 50)
    });
    create_dir(dir)?;
    negative::write_suite(dir, &grammar.name, &negatives, &summary)?;
    println!(
        "negative suite: {} words in {}",
        negatives.len(),
        dir.display()
    );
    Ok(())
}
// ANCHOR_END: negative
