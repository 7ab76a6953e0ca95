//! Generation throughput: Bonsai's sampler and layout pass against LibAFL's Nautilus generator
//! on the same grammars (converted by `bonsai::convert::nautilus_rules`), at bounds (3,3,3).
//!
//! Each benchmark iteration generates one fixed batch of inputs (the same seed every time, so
//! the batch's byte count is known exactly) into reused buffers, as a fuzzing loop would.
//! Nautilus runs on two conversions of each grammar (see [`Variant`]): the exact one, and one
//! spaced as a hand-written Nautilus grammar would be, which gives Nautilus fewer alternatives
//! to scan. Nautilus controls size with its tree-size parameter rather than bounds, so that
//! parameter is chosen per conversion to make Nautilus's mean input as long as Bonsai's:
//! bytes/s at very different sizes would compare nothing. After criterion has run, the table
//! reads the timings back from this run's `estimates.json` and adds a paired ratio from
//! alternating batches, so no ratio mixes runs.

use std::cell::Cell;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bonsai::convert::nautilus_rules;
use bonsai::grammar::{Grammar, Separator};
use bonsai::sampler::{Bounds, Sample, Sampler};
use bonsai::text::Renderer;
use criterion::{Criterion, Throughput};
use libafl::common::nautilus::grammartec::context::Context;
use libafl::common::nautilus::grammartec::newtypes::NTermId;
use libafl::common::nautilus::grammartec::tree::{Tree, TreeLike};
use libafl::generators::nautilus::NautilusContext;
use libafl_bolts::rands::StdRand;

const GRAMMARS: [&str; 3] = ["json", "chocopy", "starlark"];
const BOUNDS: &str = "3,3,3";
/// Inputs per benchmark iteration.
const BATCH: usize = 1000;
/// Inputs per candidate when matching Nautilus's mean size to Bonsai's.
const CALIBRATION: usize = 400;
const SEED: u64 = 0x5eed;
/// Alternating Bonsai/Nautilus batch pairs timed after criterion for the paired ratio.
const PAIRS: usize = 21;

struct Bonsai<'g> {
    renderer: Renderer<'g>,
    sampler: Sampler<'g>,
    sample: Sample,
    text: String,
}

impl<'g> Bonsai<'g> {
    fn new(grammar: &'g Grammar, bounds: Bounds) -> Self {
        Self {
            renderer: Renderer::new(grammar),
            sampler: Sampler::new(grammar, bounds).expect("shipped grammars are productive"),
            sample: Sample::default(),
            text: String::new(),
        }
    }

    /// Generates `count` inputs from `seed`; returns their total length in bytes.
    fn batch(&mut self, seed: u64, count: usize) -> usize {
        let mut rng = StdRand::with_seed(seed);
        let mut bytes = 0;
        for _ in 0..count {
            self.sampler.generate(&mut rng, &mut self.sample);
            self.renderer.render_into(&self.sample.tree, &mut self.text);
            bytes += black_box(&self.text).len();
        }
        bytes
    }
}

struct Nautilus {
    context: NautilusContext,
    start: NTermId,
    tree: Tree,
    bytes: Vec<u8>,
}

impl Nautilus {
    fn new(rules: &[Vec<String>], tree_size: usize) -> Self {
        let context = NautilusContext::new(tree_size, rules);
        let start = context.ctx.nt_id("START");
        let tree = Tree::from_rule_vec(vec![], &context.ctx);
        Self {
            context,
            start,
            tree,
            bytes: Vec::new(),
        }
    }

    fn ctx(&self) -> &Context {
        &self.context.ctx
    }

    /// What `NautilusGenerator::generate` and `NautilusInput::unparse` do, minus allocating a
    /// new input each time.
    fn batch(&mut self, seed: u64, count: usize) -> usize {
        let mut rng = StdRand::with_seed(seed);
        let ctx = &self.context.ctx;
        let len = ctx.get_random_len_for_nt(&self.start);
        let mut bytes = 0;
        for _ in 0..count {
            self.tree.generate_from_nt(&mut rng, self.start, len, ctx);
            self.bytes.clear();
            self.tree.unparse_to(ctx, &mut self.bytes);
            bytes += black_box(&self.bytes).len();
        }
        bytes
    }
}

/// The tree size whose mean Nautilus input is closest to `target` bytes, and that mean.
fn matching_tree_size(rules: &[Vec<String>], target: f64) -> (usize, f64) {
    let smallest = {
        let probe = Nautilus::new(rules, 1000);
        probe.ctx().get_min_len_for_nt(probe.start)
    };
    let mean = |size: usize| {
        Nautilus::new(rules, size).batch(SEED, CALIBRATION) as f64 / CALIBRATION as f64
    };
    let (mut low, mut high) = (smallest, 1 << 16);
    let mut best = (smallest, mean(smallest));
    while low < high {
        let size = low + (high - low) / 2;
        let m = mean(size);
        if (m / target).ln().abs() < (best.1 / target).ln().abs() {
            best = (size, m);
        }
        if m < target {
            low = size + 1;
        } else {
            high = size;
        }
    }
    best
}

/// How the grammar's layout reaches Nautilus's formats.
#[derive(Clone, Copy)]
enum Variant {
    /// `nautilus_rules` as is: Nautilus derives exactly the texts Bonsai renders. Exact `auto`
    /// spacing specializes rules by the previous token, which gives Nautilus more alternatives
    /// per nonterminal to scan.
    Exact,
    /// The grammar with `%layout " "`: one space between any two tokens on a line, as a
    /// Nautilus grammar would be written by hand; fewer alternatives, slightly longer texts.
    Spaced,
}

impl Variant {
    const ALL: [Variant; 2] = [Variant::Exact, Variant::Spaced];

    fn name(self) -> &'static str {
        match self {
            Variant::Exact => "exact",
            Variant::Spaced => "spaced",
        }
    }

    fn rules(self, grammar: &Grammar, bounds: Bounds) -> Vec<Vec<String>> {
        let mut grammar = grammar.clone();
        if let Variant::Spaced = self {
            grammar.layout.separator = Separator::Text(" ".to_string());
        }
        nautilus_rules(&grammar, bounds).unwrap_or_else(|e| panic!("{}: {e}", grammar.name))
    }
}

/// One Nautilus variant against Bonsai on one grammar.
struct Row {
    grammar: &'static str,
    variant: Variant,
    /// Median over [`PAIRS`] alternating batches of Bonsai's bytes/s over Nautilus's.
    paired_ratio: f64,
    bonsai_bytes: usize,
    nautilus_bytes: usize,
    nautilus_rules: usize,
    tree_size: usize,
    ran: bool,
}

fn bench_grammar(c: &mut Criterion, name: &'static str) -> Vec<Row> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../grammars")
        .join(format!("{name}.ebnf"));
    let grammar = Grammar::from_file(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let bounds: Bounds = BOUNDS.parse().expect("valid bounds");

    let mut bonsai = Bonsai::new(&grammar, bounds);
    let bonsai_bytes = bonsai.batch(SEED, BATCH);
    let target = bonsai_bytes as f64 / BATCH as f64;
    let mut nautili: Vec<(Variant, usize, usize, Nautilus)> = Variant::ALL
        .iter()
        .map(|&variant| {
            let rules = variant.rules(&grammar, bounds);
            let (tree_size, _) = matching_tree_size(&rules, target);
            (
                variant,
                rules.len(),
                tree_size,
                Nautilus::new(&rules, tree_size),
            )
        })
        .collect();

    // A filter on the command line may skip benchmarks; only what ran goes in the table.
    let ran: Vec<Cell<bool>> = (0..=nautili.len()).map(|_| Cell::new(false)).collect();
    let mut group = c.benchmark_group(format!("generate_{name}"));
    group.throughput(Throughput::Bytes(bonsai_bytes as u64));
    group.bench_function("bonsai", |b| {
        ran[0].set(true);
        b.iter(|| bonsai.batch(SEED, BATCH))
    });
    let mut nautilus_bytes = Vec::new();
    for (i, (variant, _, _, nautilus)) in nautili.iter_mut().enumerate() {
        let bytes = nautilus.batch(SEED, BATCH);
        nautilus_bytes.push(bytes);
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function(format!("nautilus_{}", variant.name()), |b| {
            ran[i + 1].set(true);
            b.iter(|| nautilus.batch(SEED, BATCH))
        });
    }
    group.finish();

    nautili
        .iter_mut()
        .zip(nautilus_bytes)
        .enumerate()
        .map(
            |(i, ((variant, rules, tree_size, nautilus), nautilus_bytes))| {
                let ran = ran[0].get() && ran[i + 1].get();
                Row {
                    grammar: name,
                    variant: *variant,
                    paired_ratio: if ran {
                        paired_ratio(&mut bonsai, nautilus)
                    } else {
                        f64::NAN
                    },
                    bonsai_bytes,
                    nautilus_bytes,
                    nautilus_rules: *rules,
                    tree_size: *tree_size,
                    ran,
                }
            },
        )
        .collect()
}

/// Times Bonsai's and Nautilus's batches alternately and returns the median ratio of their
/// bytes/s. Criterion measures the two one after the other, seconds apart; on a machine shared
/// with other work the load can change in between, and alternating batches cancels that out.
fn paired_ratio(bonsai: &mut Bonsai<'_>, nautilus: &mut Nautilus) -> f64 {
    let mut ratios: Vec<f64> = (0..PAIRS)
        .map(|_| {
            let start = Instant::now();
            let bonsai_bytes = bonsai.batch(SEED, BATCH) as f64;
            let bonsai_rate = bonsai_bytes / start.elapsed().as_secs_f64();
            let start = Instant::now();
            let nautilus_bytes = nautilus.batch(SEED, BATCH) as f64;
            let nautilus_rate = nautilus_bytes / start.elapsed().as_secs_f64();
            bonsai_rate / nautilus_rate
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[PAIRS / 2]
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
        "\nGeneration at bounds ({BOUNDS}), {BATCH} inputs per batch, all figures from this run."
    );
    println!(
        "ratio: Bonsai's bytes/s over Nautilus's from criterion's estimates; paired: the median"
    );
    println!(
        "ratio over {PAIRS} alternating batch pairs, robust to load changing between benchmarks."
    );
    println!(
        "{:<9} {:<7} {:>7} {:>8} {:>7} {:>7} {:>9} {:>10} {:>7} {:>9} {:>6} {:>6}",
        "grammar",
        "variant",
        "Bonsai",
        "Nautilus",
        "ratio",
        "paired",
        "Bonsai",
        "Nautilus",
        "Bonsai",
        "Nautilus",
        "tree",
        "rules"
    );
    println!(
        "{:<9} {:<7} {:>7} {:>8} {:>7} {:>7} {:>9} {:>10} {:>7} {:>9} {:>6} {:>6}",
        "", "", "MB/s", "MB/s", "", "", "inputs/s", "inputs/s", "mean B", "mean B", "size", ""
    );
    for row in rows.iter().filter(|row| row.ran) {
        let group = format!("generate_{}", row.grammar);
        let (Some(bonsai_ns), Some(nautilus_ns)) = (
            measured_ns(output, &group, "bonsai"),
            measured_ns(output, &group, &format!("nautilus_{}", row.variant.name())),
        ) else {
            println!("{:<9} (no estimates saved by this run)", row.grammar);
            continue;
        };
        let per_second = |amount: usize, ns: f64| amount as f64 / (ns * 1e-9);
        let bonsai_rate = per_second(row.bonsai_bytes, bonsai_ns);
        let nautilus_rate = per_second(row.nautilus_bytes, nautilus_ns);
        println!(
            "{:<9} {:<7} {:>7.1} {:>8.1} {:>6.2}x {:>6.2}x {:>9.0} {:>10.0} {:>7.0} {:>9.0} {:>6} {:>6}",
            row.grammar,
            row.variant.name(),
            bonsai_rate / 1e6,
            nautilus_rate / 1e6,
            bonsai_rate / nautilus_rate,
            row.paired_ratio,
            per_second(BATCH, bonsai_ns),
            per_second(BATCH, nautilus_ns),
            row.bonsai_bytes as f64 / BATCH as f64,
            row.nautilus_bytes as f64 / BATCH as f64,
            row.tree_size,
            row.nautilus_rules
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
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(6))
        .output_directory(&output)
        .configure_from_args();
    let rows: Vec<Row> = GRAMMARS
        .iter()
        .flat_map(|name| bench_grammar(&mut criterion, name))
        .collect();
    criterion.final_summary();
    print_table(&rows, &output);
}
