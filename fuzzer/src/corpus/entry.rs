//! What is known about one saved input, and its one-line, human-readable form.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::fault::Fault;

/// Per-testcase metadata: everything the on-disk corpus writes next to an input besides its
/// text and choices. Feedbacks fill it when they decide to keep an input; the store assigns
/// the number when it writes the files.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EntryInfo {
    /// File number (`NNNNNN`) once written.
    pub number: Option<u32>,
    /// Set for inputs replayed from this run's own queue on resume: their files exist already
    /// and must not be written again under a new number.
    pub existing: Option<u32>,
    /// The rendered input.
    pub text: String,
    pub valid: bool,
    /// Edges no earlier saved input had covered.
    pub new_edges: u32,
    /// Edges this input covers.
    pub edges: u32,
    /// File number of the corpus entry it was mutated from.
    pub parent: Option<u32>,
    /// The mutation (or `seed`, `generate`) that produced it.
    pub mutator: String,
    /// Seconds since the campaign started.
    pub found_at: f64,
    /// Set for crashes, hangs and out-of-memory inputs.
    pub fault: Option<Fault>,
    /// The size in bytes the input had when it was found, for an entry the loop trimmed.
    #[serde(default)]
    pub trimmed_from: Option<usize>,
}
libafl_bolts::impl_serdeany!(EntryInfo);

impl EntryInfo {
    /// The metadata line, for example
    /// `size=42 valid=yes edges=311 new_edges=3 parent=000007 mutator=splice time=12.5s` (with
    /// `trimmed_from=120` after it for a trimmed entry), and for
    /// a fault the kind, signature, message and first stack frames on following lines.
    pub fn to_text(&self) -> String {
        let mut line = format!(
            "size={} valid={} edges={} new_edges={} parent={} mutator={} time={:.3}s",
            self.text.len(),
            if self.valid { "yes" } else { "no" },
            self.edges,
            self.new_edges,
            self.parent
                .map_or_else(|| "-".to_string(), |p| format!("{p:06}")),
            self.mutator,
            self.found_at
        );
        if let Some(size) = self.trimmed_from {
            let _ = write!(line, " trimmed_from={size}");
        }
        if let Some(fault) = &self.fault {
            let _ = write!(
                line,
                " kind={} signature={:016x} message={:?}",
                fault.kind, fault.signature, fault.message
            );
            for frame in &fault.frames {
                let _ = write!(line, "\n  at {frame}");
            }
        }
        line.push('\n');
        line
    }

    /// Reads back the fields a resumed run or `bonsai replay` needs from a metadata file:
    /// `valid`, `edges`, `new_edges`, and for faults the kind and signature.
    pub fn parse_line(text: &str) -> ParsedMeta {
        let first = text.lines().next().unwrap_or_default();
        let mut meta = ParsedMeta::default();
        for field in first.split(' ') {
            let Some((key, value)) = field.split_once('=') else {
                continue;
            };
            match key {
                "valid" => meta.valid = Some(value == "yes"),
                "edges" => meta.edges = value.parse().ok(),
                "kind" => meta.kind = Some(value.to_string()),
                "signature" => meta.signature = u64::from_str_radix(value, 16).ok(),
                _ => {}
            }
        }
        meta
    }
}

/// Whether the metadata file at `path` can be read back: text whose first line has the `valid`
/// and `edges` fields that a resumed run, `replay` and the reports take from it. A missing
/// file, or one a crash or a stray write left truncated or overwritten, is written again
/// when a resumed run replays its entry (see `corpus::repair`).
pub fn meta_is_readable(path: &std::path::Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| {
        let meta = EntryInfo::parse_line(&text);
        meta.valid.is_some() && meta.edges.is_some()
    })
}

/// The fields of a metadata line that other commands read back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedMeta {
    pub valid: Option<bool>,
    pub edges: Option<u32>,
    pub kind: Option<String>,
    pub signature: Option<u64>,
}

/// Entries of `corpus` saved as valid: the valid share the status line, the coverage log and
/// the summary all report. An entry that is borrowed at the moment (being mutated) is not
/// counted rather than risking a panic in a display path.
pub fn valid_entries<C: libafl::corpus::Corpus<crate::choice::ChoiceInput>>(corpus: &C) -> usize {
    use libafl::HasMetadata;
    corpus
        .ids()
        .filter(|&id| {
            corpus.get(id).is_ok_and(|t| {
                t.try_borrow()
                    .is_ok_and(|t| t.metadata::<EntryInfo>().is_ok_and(|i| i.valid))
            })
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::FaultKind;

    #[test]
    fn metadata_lines_round_trip_the_fields_read_back() {
        let info = EntryInfo {
            number: Some(3),
            text: "print 1;".into(),
            valid: true,
            new_edges: 2,
            edges: 17,
            parent: Some(1),
            mutator: "splice".into(),
            found_at: 1.5,
            fault: Some(Fault {
                kind: FaultKind::Panic,
                signature: 0xabc,
                message: "boom at x.rs:1:2".into(),
                frames: vec!["check_block (src/lib.rs:10)".into()],
            }),
            ..EntryInfo::default()
        };
        let text = info.to_text();
        assert!(text.starts_with("size=8 valid=yes edges=17 new_edges=2 parent=000001 mutator=splice time=1.500s kind=panic signature=0000000000000abc"));
        assert!(text.contains("\n  at check_block (src/lib.rs:10)\n"));
        let parsed = EntryInfo::parse_line(&text);
        assert_eq!(parsed.valid, Some(true));
        assert_eq!(parsed.edges, Some(17));
        assert_eq!(parsed.kind.as_deref(), Some("panic"));
        assert_eq!(parsed.signature, Some(0xabc));
    }
}
