//! `faults.json`: a fuzzing process's buckets with their counts and times, for `bonsai faults`
//! and the report, which merge the logs of every node and client of a run into one list.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{BucketKey, BucketStats, FaultKind, SeenFaults};
use crate::diagnostic::Diagnostic;

/// One bucket's line in the log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BucketLine {
    /// `FaultKind`'s word.
    pub kind: String,
    /// 16 hex digits, as in `.meta` files.
    pub signature: String,
    /// As in `BucketStats`.
    pub count: u64,
    /// As in `BucketStats`.
    pub first_seen: f64,
    /// As in `BucketStats`.
    pub last_seen: f64,
    /// As in `BucketStats`.
    pub smallest: usize,
}

/// The whole file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FaultLog {
    /// One line per bucket.
    pub buckets: Vec<BucketLine>,
}

impl FaultLog {
    /// The log of what `seen` holds, buckets in a stable order.
    pub fn of(seen: &SeenFaults) -> FaultLog {
        let mut buckets: Vec<BucketLine> = seen
            .buckets
            .iter()
            .map(|(&(kind, signature), stats)| BucketLine {
                kind: kind.to_string(),
                signature: format!("{signature:016x}"),
                count: stats.count,
                first_seen: stats.first_seen,
                last_seen: stats.last_seen,
                smallest: stats.smallest,
            })
            .collect();
        buckets.sort_by(|a, b| (&a.kind, &a.signature).cmp(&(&b.kind, &b.signature)));
        FaultLog { buckets }
    }

    /// The buckets as keys and statistics; a line whose kind or signature does not read is
    /// left out (written by a later version, or edited by hand).
    pub fn entries(&self) -> impl Iterator<Item = (BucketKey, BucketStats)> + '_ {
        self.buckets.iter().filter_map(|line| {
            let kind = FaultKind::parse(&line.kind)?;
            let signature = u64::from_str_radix(&line.signature, 16).ok()?;
            Some((
                (kind, signature),
                BucketStats {
                    count: line.count,
                    first_seen: line.first_seen,
                    last_seen: line.last_seen,
                    smallest: line.smallest,
                },
            ))
        })
    }

    /// Writes the log atomically: a kill leaves the previous one or this one.
    pub fn write(&self, path: &Path) -> Result<(), Diagnostic> {
        let json = serde_json::to_string(self).expect("plain data serializes");
        crate::write_atomic_unsynced(path, json.as_bytes())
    }

    /// Reads a log; `Ok(None)` when there is none (a run that saw no fault, or one from before
    /// logs were written); a damaged one is an error at its line and column.
    pub fn read(path: &Path) -> Result<Option<FaultLog>, Diagnostic> {
        if !path.exists() {
            return Ok(None);
        }
        crate::read_json(path, "a fault log").map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_round_trip_and_damaged_ones_are_located() {
        let mut seen = SeenFaults::default();
        seen.see((FaultKind::StackOverflow, 0xabc), 12, 5.0);
        seen.see((FaultKind::StackOverflow, 0xabc), 9, 6.0);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("faults.json");
        assert_eq!(FaultLog::read(&path).unwrap(), None);
        FaultLog::of(&seen).write(&path).unwrap();
        let log = FaultLog::read(&path).unwrap().unwrap();
        let entries: Vec<_> = log.entries().collect();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].0, (FaultKind::StackOverflow, 0xabc));
        assert_eq!(entries[0].1.count, 2);
        assert_eq!(entries[0].1.smallest, 9);

        std::fs::write(&path, "{\"buckets\": [\n  {\"kind\": 3}").unwrap();
        let error = FaultLog::read(&path).unwrap_err();
        let location = error.location.clone().expect("located");
        assert_eq!(location.line, 2, "{error}");
    }
}
