//! The report's sections, from its facts.

use super::document::{Cell, Document, Plot, Section, Table};
use super::facts::Facts;
use super::plots::{self, Series};

/// How many inputs the unique-coverage table lists.
const TOP_INPUTS: usize = 15;

pub fn build(facts: &Facts) -> Document {
    let mut sections = vec![
        summary(facts),
        coverage(facts),
        lattice(facts),
        valid(facts),
    ];
    sections.push(sizes(facts));
    sections.push(unique_coverage(facts));
    if let Some(section) = grammar_coverage(facts) {
        sections.push(section);
    }
    sections.push(faults(facts));
    if !facts.notes.is_empty() {
        sections.push(Section {
            title: "Problems reading the directory".into(),
            paragraphs: facts.notes.clone(),
            ..Section::default()
        });
    }
    Document {
        title: format!(
            "Bonsai {}: {} on {}",
            if facts.campaign {
                "campaign"
            } else {
                "fuzzing run"
            },
            facts.target,
            facts.grammar
        ),
        sections,
    }
}

fn plot(file: &str, title: &str, drawn: Result<String, plots::PlotError>, section: &mut Section) {
    match drawn {
        Ok(svg) => {
            section.plot = Some(Plot {
                file: file.into(),
                title: title.into(),
                svg,
            })
        }
        Err(e) => section.paragraphs.push(e.to_string()),
    }
}

fn percent(part: usize, whole: usize) -> String {
    format!("{:.0}%", 100.0 * part as f64 / whole.max(1) as f64)
}

fn summary(facts: &Facts) -> Section {
    let top = &facts.nodes[facts.top];
    let done = facts.nodes.iter().filter(|n| n.state == "done").count();
    let cpu: f64 = facts.nodes.iter().map(|n| n.secs).sum();
    let mut paragraphs = vec![format!(
        "Target {}, grammar {}, bounds up to ({}).",
        facts.target, facts.grammar, facts.max_bounds
    )];
    if facts.campaign {
        paragraphs.push(format!(
            "{} of {} lattice nodes done; {:.0} s of fuzzing in all nodes together. The top node {} ({}) covers {} edges with {} distinct inputs, {} of them valid.",
            done,
            facts.nodes.len(),
            cpu,
            top.name,
            top.state,
            top.edges,
            facts.top_sizes.len(),
            percent(top.valid, top.queue)
        ));
    } else {
        paragraphs.push(format!(
            "{:.0} s, {} executions; {} edges covered by {} distinct inputs, {} of them valid; {} crashes, {} hangs.",
            top.secs,
            top.execs,
            top.edges,
            facts.top_sizes.len(),
            percent(top.valid, top.queue),
            top.crashes,
            top.hangs
        ));
    }
    Section {
        title: "Summary".into(),
        paragraphs,
        ..Section::default()
    }
}

fn coverage(facts: &Facts) -> Section {
    let mut section = Section {
        title: "Coverage over time".into(),
        ..Section::default()
    };
    let mut series: Vec<Series> = facts
        .nodes
        .iter()
        .filter(|n| !n.coverage.is_empty())
        .map(|n| Series {
            label: n.name.clone(),
            points: n
                .coverage
                .iter()
                .map(|p| (n.start_offset + p.secs, p.edges as f64))
                .collect(),
            emphasis: false,
        })
        .collect();
    if series.is_empty() {
        section
            .paragraphs
            .push("No coverage.csv was found (runs older than the coverage log).".into());
        return section;
    }
    if facts.campaign && series.len() > LINES_PER_NODE_UP_TO {
        // Fifty lines are a tangle: one line per lattice level (m + n + d, the nodes that run
        // side by side), each the best of its nodes so far, and the top node's own line.
        let mut levels: std::collections::BTreeMap<u32, Vec<(f64, f64)>> = Default::default();
        for (node, line) in facts
            .nodes
            .iter()
            .filter(|n| !n.coverage.is_empty())
            .zip(&series)
        {
            let level = node
                .bounds
                .split(',')
                .filter_map(|b| b.trim().parse::<u32>().ok())
                .sum();
            levels.entry(level).or_default().extend(&line.points);
        }
        let top = &facts.nodes[facts.top];
        let top_line = series.iter().find(|s| s.label == top.name).cloned();
        series = levels
            .into_iter()
            .map(|(level, points)| Series {
                label: format!("level m+n+d = {level}"),
                points: best_so_far(points),
                emphasis: false,
            })
            .collect();
        if let Some(mut line) = top_line {
            line.label = format!("top node {}", top.name);
            line.emphasis = true;
            series.push(line);
        }
        section.paragraphs.push(
            "Edges covered per lattice level (nodes whose bounds sum to the same m + n + d), each line the most any node of the level had covered by then, nodes placed at their start times in campaign.json; the thick line is the top node's own corpus.".into(),
        );
    } else if facts.campaign {
        // The union of the nodes' edge sets is not on disk; the best node so far is a lower
        // bound of it, and ends at the top node, which inherits every other node's inputs.
        let all: Vec<(f64, f64)> = series.iter().flat_map(|s| s.points.clone()).collect();
        series.push(Series {
            label: "overall (best node so far)".into(),
            points: best_so_far(all),
            emphasis: true,
        });
        section.paragraphs.push(
            "Edges covered by each node's corpus, each node placed at its start time in campaign.json; the thick line is the most any node had covered by then.".into(),
        );
    } else {
        section
            .paragraphs
            .push("Edges covered by the saved corpus (from coverage.csv).".into());
    }
    let x = if facts.campaign {
        "campaign time (s)"
    } else {
        "time (s)"
    };
    plot(
        "coverage.svg",
        "coverage over time",
        plots::lines("Coverage over time", x, "edges", &series),
        &mut section,
    );
    section
}

/// Up to this many nodes the coverage plot draws a line per node; beyond, a line per level.
const LINES_PER_NODE_UP_TO: usize = 12;

/// `points` in time order, each edge count raised to the most seen by then.
fn best_so_far(mut points: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut best = 0.0f64;
    points
        .into_iter()
        .map(|(t, e)| {
            best = best.max(e);
            (t, best)
        })
        .collect()
}

fn lattice(facts: &Facts) -> Section {
    let header = [
        "node",
        "bounds",
        "inputs",
        "state",
        "time (s)",
        "execs",
        "edges",
        "queue",
        "valid",
        "crashes",
        "hangs",
        "in top corpus",
    ];
    let rows = facts
        .nodes
        .iter()
        .map(|n| {
            vec![
                Cell::from(n.name.as_str()),
                n.bounds.as_str().into(),
                if n.valid_only { "valid only" } else { "all" }.into(),
                n.state.as_str().into(),
                format!("{:.1}", n.secs).into(),
                n.execs.to_string().into(),
                n.edges.to_string().into(),
                n.queue.to_string().into(),
                percent(n.valid, n.queue).into(),
                n.crashes.to_string().into(),
                n.hangs.to_string().into(),
                n.contributed.to_string().into(),
            ]
        })
        .collect();
    let paragraph = if facts.campaign {
        "One row per lattice node, in lattice order. \"In top corpus\": distinct inputs of the top node's queue that this node's queue held first (the node that found them; its successors inherit them as seeds).".to_string()
    } else {
        "The run's figures.".to_string()
    };
    Section {
        title: if facts.campaign {
            "Lattice".into()
        } else {
            "Run".into()
        },
        paragraphs: vec![paragraph],
        plot: facts.campaign.then(|| Plot {
            file: "lattice.svg".into(),
            title: "the lattice: seeding and contributions to the top corpus".into(),
            svg: super::lattice_picture::draw(&facts.nodes, facts.top),
        }),
        table: Some(Table {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows,
        }),
    }
}

fn valid(facts: &Facts) -> Section {
    let mut section = Section {
        title: "Valid share per node".into(),
        paragraphs: vec!["Share of each node's saved queue that the target accepted.".into()],
        ..Section::default()
    };
    let bars: Vec<(String, f64)> = facts
        .nodes
        .iter()
        .filter(|n| n.queue > 0)
        .map(|n| (n.name.clone(), n.valid as f64 / n.queue as f64))
        .collect();
    plot(
        "valid.svg",
        "valid share per node",
        plots::shares("Valid share of the queue", "valid inputs", &bars),
        &mut section,
    );
    section
}

fn sizes(facts: &Facts) -> Section {
    let mut section = Section {
        title: "Input sizes".into(),
        ..Section::default()
    };
    let mut sizes = facts.top_sizes.clone();
    sizes.sort_unstable();
    if sizes.is_empty() {
        section
            .paragraphs
            .push("The top node's queue is empty.".into());
        return section;
    }
    let mean = sizes.iter().sum::<usize>() as f64 / sizes.len() as f64;
    section.paragraphs.push(format!(
        "{} distinct inputs of the top node's queue: mean {:.1} bytes, median {} bytes, largest {} bytes.",
        sizes.len(),
        mean,
        sizes[sizes.len() / 2],
        sizes[sizes.len() - 1]
    ));
    plot(
        "sizes.svg",
        "distribution of input sizes",
        plots::histogram("Input sizes", "bytes", &sizes, 30),
        &mut section,
    );
    section
}

/// Most missing productions the report lists.
const MISSING_RULES: usize = 20;

/// The grammar coverage of what the campaign leaves its users, beside its code coverage: which
/// productions of the grammar no input uses is what a user can act on (by hand, or by asking
/// for a cover suite).
fn grammar_coverage(facts: &Facts) -> Option<Section> {
    let coverage = facts.grammar_coverage.as_ref()?;
    let code = match &facts.corpus {
        Some((manifest, _)) => format!("{} edges", manifest.edges),
        None => format!("{} edges", facts.nodes[facts.top].edges),
    };
    let mut section = Section {
        title: "Grammar coverage".into(),
        ..Section::default()
    };
    section.paragraphs.push(format!(
        "The {} inputs of {} (code coverage {code}), read as derivations of the grammar{}. Items no derivation can contain (unreachable, or deriving no word) are not counted.",
        coverage.inputs,
        coverage.of,
        if coverage.refused.is_empty() {
            String::new()
        } else {
            format!("; {} could not be read: {}", coverage.refused.len(), coverage.refused.join("; "))
        }
    ));
    section.table = Some(Table {
        header: vec![
            "criterion".into(),
            "covered".into(),
            "of".into(),
            "share".into(),
        ],
        rows: coverage
            .criteria
            .iter()
            .map(|c| {
                vec![
                    Cell::from(c.criterion.clone()),
                    Cell::from(c.covered.to_string()),
                    Cell::from(c.total.to_string()),
                    Cell::from(format!("{:.1}%", 100.0 * c.ratio)),
                ]
            })
            .collect(),
    });
    if let Some(rules) = coverage.criteria.iter().find(|c| c.criterion == "rule")
        && !rules.missing.is_empty()
    {
        let shown: Vec<&str> = rules
            .missing
            .iter()
            .take(MISSING_RULES)
            .map(String::as_str)
            .collect();
        section.paragraphs.push(format!(
            "Productions no input uses{}: {}.",
            if rules.missing.len() > MISSING_RULES {
                format!(
                    " ({} of {}; `bonsai coverage` lists all)",
                    MISSING_RULES,
                    rules.missing.len()
                )
            } else {
                String::new()
            },
            shown.join("; ")
        ));
    }
    Some(section)
}

fn unique_coverage(facts: &Facts) -> Section {
    let mut section = Section {
        title: "Top inputs by unique coverage".into(),
        ..Section::default()
    };
    let Some((manifest, relative)) = &facts.corpus else {
        section.paragraphs.push(format!(
            "No exported corpus in corpus/. Make one with `bonsai export {} --out {} --target {}` (or run `bonsai report --target {}`), which replays every input for its edges.",
            facts.dir.display(),
            super::corpus_dir(&facts.dir).display(),
            facts.target,
            facts.target
        ));
        return section;
    };
    let mut inputs: Vec<_> = manifest.inputs.iter().collect();
    inputs.sort_by(|a, b| {
        b.unique_edges
            .cmp(&a.unique_edges)
            .then(a.size.cmp(&b.size))
            .then(a.file.cmp(&b.file))
    });
    inputs.retain(|e| e.unique_edges > 0);
    section.paragraphs.push(format!(
        "The exported corpus ({} inputs, {} edges), replayed at export time: {} of its inputs cover edges that no other input covers{}",
        manifest.inputs.len(),
        manifest.edges,
        inputs.len(),
        if inputs.is_empty() {
            "."
        } else {
            "; the inputs with the most such edges:"
        }
    ));
    if inputs.is_empty() {
        return section;
    }
    let rows = inputs
        .iter()
        .take(TOP_INPUTS)
        .map(|e| {
            vec![
                Cell::Link {
                    text: e.file.clone(),
                    href: format!("{relative}/{}", e.file),
                },
                e.unique_edges.to_string().into(),
                e.edges.to_string().into(),
                e.size.to_string().into(),
                e.verdict.as_str().into(),
                e.node.clone().unwrap_or_default().into(),
                preview(&e.message).into(),
            ]
        })
        .collect();
    section.table = Some(Table {
        header: [
            "input",
            "unique edges",
            "edges",
            "bytes",
            "verdict",
            "node",
            "message",
        ]
        .iter()
        .map(|h| h.to_string())
        .collect(),
        rows,
    });
    section
}

fn faults(facts: &Facts) -> Section {
    let mut section = Section {
        title: "Faults".into(),
        ..Section::default()
    };
    if facts.faults.is_empty() {
        section
            .paragraphs
            .push("No crash, hang or out-of-memory input was saved.".into());
        return section;
    }
    section.paragraphs.push(format!(
        "{} faults, one per bug (a panic by its location, a stack overflow by its recursion, a hang by the loop its stack samples share), over every node and client, by first sighting; `bonsai faults` prints the same list with whole stacks, and `--export-tests` makes each a regression test.",
        facts.faults.len()
    ));
    section.table = Some(Table {
        header: [
            "reproducer",
            "kind",
            "where",
            "hits",
            "first (s)",
            "hit by",
            "stack",
            "message",
        ]
        .iter()
        .map(|h| h.to_string())
        .collect(),
        rows: facts
            .faults
            .iter()
            .map(|f| {
                vec![
                    Cell::Link {
                        text: format!("{} ({} B)", f.file, f.size),
                        href: f.file.clone(),
                    },
                    if f.flaky {
                        format!("{} (flaky)", f.kind).into()
                    } else {
                        f.kind.as_str().into()
                    },
                    f.location.as_str().into(),
                    f.count.to_string().into(),
                    format!("{:.0}", f.first_after).into(),
                    shortened(&f.seen_by).into(),
                    f.frames
                        .iter()
                        .take(3)
                        .map(|frame| crate::feedback::function_of(frame))
                        .collect::<Vec<_>>()
                        .join(" ← ")
                        .into(),
                    preview(&f.message).into(),
                ]
            })
            .collect(),
    });
    section
}

/// At most three names, and how many more.
fn shortened(names: &[String]) -> String {
    match names.len() {
        0..=3 => names.join(", "),
        n => format!("{} and {} more", names[..3].join(", "), n - 3),
    }
}

fn preview(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > 80 {
        format!("{}…", line.chars().take(80).collect::<String>())
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::CoveragePoint;
    use crate::report::NodeFacts;

    fn facts(nodes: Vec<NodeFacts>) -> Facts {
        Facts {
            dir: "c".into(),
            campaign: true,
            target: "t".into(),
            grammar: "g.ebnf".into(),
            max_bounds: "3,3,3".into(),
            top: nodes.len() - 1,
            nodes,
            top_sizes: Vec::new(),
            corpus: None,
            faults: Vec::new(),
            grammar_coverage: None,
            notes: Vec::new(),
        }
    }

    fn node(m: u32, n: u32, d: u32, edges: u64) -> NodeFacts {
        NodeFacts {
            name: format!("m{m}-n{n}-d{d}-u"),
            bounds: format!("{m},{n},{d}"),
            coverage: vec![
                CoveragePoint {
                    secs: 0.0,
                    ..CoveragePoint::default()
                },
                CoveragePoint {
                    secs: 1.0,
                    edges,
                    ..CoveragePoint::default()
                },
            ],
            ..NodeFacts::default()
        }
    }

    fn coverage_svg(facts: &Facts) -> String {
        coverage(facts).plot.expect("a plot").svg
    }

    #[test]
    fn many_nodes_are_drawn_one_line_per_level_with_the_top_node_apart() {
        let mut nodes = Vec::new();
        for m in 1..=3 {
            for n in 1..=3 {
                for d in 1..=2 {
                    nodes.push(node(m, n, d, u64::from(m + n + d) * 10));
                }
            }
        }
        let svg = coverage_svg(&facts(nodes));
        // Levels 3 (1,1,1) to 8 (3,3,2), and the top node; no line per node.
        for level in 3..=8 {
            assert!(svg.contains(&format!("level m+n+d = {level}\n")), "{level}");
        }
        assert!(!svg.contains("level m+n+d = 9\n"));
        assert!(svg.contains("top node m3-n3-d2-u"), "{svg}");
        assert!(!svg.contains("\nm1-n1-d1-u\n"));
    }

    #[test]
    fn a_few_nodes_keep_a_line_each() {
        let svg = coverage_svg(&facts(vec![node(1, 1, 1, 5), node(2, 1, 1, 9)]));
        assert!(svg.contains("\nm1-n1-d1-u\n") && svg.contains("\nm2-n1-d1-u\n"));
        assert!(svg.contains("overall (best node so far)"));
    }
}
