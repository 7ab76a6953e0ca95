//! Parse throughput on JSON at 1 KB, 10 KB and 100 KB, and how the time grows with size.
//!
//! Inputs are generated deterministically: JSON values sampled at generous bounds, joined into
//! one array until the target size is reached. After criterion's own report, a summary prints
//! MB/s per size and the growth ratios time(10 KB)/time(1 KB) and time(100 KB)/time(10 KB); a
//! linear parser gives ratios near the size ratio, about 10. Each figure is given for the
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

const SIZES: [(usize, &str); 3] = [(1_000, "1KB"), (10_000, "10KB"), (100_000, "100KB")];

fn json_grammar() -> Grammar {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../grammars/json.ebnf");
    Grammar::from_file(&path).expect("the shipped JSON grammar loads")
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
        black_box(
            parser
                .parse(black_box(text))
                .expect("generated JSON parses"),
        );
        times.push(t.elapsed());
    }
    times.sort();
    (times[0], times[times.len() / 2])
}

fn main() {
    let grammar = json_grammar();
    let parser = Parser::new(&grammar);
    let inputs: Vec<(String, &str)> = SIZES
        .iter()
        .map(|&(size, name)| (json_input(&grammar, size), name))
        .collect();

    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(20)
        .measurement_time(Duration::from_secs(3));
    {
        let mut group = criterion.benchmark_group("parse_json");
        for (text, name) in &inputs {
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_with_input(BenchmarkId::from_parameter(name), text, |b, text| {
                b.iter(|| {
                    parser
                        .parse(black_box(text))
                        .expect("generated JSON parses")
                })
            });
        }
        group.finish();
    }
    criterion.final_summary();

    println!("\nparse summary (JSON grammar; fastest / median of repeated parses):");
    let mut previous: Option<(Duration, Duration)> = None;
    for (text, name) in &inputs {
        let (fastest, median) = parse_times(&parser, text);
        let rate = |t: Duration| text.len() as f64 / t.as_secs_f64() / 1e6;
        let growth = previous.map_or(String::new(), |(f, m)| {
            format!(
                "; time x{:.1} / x{:.1} the size before",
                fastest.as_secs_f64() / f.as_secs_f64(),
                median.as_secs_f64() / m.as_secs_f64()
            )
        });
        println!(
            "  {name:>6} ({} bytes): {:.3} / {:.3} ms, {:.2} / {:.2} MB/s{growth}",
            text.len(),
            fastest.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            rate(fastest),
            rate(median),
        );
        previous = Some((fastest, median));
    }
}
