//! What a running node has done so far, read from its output directory.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::fuzz::{COVERAGE_CSV, CoveragePoint};
use crate::layout::QUEUE_DIR;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NodeProgress {
    /// Seconds of fuzzing and executions so far in the node's directory (all attempts).
    pub secs: Option<f64>,
    pub execs: Option<u64>,
    /// Executions per second: the whole run's average until [`NodeProgress::since`] has an
    /// earlier reading to compare with.
    pub execs_per_sec: Option<f64>,
    pub edges: Option<u64>,
    pub corpus: usize,
}

impl NodeProgress {
    /// From the last line of `coverage.csv` when the fuzz loop writes one; otherwise only the
    /// number of complete entries in the queue is known.
    pub fn read(node_dir: &Path) -> NodeProgress {
        if let Some(progress) =
            last_line(&node_dir.join(COVERAGE_CSV)).and_then(|l| CoveragePoint::parse(&l))
        {
            return NodeProgress::from(progress);
        }
        NodeProgress {
            corpus: count_entries(&node_dir.join(QUEUE_DIR)),
            ..NodeProgress::default()
        }
    }
}

impl NodeProgress {
    /// The current rate: executions between an earlier reading and this one.
    pub fn since(mut self, earlier: &NodeProgress) -> NodeProgress {
        if let (Some(s0), Some(e0), Some(s1), Some(e1)) =
            (earlier.secs, earlier.execs, self.secs, self.execs)
            && s1 > s0
            && e1 >= e0
        {
            self.execs_per_sec = Some((e1 - e0) as f64 / (s1 - s0));
        }
        self
    }
}

/// A node's progress from a line of its coverage log, parsed by the log's own reader so the
/// campaign view and the report read the file one way.
impl From<CoveragePoint> for NodeProgress {
    fn from(point: CoveragePoint) -> Self {
        NodeProgress {
            secs: Some(point.secs),
            execs: Some(point.execs),
            execs_per_sec: (point.secs > 0.0).then(|| point.execs as f64 / point.secs),
            edges: Some(point.edges),
            corpus: usize::try_from(point.corpus).unwrap_or(usize::MAX),
        }
    }
}

/// The last complete line of a file that may be growing, reading only its tail.
fn last_line(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let start = len.saturating_sub(4096);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut tail = String::new();
    file.read_to_string(&mut tail).ok()?;
    let complete = &tail[..tail.rfind('\n')?];
    complete.lines().last().map(str::to_string)
}

pub fn count_entries(dir: &Path) -> usize {
    crate::corpus::EntryDir::new(dir).complete().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_last_complete_csv_line_or_counts_the_queue() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("queue")).unwrap();
        std::fs::write(dir.path().join("queue/000000.meta"), "x").unwrap();
        std::fs::write(dir.path().join("queue/000001.meta"), "x").unwrap();
        assert_eq!(
            NodeProgress::read(dir.path()),
            NodeProgress {
                corpus: 2,
                ..NodeProgress::default()
            }
        );
        std::fs::write(
            dir.path().join(COVERAGE_CSV),
            "secs,execs,edges,corpus,valid,crashes,hangs\n2.0,1000,40,7,5,0,0\n4.0,3000,45,9,6,0,0\n5.0,40",
        )
        .unwrap();
        let p = NodeProgress::read(dir.path());
        assert_eq!(p.edges, Some(45));
        assert_eq!(p.corpus, 9);
        assert_eq!(p.execs_per_sec, Some(750.0));
        let earlier = NodeProgress {
            secs: Some(2.0),
            execs: Some(1000),
            ..NodeProgress::default()
        };
        assert_eq!(p.since(&earlier).execs_per_sec, Some(1000.0));
    }
}
