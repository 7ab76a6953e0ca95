//! The lattice view on stderr: which nodes are done, running and waiting, what the running
//! ones are doing, and about how long is left.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::progress::NodeProgress;
use super::state::{CampaignState, NodeStatus};
use crate::lattice::Node;
use crate::sampler::Bounds;

/// A plain log line this often when stderr is not a terminal.
const LOG_INTERVAL: Duration = Duration::from_secs(30);

/// A node being fuzzed now.
#[derive(Clone, Debug)]
pub struct RunningNode {
    pub name: String,
    pub elapsed_secs: f64,
    pub progress: NodeProgress,
}

pub struct LatticeView {
    bar: Option<ProgressBar>,
    log: bool,
    next_log: Instant,
}

impl LatticeView {
    pub fn new(show: bool) -> Self {
        let terminal = show && std::io::stderr().is_terminal();
        let bar = terminal.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(4));
            bar.set_style(ProgressStyle::with_template("{msg}").expect("valid template"));
            bar
        });
        Self {
            bar,
            log: show && !terminal,
            next_log: Instant::now() + LOG_INTERVAL,
        }
    }

    pub fn update(&mut self, state: &CampaignState, running: &[RunningNode], jobs: usize) {
        if let Some(bar) = &self.bar {
            bar.set_message(render(state, running, jobs));
        } else if self.log && Instant::now() >= self.next_log {
            self.next_log = Instant::now() + LOG_INTERVAL;
            tracing::info!("{}", headline(state, running, jobs));
        }
    }

    /// A line that stays above the live view (node started, finished, failed).
    pub fn event(&self, line: &str) {
        if let Some(bar) = &self.bar {
            bar.println(line);
        } else if self.log {
            tracing::info!("{line}");
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

fn headline(state: &CampaignState, running: &[RunningNode], jobs: usize) -> String {
    let mut line = format!(
        "lattice {}: {}/{} done, {} running, {} waiting",
        state.max_bounds,
        state.count(NodeStatus::Done),
        state.nodes.len(),
        running.len(),
        state.nodes.len() - state.count(NodeStatus::Done) - running.len()
    );
    let failed = state.count(NodeStatus::Failed);
    if failed > 0 {
        let _ = write!(line, " ({failed} failed)");
    }
    if let Some(left) = estimate_left(state, running, jobs) {
        let _ = write!(line, ", about {} left", human(left));
    }
    line
}

/// The headline, one grid per depth (rows m, columns n, each cell the r and u node:
/// `#` done, `>` running, `.` waiting, `!` failed) and a line per running node.
pub fn render(state: &CampaignState, running: &[RunningNode], jobs: usize) -> String {
    let mut out = headline(state, running, jobs);
    out.push('\n');
    if let Ok(max) = state.max_bounds.parse::<Bounds>() {
        let mark = |m, n, d, v: char| {
            let name = format!("m{m}-n{n}-d{d}-{v}");
            if running.iter().any(|r| r.name == name) {
                return '>';
            }
            match state.node(&name).map(|s| s.state) {
                Some(NodeStatus::Done) => '#',
                Some(NodeStatus::Failed) => '!',
                _ => '.',
            }
        };
        let mut header = String::from("      ");
        for _ in 1..=max.depth {
            for n in 1..=max.items {
                let _ = write!(header, " n{n:<2}");
            }
            header.push_str("       ");
        }
        out.push_str(header.trim_end());
        out.push('\n');
        for m in 1..=max.idents {
            let mut row = String::new();
            for d in 1..=max.depth {
                let label = if m == 1 {
                    format!("d{d}")
                } else {
                    String::new()
                };
                let _ = write!(row, "  {label:<3}m{m}");
                for n in 1..=max.items {
                    let _ = write!(row, " {}{} ", mark(m, n, d, 'r'), mark(m, n, d, 'u'));
                }
            }
            out.push_str(row.trim_end());
            out.push('\n');
        }
    }
    for r in running {
        let _ = write!(out, "  {:<13} {:>7}", r.name, human(r.elapsed_secs));
        match r.progress.execs_per_sec {
            Some(rate) => {
                let _ = write!(out, " {rate:>8.0} execs/s");
            }
            None => out.push_str("        - execs/s"),
        }
        match r.progress.edges {
            Some(edges) => {
                let _ = write!(out, " {edges:>6} edges");
            }
            None => out.push_str("      - edges"),
        }
        let _ = writeln!(out, "  corpus {}", r.progress.corpus);
    }
    out.pop();
    out
}

/// Seconds left, roughly: nodes still to run times the time a node takes (the mean of the
/// finished ones, or the time budget before any finished), spread over the jobs, but never
/// less than the chain of lattice levels still to climb, which must run one after another.
/// `None` when nothing says how long a node takes (an execution budget and no node done).
pub fn estimate_left(state: &CampaignState, running: &[RunningNode], jobs: usize) -> Option<f64> {
    if let Some(total) = state.budget_secs {
        // Under a budget the lattice spends the budget, however the nodes share it.
        let spent: f64 = state
            .nodes
            .iter()
            .filter(|n| n.state == NodeStatus::Done)
            .map(|n| n.elapsed_secs)
            .chain(running.iter().map(|r| r.elapsed_secs))
            .sum();
        return Some((total - spent).max(0.0) / jobs.max(1) as f64);
    }
    let done: Vec<f64> = state
        .nodes
        .iter()
        .filter(|n| n.state == NodeStatus::Done)
        .map(|n| n.elapsed_secs)
        .collect();
    let per_node = if done.is_empty() {
        if state.node_execs.is_some() {
            return None;
        }
        state.node_time_secs
    } else {
        (done.iter().sum::<f64>() / done.len() as f64).min(state.node_time_secs)
    };
    let running_left: Vec<f64> = running
        .iter()
        .map(|r| (per_node - r.elapsed_secs).max(0.0))
        .collect();
    let waiting: Vec<Node> = state
        .nodes
        .iter()
        .filter(|n| n.state != NodeStatus::Done && !running.iter().any(|r| r.name == n.name))
        .filter_map(|n| n.name.parse().ok())
        .collect();
    let work = waiting.len() as f64 * per_node + running_left.iter().sum::<f64>();
    // Waiting nodes can start no earlier than the first running node ends.
    let first_wait = running_left.iter().copied().reduce(f64::min).unwrap_or(0.0);
    let levels = match (
        waiting.iter().map(Node::rank).min(),
        waiting.iter().map(Node::rank).max(),
    ) {
        (Some(lo), Some(hi)) => f64::from(hi - lo + 1),
        _ => 0.0,
    };
    let chain = first_wait + levels * per_node;
    let longest_running = running_left.iter().copied().fold(0.0, f64::max);
    Some((work / jobs.max(1) as f64).max(chain).max(longest_running))
}

/// `42s`, `3m05s`, `2h10m`.
pub fn human(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lattice::Lattice;

    fn state() -> CampaignState {
        let lattice = Lattice::new("2,2,1".parse().unwrap());
        CampaignState {
            version: 1,
            target: "t".into(),
            grammar: "g".into(),
            grammar_fingerprint: "0".into(),
            max_bounds: "2,2,1".into(),
            node_time_secs: 10.0,
            saturate_secs: None,
            saturate_execs: None,
            node_execs: None,
            budget_secs: None,
            jobs: 2,
            cores_per_node: 1,
            seed: 0,
            timeout_ms: 1,
            save_on: crate::feedback::CoverageGrain::Edges,
            trim_tests: 0,
            grammar_feedback: None,
            seeds: Vec::new(),
            created_unix: 0.0,
            nodes: CampaignState::nodes_of(&lattice),
            top: lattice.top().slug(),
        }
    }

    #[test]
    fn grid_marks_each_node_and_running_lines_show_progress() {
        let mut s = state();
        s.node_mut("m1-n1-d1-r").unwrap().state = NodeStatus::Done;
        s.node_mut("m1-n1-d1-r").unwrap().elapsed_secs = 4.0;
        s.node_mut("m2-n1-d1-r").unwrap().state = NodeStatus::Failed;
        let running = [RunningNode {
            name: "m1-n1-d1-u".into(),
            elapsed_secs: 1.0,
            progress: NodeProgress {
                execs_per_sec: Some(1234.0),
                edges: Some(56),
                corpus: 7,
                ..NodeProgress::default()
            },
        }];
        let text = render(&s, &running, 2);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("lattice 2,2,1: 1/8 done, 1 running, 6 waiting (1 failed)"),
            "{text}"
        );
        assert_eq!(lines[2].trim_end(), "  d1 m1 #>  ..", "{text}");
        assert_eq!(lines[3].trim_end(), "     m2 !.  ..");
        assert!(lines[4].contains("m1-n1-d1-u") && lines[4].contains("1234 execs/s"));
        assert!(lines[4].contains("56 edges") && lines[4].ends_with("corpus 7"));
    }

    #[test]
    fn estimate_uses_finished_nodes_and_the_chain_of_levels() {
        let mut s = state();
        // Before anything finished: the time budget per node. 8 nodes, levels 0..=3 on 2
        // jobs: 8 * 10 / 2 = 40 s of work, 4 levels * 10 s = 40 s of chain.
        assert_eq!(estimate_left(&s, &[], 2), Some(40.0));
        // On one job the work dominates.
        assert_eq!(estimate_left(&s, &[], 1), Some(80.0));
        s.node_mut("m1-n1-d1-r").unwrap().state = NodeStatus::Done;
        s.node_mut("m1-n1-d1-r").unwrap().elapsed_secs = 2.0;
        // 7 nodes left at 2 s each on many jobs: the 3 remaining levels take 6 s.
        assert_eq!(estimate_left(&s, &[], 16), Some(6.0));
        s.node_execs = Some(100);
        s.node_mut("m1-n1-d1-r").unwrap().state = NodeStatus::Waiting;
        assert_eq!(estimate_left(&s, &[], 2), None);
    }
}
