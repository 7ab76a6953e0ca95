//! Reduction: grammar-aware HDD (with hoisting through any context, and with contexts that add
//! no text only) against character ddmin (lines, then characters) and HDD
//! followed by ddmin, the two reducers of the Bonsai paper's fuzz-then-reduce baseline, on the
//! same generated ChocoPy and Starlark inputs at bounds (3,3,3).
//!
//! Two synthetic criteria stand in for a target:
//! - `contains`: the text still contains a keyword. Pure text, ddmin's best case: any text
//!   with the keyword passes, valid or not.
//! - `parses+contains`: the text also parses without error under tree-sitter's Python (for
//!   ChocoPy, a Python subset) or Starlark grammar. This is how a compiler behaves: an invalid
//!   input is rejected before the code that the criterion is about, so a reducer whose
//!   candidates break the syntax wastes its tests.
//!
//! Sizes, tests (criterion evaluations) and the share of results that still parse come from one
//! deterministic pass; times per input come from criterion's estimates of this run, read back
//! from its `estimates.json`, so every ratio compares figures measured in the same run.

use std::cell::Cell;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use bonsai::grammar::Grammar;
use bonsai::reduce::{
    Candidate, Criterion as ReductionCriterion, Hdd, HddOptions, Judge, Strategy,
};
use bonsai::sampler::{Bounds, Sample, Sampler};
use bonsai::text::render;
use criterion::Criterion;
use libafl_bolts::rands::StdRand;

const BOUNDS: &str = "3,3,3";
/// Inputs reduced per benchmark iteration.
const INPUTS: usize = 10;
const SEED: u64 = 0x5eed;

struct Subject {
    grammar: &'static str,
    keyword: &'static str,
    language: fn() -> tree_sitter::Language,
}

const SUBJECTS: [Subject; 2] = [
    Subject {
        grammar: "chocopy",
        keyword: "while",
        language: || tree_sitter_python::LANGUAGE.into(),
    },
    Subject {
        grammar: "starlark",
        keyword: "for",
        language: || tree_sitter_starlark::LANGUAGE.into(),
    },
];

/// The synthetic "interesting" test.
struct Synthetic {
    keyword: &'static str,
    /// With a parser, the text must also parse without error.
    parser: Option<tree_sitter::Parser>,
}

impl Synthetic {
    fn new(subject: &Subject, parses: bool) -> Self {
        Self {
            keyword: subject.keyword,
            parser: parses.then(|| parser(subject)),
        }
    }
}

fn parser(subject: &Subject) -> tree_sitter::Parser {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&(subject.language)())
        .expect("tree-sitter grammar loads");
    parser
}

fn parses(parser: &mut tree_sitter::Parser, text: &str) -> bool {
    parser
        .parse(text, None)
        .is_some_and(|tree| !tree.root_node().has_error())
}

impl ReductionCriterion for Synthetic {
    fn holds(&mut self, candidate: &Candidate<'_>) -> bool {
        candidate.text.contains(self.keyword)
            && self
                .parser
                .as_mut()
                .is_none_or(|parser| parses(parser, candidate.text))
    }
}

const CRITERIA: [(&str, bool); 2] = [("contains", false), ("parses+contains", true)];

/// The reducers compared: the three strategies, and HDD with Perses-style hoisting only
/// (contexts that add no text), to show what hoisting through contexts adds.
struct Reducer {
    name: &'static str,
    strategy: Strategy,
    options: HddOptions,
}

fn reducers() -> [Reducer; 4] {
    let perses = HddOptions {
        max_context: 0,
        ..HddOptions::default()
    };
    [
        Reducer {
            name: "hdd",
            strategy: Strategy::Hdd,
            options: HddOptions::default(),
        },
        Reducer {
            name: "hdd-ctx0",
            strategy: Strategy::Hdd,
            options: perses,
        },
        Reducer {
            name: "ddmin",
            strategy: Strategy::Ddmin,
            options: HddOptions::default(),
        },
        Reducer {
            name: "hdd+ddmin",
            strategy: Strategy::HddThenDdmin,
            options: HddOptions::default(),
        },
    ]
}

/// The first [`INPUTS`] inputs from [`SEED`] that contain the keyword and parse, so that both
/// criteria hold on each.
fn inputs(grammar: &Grammar, subject: &Subject) -> Vec<(Sample, String)> {
    let bounds: Bounds = BOUNDS.parse().expect("valid bounds");
    let mut sampler = Sampler::new(grammar, bounds).expect("shipped grammars are productive");
    let mut rng = StdRand::with_seed(SEED);
    let mut parser = parser(subject);
    let mut found = Vec::new();
    while found.len() < INPUTS {
        let mut sample = Sample::default();
        sampler.generate(&mut rng, &mut sample);
        let text = render(grammar, &sample.tree);
        if text.contains(subject.keyword) && parses(&mut parser, &text) {
            found.push((sample, text));
        }
    }
    found
}

/// One pass of one reducer over the batch.
#[derive(Default)]
struct Pass {
    bytes_after: usize,
    tests: u64,
    still_parse: usize,
}

fn reduce_batch(
    hdd: &mut Hdd<'_>,
    strategy: Strategy,
    subject: &Subject,
    parses: bool,
    batch: &[(Sample, String)],
) -> (Pass, Vec<String>) {
    let mut pass = Pass::default();
    let mut results = Vec::with_capacity(batch.len());
    for (sample, _) in batch {
        let mut judge = Judge::new(Synthetic::new(subject, parses));
        let reduced = strategy
            .reduce(hdd, sample.choices.as_slice(), &mut judge)
            .expect("every input satisfies the criterion");
        pass.bytes_after += reduced.text.len();
        pass.tests += judge.tests();
        results.push(reduced.text);
    }
    (pass, results)
}

struct Row {
    grammar: &'static str,
    criterion: &'static str,
    reducer: &'static str,
    bytes_before: usize,
    pass: Pass,
    ran: bool,
}

fn bench_subject(c: &mut Criterion, subject: &Subject) -> Vec<Row> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../grammars")
        .join(format!("{}.ebnf", subject.grammar));
    let grammar = Grammar::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let bounds: Bounds = BOUNDS.parse().expect("valid bounds");
    let batch = inputs(&grammar, subject);
    let bytes_before = batch.iter().map(|(_, text)| text.len()).sum();
    let mut rows = Vec::new();
    for (criterion, parses) in CRITERIA {
        let mut group = c.benchmark_group(group_name(subject, criterion));
        for reducer in reducers() {
            let mut hdd = Hdd::new(&grammar, bounds)
                .expect("shipped grammars are productive")
                .with_options(reducer.options);
            let strategy = reducer.strategy;
            let (mut pass, results) = reduce_batch(&mut hdd, strategy, subject, parses, &batch);
            let mut checker = parser(subject);
            pass.still_parse = results
                .iter()
                .filter(|text| self::parses(&mut checker, text))
                .count();
            // A filter on the command line may skip benchmarks; only what ran is tabled.
            let ran = Cell::new(false);
            group.bench_function(reducer.name, |b| {
                ran.set(true);
                b.iter(|| black_box(reduce_batch(&mut hdd, strategy, subject, parses, &batch)))
            });
            rows.push(Row {
                grammar: subject.grammar,
                criterion,
                reducer: reducer.name,
                bytes_before,
                pass,
                ran: ran.get(),
            });
        }
        group.finish();
    }
    rows
}

fn group_name(subject: &Subject, criterion: &str) -> String {
    format!("reduce_{}_{}", subject.grammar, criterion.replace('+', "_"))
}

/// Criterion's headline time per iteration (the regression slope, else the mean), in ns.
fn measured_ns(output: &Path, group: &str, function: &str) -> Option<f64> {
    let path = output.join(group).join(function).join("new/estimates.json");
    let estimates: serde_json::Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    let point = |name: &str| estimates[name]["point_estimate"].as_f64();
    point("slope").or_else(|| point("mean"))
}

fn print_table(rows: &[Row], output: &Path) {
    println!(
        "\nReduction of {INPUTS} inputs per grammar generated at ({BOUNDS}); all figures from this run."
    );
    println!(
        "before/after: mean bytes per input; tests: mean criterion evaluations per input; parse: \
         results tree-sitter still accepts;"
    );
    println!(
        "ms/input from criterion's estimates; x ddmin: this reducer's figure over ddmin's on the \
         same inputs and criterion."
    );
    println!(
        "{:<9} {:<16} {:<10} {:>7} {:>6} {:>7} {:>6} {:>9} {:>8} {:>8} {:>8}",
        "grammar",
        "criterion",
        "reducer",
        "before",
        "after",
        "tests",
        "parse",
        "ms/input",
        "size",
        "tests",
        "time"
    );
    println!(
        "{:<9} {:<16} {:<10} {:>7} {:>6} {:>7} {:>6} {:>9} {:>8} {:>8} {:>8}",
        "", "", "", "", "", "", "", "", "x ddmin", "x ddmin", "x ddmin"
    );
    for row in rows.iter().filter(|row| row.ran) {
        let group = format!("reduce_{}_{}", row.grammar, row.criterion.replace('+', "_"));
        let ns = measured_ns(output, &group, row.reducer);
        let Some(baseline) = rows.iter().find(|r| {
            r.grammar == row.grammar && r.criterion == row.criterion && r.reducer == "ddmin"
        }) else {
            continue;
        };
        let baseline_ns = measured_ns(output, &group, "ddmin").filter(|_| baseline.ran);
        let n = INPUTS as f64;
        let time = ns.map_or("-".to_string(), |ns| format!("{:.2}", ns / n / 1e6));
        let time_ratio = match (ns, baseline_ns) {
            (Some(ns), Some(base)) => format!("{:.2}", ns / base),
            _ => "-".to_string(),
        };
        println!(
            "{:<9} {:<16} {:<10} {:>7.1} {:>6.1} {:>7.1} {:>3}/{:<2} {:>9} {:>8.2} {:>8.2} {:>8}",
            row.grammar,
            row.criterion,
            row.reducer,
            row.bytes_before as f64 / n,
            row.pass.bytes_after as f64 / n,
            row.pass.tests as f64 / n,
            row.pass.still_parse,
            INPUTS,
            time,
            row.pass.bytes_after as f64 / baseline.pass.bytes_after as f64,
            row.pass.tests as f64 / baseline.pass.tests as f64,
            time_ratio
        );
    }
}

/// Where criterion writes `estimates.json`, made explicit so that the table reads what this
/// run wrote.
fn output_directory() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"),
        PathBuf::from,
    );
    target.join("criterion")
}

fn main() {
    let output = output_directory();
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .output_directory(&output)
        .configure_from_args();
    let rows: Vec<Row> = SUBJECTS
        .iter()
        .flat_map(|subject| bench_subject(&mut criterion, subject))
        .collect();
    criterion.final_summary();
    print_table(&rows, &output);
}
