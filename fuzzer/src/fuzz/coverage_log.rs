//! `OUT/coverage.csv`: the run's coverage over time, for `bonsai report`.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use libafl::HasMetadata;
use libafl::corpus::Corpus;
use libafl::state::{HasCorpus, HasExecutions};

use super::summary::Summary;
use crate::choice::ChoiceInput;
use crate::corpus::{OutDir, valid_entries};
use crate::diagnostic::Diagnostic;
use crate::feedback::{CoverageHistory, QueuePaths, SaveCriteria};

pub use crate::layout::COVERAGE_CSV;
pub const COVERAGE_HEADER: &str = "secs,execs,edges,corpus,valid,crashes,hangs";
const INTERVAL: Duration = Duration::from_secs(1);

/// One line of `coverage.csv`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CoveragePoint {
    /// Seconds of fuzzing in this output directory, earlier runs included.
    pub secs: f64,
    /// Executions, earlier runs included.
    pub execs: u64,
    /// Edges covered so far, by the run's own count.
    pub edges: u64,
    /// Entries in the corpus.
    pub corpus: u64,
    /// Valid entries in the corpus.
    pub valid: u64,
    /// Crashes (out-of-memory included) saved in the output directory.
    pub crashes: u64,
    /// Hangs saved in the output directory.
    pub hangs: u64,
    /// Distinct k-paths of the grammar the queue's derivations hold (the k is in the header);
    /// absent in logs of older runs and of the Nautilus baseline, whose trees are not
    /// Bonsai's.
    pub kpaths: Option<u64>,
}

impl CoveragePoint {
    /// The point as a line of the log, newline included, so that a whole line is one write.
    pub fn to_line(self) -> String {
        let kpaths = self.kpaths.map(|k| format!(",{k}")).unwrap_or_default();
        format!(
            "{:.3},{},{},{},{},{},{}{kpaths}\n",
            self.secs, self.execs, self.edges, self.corpus, self.valid, self.crashes, self.hangs
        )
    }

    /// One line of the log; `None` for the header and for a malformed or torn line.
    pub fn parse(line: &str) -> Option<Self> {
        let mut fields = line.trim().split(',');
        let mut next = || fields.next().map(str::trim);
        let secs: f64 = next()?.parse().ok()?;
        let mut int = || next().and_then(|f| f.parse::<u64>().ok());
        let point = CoveragePoint {
            secs,
            execs: int()?,
            edges: int()?,
            corpus: int()?,
            valid: int()?,
            crashes: int()?,
            hangs: int()?,
            kpaths: int(),
        };
        secs.is_finite().then_some(point)
    }
}

/// Reads a `coverage.csv`, with the line number of the first malformed line as the error.
pub fn read_coverage(path: &Path) -> Result<Vec<CoveragePoint>, Diagnostic> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Diagnostic::error(format!("cannot read: {e}")).in_file(path))?;
    let mut points = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if number == 0 && line.starts_with("secs") || line.trim().is_empty() {
            continue;
        }
        let point = CoveragePoint::parse(line).ok_or_else(|| {
            Diagnostic::error(format!("expected {COVERAGE_HEADER} numbers, got '{line}'")).at(
                crate::diagnostic::Location {
                    path: path.to_path_buf(),
                    line: number + 1,
                    column: 1,
                },
            )
        })?;
        points.push(point);
    }
    Ok(points)
}

/// The last complete line of a `coverage.csv`, read from the file's end: a multi-core run's
/// coordinator asks every second for each client's, and a log grows by a line a second.
pub fn last_coverage_point(path: &Path) -> Option<CoveragePoint> {
    const TAIL: u64 = 4096;
    let mut file = File::open(path).ok()?;
    let length = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(length.saturating_sub(TAIL)))
        .ok()?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).ok()?;
    let tail = String::from_utf8_lossy(&tail);
    // A line still being written has no newline yet; the first line of the tail may be cut.
    let complete = &tail[..tail.rfind('\n')?];
    complete.lines().rev().find_map(CoveragePoint::parse)
}

/// Where the earlier runs of an output directory left off. Called once by the supervisor
/// before the fuzzing process starts, so that the processes LibAFL restarts after a crash
/// continue the same clock and the same file. Creates the file with its header and a line at
/// the origin for a fresh run; cuts off a line torn by a kill, so that appending starts on a
/// fresh line.
pub fn resume_offset(out: &Path, kpaths: Option<usize>) -> (f64, u64) {
    let path = out.join(COVERAGE_CSV);
    let Ok(mut file) = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
    else {
        tracing::warn!("{}: cannot write the coverage log", path.display());
        return (0.0, 0);
    };
    let mut text = String::new();
    if file.read_to_string(&mut text).is_err() {
        return (0.0, 0);
    }
    let complete = text.rfind('\n').map_or(0, |i| i + 1);
    if complete < text.len() {
        let _ = file.set_len(complete as u64);
    }
    if complete == 0 {
        let origin = CoveragePoint {
            kpaths: kpaths.map(|_| 0),
            ..CoveragePoint::default()
        };
        let header = match kpaths {
            Some(k) => format!("{COVERAGE_HEADER},kpath{k}"),
            None => COVERAGE_HEADER.to_string(),
        };
        let start = format!("{header}\n{}", origin.to_line());
        let _ = file
            .seek(SeekFrom::Start(0))
            .and_then(|_| file.write_all(start.as_bytes()));
        return (0.0, 0);
    }
    text[..complete]
        .lines()
        .rev()
        .find_map(CoveragePoint::parse)
        .map_or((0.0, 0), |p| (p.secs, p.execs))
}

/// Appends a line about every second. Cheap enough to call after every execution: it reads
/// the clock once per 64 calls, and only then counts the corpus.
pub struct CoverageLog {
    file: Option<File>,
    path: PathBuf,
    out: PathBuf,
    criteria: SaveCriteria,
    started: Instant,
    offset: (f64, u64),
    next: Instant,
    calls: u32,
}

impl CoverageLog {
    /// `offset` comes from [`resume_offset`]; `started` is when this run started.
    pub fn open(out: &Path, criteria: SaveCriteria, started: Instant, offset: (f64, u64)) -> Self {
        let path = out.join(COVERAGE_CSV);
        let file = OpenOptions::new().append(true).open(&path);
        let file = match file {
            Ok(f) => Some(f),
            Err(e) => {
                tracing::warn!("{}: cannot write the coverage log: {e}", path.display());
                None
            }
        };
        Self {
            file,
            path,
            out: out.to_path_buf(),
            criteria,
            started,
            offset,
            next: Instant::now(),
            calls: 0,
        }
    }

    pub fn tick<S>(&mut self, state: &S)
    where
        S: HasExecutions + HasMetadata + HasCorpus<ChoiceInput>,
    {
        self.calls += 1;
        if self.calls < 64 {
            return;
        }
        self.calls = 0;
        let now = Instant::now();
        if now < self.next {
            return;
        }
        self.next = now + INTERVAL;
        let corpus = state.corpus();
        let valid = valid_entries(corpus);
        let faults = OutDir {
            root: self.out.clone(),
            resumed: true,
        }
        .fault_counts();
        let point = CoveragePoint {
            secs: self.offset.0 + self.started.elapsed().as_secs_f64(),
            execs: self.offset.1 + *state.executions(),
            edges: state
                .metadata::<CoverageHistory>()
                .map_or(0, |h| h.corpus_edges(self.criteria)) as u64,
            corpus: corpus.count() as u64,
            valid: valid as u64,
            crashes: (faults.crashes + faults.ooms + faults.wrong_answers) as u64,
            hangs: faults.hangs as u64,
            kpaths: Some(state.metadata::<QueuePaths>().map_or(0, QueuePaths::len) as u64),
        };
        self.append(point);
    }

    /// The last line: exactly the summary's figures.
    pub fn finish(&mut self, summary: &Summary) {
        let point = CoveragePoint {
            secs: self.offset.0 + summary.elapsed_secs,
            execs: self.offset.1 + summary.execs,
            edges: summary.edges as u64,
            corpus: summary.corpus as u64,
            valid: (summary.valid_share * summary.corpus as f64).round() as u64,
            crashes: (summary.crashes + summary.ooms + summary.wrong_answers) as u64,
            hangs: summary.hangs as u64,
            kpaths: summary.kpaths.map(|k| k as u64),
        };
        self.append(point);
    }

    fn append(&mut self, point: CoveragePoint) {
        if let Some(file) = &mut self.file
            && let Err(e) = file.write_all(point.to_line().as_bytes())
        {
            tracing::warn!(
                "{}: cannot write the coverage log: {e}",
                self.path.display()
            );
            self.file = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resuming_continues_the_clock_and_cuts_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(COVERAGE_CSV);
        assert_eq!(resume_offset(dir.path(), None), (0.0, 0));
        let fresh = std::fs::read_to_string(&path).unwrap();
        assert_eq!(fresh, format!("{COVERAGE_HEADER}\n0.000,0,0,0,0,0,0\n"));
        // A restarted fuzzing process of the same run must not start the curve again.
        assert_eq!(resume_offset(dir.path(), None), (0.0, 0));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), fresh);
        std::fs::write(
            &path,
            format!("{COVERAGE_HEADER}\n1.000,10,5,2,1,0,0\n2.500,40,7,3,2,0,1\n3.1,5"),
        )
        .unwrap();
        assert_eq!(resume_offset(dir.path(), None), (2.5, 40));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("2.500,40,7,3,2,0,1\n"), "{text}");
        let points = read_coverage(&path).unwrap();
        assert_eq!(points.len(), 2);
        assert_eq!(last_coverage_point(&path), Some(points[1]));
        assert_eq!(points[1].hangs, 1);
        std::fs::write(&path, format!("{COVERAGE_HEADER}\n1.0,x,5,2,1,0,0\n")).unwrap();
        let error = read_coverage(&path).unwrap_err();
        assert_eq!(
            error.location.as_ref().map(|l| l.line),
            Some(2),
            "{error:?}"
        );
    }
}
