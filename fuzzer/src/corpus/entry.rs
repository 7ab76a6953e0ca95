//! What is known about one saved input, and its metadata file (one JSON line).

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
    /// The rendered input, until the store has written it to the entry's text file
    /// ([`Self::release_text`]): a long run would otherwise hold every entry's text twice, once
    /// on disk and once here, though nothing reads it back from memory.
    pub text: String,
    /// The text's length in bytes once [`Self::release_text`] has dropped the text; `None`
    /// while `text` holds it. Read it through [`Self::size`].
    #[serde(default)]
    pub released_size: Option<usize>,
    /// Whether the target accepted the input as valid (as opposed to rejecting it).
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
    /// The target's run time in milliseconds, for an entry kept because its run was slow for
    /// its size (`feedback::SlowPaths`) rather than for coverage.
    #[serde(default)]
    pub slow_ms: Option<f64>,
}
libafl_bolts::impl_serdeany!(EntryInfo);

impl EntryInfo {
    /// The text's length in bytes, held or released.
    pub fn size(&self) -> usize {
        self.released_size.unwrap_or(self.text.len())
    }

    /// Drops the text, keeping its length: the store calls this once the text file holds it.
    pub fn release_text(&mut self) {
        self.released_size = Some(self.size());
        self.text = String::new();
    }

    /// Gives the entry a new text (a trimmed input's), to be written and released again.
    pub fn set_text(&mut self, text: String) {
        self.text = text;
        self.released_size = None;
    }

    /// The metadata file's content: one JSON object on one line (JSON lines, so that any
    /// tool reads it), for example `{"size":42,"valid":true,"edges":311,"new_edges":3,
    /// "parent":7,"mutator":"splice","time":12.5}`, with `trimmed_from` for a trimmed entry
    /// and `fault` (kind, signature as 16 hex digits, message, first stack frames) for a fault.
    pub fn to_text(&self) -> String {
        MetaRecord {
            size: self.size(),
            valid: self.valid,
            edges: self.edges,
            new_edges: self.new_edges,
            parent: self.parent,
            mutator: self.mutator.clone(),
            time: (self.found_at * 1000.0).round() / 1000.0,
            trimmed_from: self.trimmed_from,
            slow_ms: self.slow_ms,
            fault: self.fault.as_ref().map(|fault| FaultRecord {
                kind: fault.kind.to_string(),
                signature: format!("{:016x}", fault.signature),
                message: fault.message.clone(),
                location: fault.location.clone(),
                frames: fault.frames.clone(),
                recursion: fault.recursion.clone(),
                texts: fault.texts.clone(),
                flaky: false,
            }),
        }
        .to_line()
    }

    /// Reads back the fields a resumed run or `bonsai replay` needs from a metadata file:
    /// `valid`, `edges`, and for faults the kind and signature. Reads the JSON line and the
    /// `key=value` line that outputs written before it hold.
    pub fn parse_line(text: &str) -> ParsedMeta {
        let first = text.lines().next().unwrap_or_default();
        if first.trim_start().starts_with('{') {
            let Ok(record) = serde_json::from_str::<MetaRecord>(first) else {
                return ParsedMeta::default();
            };
            return ParsedMeta {
                size: Some(record.size),
                valid: Some(record.valid),
                edges: Some(record.edges),
                kind: record.fault.as_ref().map(|f| f.kind.clone()),
                signature: record
                    .fault
                    .as_ref()
                    .and_then(|f| u64::from_str_radix(&f.signature, 16).ok()),
                message: record.fault.map(|f| f.message),
            };
        }
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
        meta.message = first
            .split_once(" message=")
            .map(|(_, m)| m.trim_matches('"').to_string());
        meta
    }
}

/// A metadata file's one line, as written and read back whole (`triage` lists faults from it).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MetaRecord {
    /// The input's size in bytes.
    pub size: usize,
    /// Whether the target accepted it.
    pub valid: bool,
    /// Edges it covers.
    pub edges: u32,
    /// Edges no earlier entry covered.
    pub new_edges: u32,
    /// The entry it was mutated from.
    pub parent: Option<u32>,
    /// How it was made.
    pub mutator: String,
    /// Seconds since the campaign started.
    pub time: f64,
    /// Its size when found, for an entry the loop trimmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trimmed_from: Option<usize>,
    /// For an entry kept for its slowness: the target's run time in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_ms: Option<f64>,
    /// For a fault: what it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<FaultRecord>,
}

impl MetaRecord {
    /// Reads the JSON line of a metadata file; the error has serde's line and column.
    pub fn read(text: &str) -> Result<MetaRecord, serde_json::Error> {
        serde_json::from_str(text.lines().next().unwrap_or_default())
    }

    /// The line as written, newline included.
    pub fn to_line(&self) -> String {
        let mut line = serde_json::to_string(self).expect("plain data serializes");
        line.push('\n');
        line
    }
}

/// A fault's part of a metadata line.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FaultRecord {
    /// `FaultKind`'s word.
    pub kind: String,
    /// 16 hex digits: JSON numbers lose precision past 2^53 in most readers.
    pub signature: String,
    /// One line for the user.
    pub message: String,
    /// What the bucket was computed from, in words (empty in outputs of earlier versions).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub location: String,
    /// The first frames of the target's stack.
    pub frames: Vec<String>,
    /// A stack overflow's recurring functions, sorted (`Fault::recursion`); absent otherwise
    /// and in outputs of earlier versions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recursion: Vec<String>,
    /// A wrong answer's texts, `[name, text]` pairs (`Fault::texts`): the print, the second
    /// print, the other side's message; absent otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub texts: Vec<(String, String)>,
    /// Set when a rerun of the input in a fresh process did not fault the same way.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flaky: bool,
}

/// The fields of a metadata line that other commands read back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedMeta {
    /// The input's size in bytes (JSON lines only).
    pub size: Option<usize>,
    /// The `valid` field; `None` when the line does not have it (unreadable metadata).
    pub valid: Option<bool>,
    /// How many edges the input covered.
    pub edges: Option<u32>,
    /// A fault's kind as written (`panic`, `crash`, `timeout`, `oom`); `None` for queue entries.
    pub kind: Option<String>,
    /// A fault's signature, parsed back from its 16 hex digits.
    pub signature: Option<u64>,
    /// A fault's message.
    pub message: Option<String>,
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
                location: "x.rs:1:2 in check_block".into(),
                frames: vec!["check_block (src/lib.rs:10)".into()],
                recursion: Vec::new(),
                texts: Vec::new(),
            }),
            ..EntryInfo::default()
        };
        let text = info.to_text();
        assert_eq!(text.lines().count(), 1, "{text}");
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["size"], 8);
        assert_eq!(json["parent"], 1);
        assert_eq!(json["mutator"], "splice");
        assert_eq!(json["time"], 1.5);
        assert_eq!(json["fault"]["signature"], "0000000000000abc");
        assert_eq!(json["fault"]["frames"][0], "check_block (src/lib.rs:10)");
        let parsed = EntryInfo::parse_line(&text);
        assert_eq!(parsed.valid, Some(true));
        assert_eq!(parsed.edges, Some(17));
        assert_eq!(parsed.kind.as_deref(), Some("panic"));
        assert_eq!(parsed.signature, Some(0xabc));
    }

    /// Outputs written before the JSON line still resume, replay and report.
    #[test]
    fn key_value_lines_of_older_outputs_are_read() {
        let old = "size=8 valid=no edges=17 new_edges=2 parent=000001 mutator=splice time=1.500s \
                   kind=crash signature=0000000000000abc message=\"boom\"\n  at f (a.rs:1)\n";
        let parsed = EntryInfo::parse_line(old);
        assert_eq!(parsed.valid, Some(false));
        assert_eq!(parsed.edges, Some(17));
        assert_eq!(parsed.kind.as_deref(), Some("crash"));
        assert_eq!(parsed.signature, Some(0xabc));
        assert_eq!(EntryInfo::parse_line("{\"size\":"), ParsedMeta::default());
    }
}
