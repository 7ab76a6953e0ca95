//! `grammar check` time against grammar size: loading (lowering) plus the whole analysis and
//! its check, on the two shapes that were quadratic before the analysis used worklists (20,000
//! chained rules took 14.7 s): a chain of rules `r0 = r1 ; r1 = r2 ; ...`, and a chain of
//! stacked operators `r0 = r1? ; r1 = r2* ; ...` (written as separate rules, since the loader
//! bounds the nesting of one expression), at 1,000, 4,000 and 16,000 rules.
//!
//! After criterion's report, a summary prints each size's time and its growth over the size
//! before: a linear analysis grows about 4x per 4x rules, a quadratic one 16x. As in the parse
//! benchmark, each figure is the fastest and the median of repeated runs.
//!
//! `cargo bench -p bonsai --bench grammar_check`

use std::hint::black_box;
use std::time::{Duration, Instant};

use bonsai::analysis::Analysis;
use bonsai::grammar::Grammar;
use criterion::{BenchmarkId, Criterion, Throughput};

const SIZES: [usize; 3] = [1_000, 4_000, 16_000];

/// `r0 = r1 ; ... ; rN = "x" ;`
fn chain(rules: usize) -> String {
    let mut text = String::new();
    for i in 0..rules {
        text.push_str(&format!("r{i} = r{} ;\n", i + 1));
    }
    text.push_str(&format!("r{rules} = \"x\" ;\n"));
    text
}

/// `r0 = r1? ; r1 = r2* ; ... ; rN = "x" ;`
fn stacked(rules: usize) -> String {
    let mut text = String::new();
    for i in 0..rules {
        let operator = if i % 2 == 0 { "?" } else { "*" };
        text.push_str(&format!("r{i} = r{}{operator} ;\n", i + 1));
    }
    text.push_str(&format!("r{rules} = \"x\" ;\n"));
    text
}

/// A grammar text of a given number of rules.
type Shape = fn(usize) -> String;

/// What `grammar check` does after reading the file.
fn check(text: &str) -> Analysis {
    let grammar = Grammar::from_text("bench", text).expect("the grammar loads");
    let analysis = Analysis::new(&grammar);
    analysis.check(&grammar).expect("the grammar is usable");
    analysis
}

/// (fastest, median) time of one check.
fn check_times(text: &str) -> (Duration, Duration) {
    let mut times = Vec::new();
    let started = Instant::now();
    while times.len() < 5 || (started.elapsed() < Duration::from_secs(2) && times.len() < 200) {
        let t = Instant::now();
        black_box(check(black_box(text)));
        times.push(t.elapsed());
    }
    times.sort();
    (times[0], times[times.len() / 2])
}

fn main() {
    let shapes: [(&str, Shape); 2] = [("chain", chain), ("stacked", stacked)];
    let inputs: Vec<(&str, usize, String)> = shapes
        .iter()
        .flat_map(|&(name, make)| SIZES.iter().map(move |&n| (name, n, make(n))))
        .collect();

    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .measurement_time(Duration::from_secs(3));
    for (shape, _) in shapes {
        let mut group = criterion.benchmark_group(format!("grammar_check_{shape}"));
        for (_, rules, text) in inputs.iter().filter(|(s, ..)| *s == shape) {
            group.throughput(Throughput::Elements(*rules as u64));
            group.bench_with_input(BenchmarkId::from_parameter(rules), text, |b, text| {
                b.iter(|| check(black_box(text)))
            });
        }
        group.finish();
    }
    criterion.final_summary();

    println!("\ngrammar check summary (fastest / median of repeated checks):");
    let mut previous: Option<(&str, Duration, Duration)> = None;
    for (shape, rules, text) in &inputs {
        let (fastest, median) = check_times(text);
        let growth = match previous {
            Some((s, f, m)) if s == *shape => format!(
                "; time x{:.1} / x{:.1} the size before",
                fastest.as_secs_f64() / f.as_secs_f64(),
                median.as_secs_f64() / m.as_secs_f64()
            ),
            _ => String::new(),
        };
        println!(
            "  {shape:>7} {rules:>6} rules: {:.2} / {:.2} ms{growth}",
            fastest.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
        );
        previous = Some((shape, fastest, median));
    }
}
