//! Parse throughput on JSON at 1 KB, 10 KB and 100 KB, and how the time grows with size.
//!
//! Inputs are generated deterministically: JSON values sampled at generous bounds, joined into
//! one array until the target size is reached. After criterion's own report, a summary prints
//! MB/s per size (median of repeated parses) and the growth ratios time(10 KB)/time(1 KB) and
//! time(100 KB)/time(10 KB); a linear parser gives ratios near the size ratio, 10.
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

fn median_time(parser: &Parser<'_>, text: &str) -> Duration {
    let mut times = Vec::new();
    let started = Instant::now();
    while times.len() < 5 || (started.elapsed() < Duration::from_secs(2) && times.len() < 200) {
        let t = Instant::now();
        black_box(
            parser
                .parse(black_box(text))
                .expect("generated JSON parses"),
        );
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
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

    println!("\nparse summary (median of repeated parses, JSON grammar):");
    let mut previous: Option<Duration> = None;
    for (text, name) in &inputs {
        let time = median_time(&parser, text);
        let mb_per_s = text.len() as f64 / time.as_secs_f64() / 1e6;
        let growth = previous.map_or(String::new(), |p| {
            format!(
                ", x{:.1} the time of the size before",
                time.as_secs_f64() / p.as_secs_f64()
            )
        });
        println!(
            "  {name:>6} ({} bytes): {:>9.3} ms, {mb_per_s:.2} MB/s{growth}",
            text.len(),
            time.as_secs_f64() * 1e3
        );
        previous = Some(time);
    }
}
