//! Parse throughput, and how the time grows with size, on three workloads:
//!
//! - JSON at 1 KB, 10 KB and 100 KB: values sampled at generous bounds, joined into one array
//!   until the target size is reached;
//! - chains of ambiguous binary operators, `print 1 + 2 * 3 + ... ;` on
//!   `grammars/planted.ebnf` (`expr = expr "+" expr | expr "*" expr | ...`), at 1, 4 and
//!   16 KB (four 4 KB statements): Earley reads such a chain every way at once unless the
//!   parse table leaves one reading, and one 4 KB chain took seconds;
//! - realistic Starlark, the programs of `corpus/starlark/` concatenated, at 1, 4 and 16 KB.
//!
//! After criterion's own report, a summary prints MB/s per size and the growth ratio of each
//! size's time over the size before; a linear parser gives ratios near the size ratio (10 for
//! JSON, 4 for the others). Each figure is given for the
//! fastest and the median of repeated parses: on a machine shared with other work the fastest
//! run is the one least disturbed, the median shows what a user sees.
//!
//! `cargo bench -p bonsai --bench parse`

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use bonsai::grammar::Grammar;
use bonsai::parse::Parser;
use bonsai::sampler::{Bounds, Sample, Sampler};
use bonsai::text::render;
use criterion::{BenchmarkId, Criterion, Throughput};
use libafl_bolts::rands::StdRand;

const JSON_SIZES: [(usize, &str); 3] = [(1_000, "1KB"), (10_000, "10KB"), (100_000, "100KB")];
const SIZES: [(usize, &str); 3] = [(1 << 10, "1KB"), (4 << 10, "4KB"), (16 << 10, "16KB")];

fn shipped(file: &str) -> Grammar {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../grammars")
        .join(file);
    Grammar::from_file(&path).expect("a shipped grammar loads")
}

/// `print 1 + 2 * 3 + ... ;`, at least `size` bytes long: one statement up to 4 KB, then
/// several, since extraction refuses trees nesting deeper than `parse::MAX_NESTING` rules and a
/// chain of n operators nests n deep.
fn operator_chain(size: usize) -> String {
    const STATEMENT: usize = 4 << 10;
    let mut text = String::new();
    while text.len() < size {
        if !text.is_empty() {
            text.push(' ');
        }
        let end = (text.len() + STATEMENT).min(size);
        text.push_str("print 1");
        let mut i = 0;
        while text.len() + 1 < end {
            text.push_str(if i % 3 == 0 { " * " } else { " + " });
            text.push_str(&(i % 1000).to_string());
            i += 1;
        }
        text.push(';');
    }
    text
}

/// The programs of `corpus/starlark/`, in order, concatenated until `size` bytes.
fn starlark_corpus(size: usize) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/starlark");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the Starlark corpus is there")
        .map(|e| e.expect("a corpus entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "star"))
        .collect();
    files.sort();
    let mut text = String::new();
    for file in files.iter().cycle() {
        if text.len() >= size {
            break;
        }
        text.push_str(&std::fs::read_to_string(file).expect("a corpus program"));
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    text
}

/// A JSON array of sampled values, at least `size` bytes long.
fn json_input(grammar: &Grammar, size: usize) -> String {
    let bounds = Bounds::new(8, 8, 5).unwrap();
    let mut sampler = Sampler::new(grammar, bounds).unwrap();
    let mut rng = StdRand::with_seed(size as u64);
    let mut sample = Sample::default();
    let mut text = String::from("[");
    while text.len() < size {
        sampler.generate(&mut rng, &mut sample);
        if text.len() > 1 {
            text.push_str(", ");
        }
        text.push_str(&render(grammar, &sample.tree));
    }
    text.push(']');
    text
}

/// (fastest, median) time of one parse.
fn parse_times(parser: &Parser<'_>, text: &str) -> (Duration, Duration) {
    let mut times = Vec::new();
    let started = Instant::now();
    while times.len() < 10 || (started.elapsed() < Duration::from_secs(3) && times.len() < 500) {
        let t = Instant::now();
        black_box(parser.parse(black_box(text)).expect("the input parses"));
        times.push(t.elapsed());
    }
    times.sort();
    (times[0], times[times.len() / 2])
}

/// A benchmark group's name, its parser, and its inputs with their size names.
type Workload<'g> = (&'static str, Parser<'g>, Vec<(String, &'static str)>);

/// One criterion group and one growth summary per workload.
fn bench(criterion: &mut Criterion, name: &str, parser: &Parser<'_>, inputs: &[(String, &str)]) {
    let mut group = criterion.benchmark_group(name);
    for (text, size) in inputs {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(size), text, |b, text| {
            b.iter(|| parser.parse(black_box(text)).expect("the input parses"))
        });
    }
    group.finish();
}

fn summary(name: &str, parser: &Parser<'_>, inputs: &[(String, &str)]) {
    println!("\nparse summary, {name} (fastest / median of repeated parses):");
    let mut previous: Option<(Duration, Duration)> = None;
    for (text, size) in inputs {
        let (fastest, median) = parse_times(parser, text);
        let rate = |t: Duration| text.len() as f64 / t.as_secs_f64() / 1e6;
        let growth = previous.map_or(String::new(), |(f, m)| {
            format!(
                "; time x{:.1} / x{:.1} the size before",
                fastest.as_secs_f64() / f.as_secs_f64(),
                median.as_secs_f64() / m.as_secs_f64()
            )
        });
        println!(
            "  {size:>6} ({} bytes): {:.3} / {:.3} ms, {:.2} / {:.2} MB/s{growth}",
            text.len(),
            fastest.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            rate(fastest),
            rate(median),
        );
        previous = Some((fastest, median));
    }
}

fn main() {
    let json = shipped("json.ebnf");
    let planted = shipped("planted.ebnf");
    let starlark = shipped("starlark.ebnf");
    let workloads: Vec<Workload<'_>> = vec![
        (
            "parse_json",
            Parser::new(&json),
            JSON_SIZES
                .iter()
                .map(|&(size, name)| (json_input(&json, size), name))
                .collect(),
        ),
        (
            "parse_operator_chain",
            Parser::new(&planted),
            SIZES
                .iter()
                .map(|&(size, name)| (operator_chain(size), name))
                .collect(),
        ),
        (
            "parse_starlark",
            Parser::new(&starlark),
            SIZES
                .iter()
                .map(|&(size, name)| (starlark_corpus(size), name))
                .collect(),
        ),
    ];

    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(20)
        .measurement_time(Duration::from_secs(3));
    for (name, parser, inputs) in &workloads {
        bench(&mut criterion, name, parser, inputs);
    }
    criterion.final_summary();
    for (name, parser, inputs) in &workloads {
        summary(name, parser, inputs);
    }
}
