//! The text as the recognizer reads it: bytes, with line structure turned into layout tokens
//! for grammars that use `NEWLINE`, `INDENT` and `DEDENT`.
//!
//! Layout tokens become single marker bytes that never occur in UTF-8 (0xFD, 0xFE, 0xFF), so
//! the recognizer scans one flat byte slice whether or not the grammar has layout, and a
//! literal can never match across a marker. For grammars without layout tokens the input is
//! the text itself, unchanged.
//!
//! Line structure is read as Python's tokenizer reads it: every non-blank line ends in
//! `NEWLINE` (also the last one, with or without a final line break); a line indented deeper
//! than the one before starts with `INDENT`, a shallower one with one `DEDENT` per level it
//! closes, and it must return to a level that is open; blank lines are ignored; the end of
//! the input closes every open level. Indentation is measured in columns, a tab advancing to
//! the next multiple of 8. Unlike Python there is no implicit line joining inside brackets:
//! the layout pass never breaks a line there, so a line break is always a `NEWLINE`.

use super::ParseError;
use crate::grammar::{Comment, LayoutToken};

pub(crate) const NEWLINE: u8 = 0xFD;
pub(crate) const INDENT: u8 = 0xFE;
pub(crate) const DEDENT: u8 = 0xFF;

/// The marker byte of a layout token; `GLUE` has none, as it stands for the absence of
/// whitespace rather than for anything in the text.
pub(crate) fn marker(token: LayoutToken) -> Option<u8> {
    match token {
        LayoutToken::Newline => Some(NEWLINE),
        LayoutToken::Indent => Some(INDENT),
        LayoutToken::Dedent => Some(DEDENT),
        LayoutToken::Glue => None,
    }
}

pub(crate) fn marker_name(byte: u8) -> Option<&'static str> {
    match byte {
        NEWLINE => Some("NEWLINE"),
        INDENT => Some("INDENT"),
        DEDENT => Some("DEDENT"),
        _ => None,
    }
}

/// A text prepared for the recognizer: its bytes, with layout tokens as marker bytes where the
/// grammar uses them, and the map back to offsets in the original text for error messages.
pub struct ParseInput {
    /// What the recognizer scans.
    pub(crate) units: Vec<u8>,
    /// Byte offset in `text` of each unit, and of the end; empty when `units` is `text`.
    offsets: Vec<u32>,
    /// Whether a line break may be skipped between tokens (only without layout tokens, where
    /// a line break is just whitespace).
    pub(crate) newline_is_space: bool,
    /// Units skipped like whitespace besides spaces: those covered by an occurrence of a
    /// separator that is not whitespace (`%layout " | "` has `|`), which the layout pass puts
    /// between tokens, and line breaks that join lines (see [`ParseInput::with_layout`]);
    /// shorter than `units` (or empty) where the rest is neither.
    separator: Vec<bool>,
    /// The grammar's comments, skipped where whitespace may be (see [`ParseInput::skip_layout`]).
    comments: Vec<Comment>,
    /// Units inside comments the recognizer skipped between tokens: whitespace to the
    /// extraction that follows it. Set from the recognition; a comment opener inside a string
    /// is never at a token boundary, so it never gets here.
    comment_units: Vec<bool>,
    /// Byte ranges of lines that hold only a comment, left out of `units` by `with_layout`.
    pub(crate) comment_lines: Vec<std::ops::Range<usize>>,
}

impl ParseInput {
    /// The text as it is, for grammars without indentation tokens: a line break is whitespace.
    pub fn plain(text: &str) -> Self {
        Self {
            units: text.as_bytes().to_vec(),
            offsets: Vec::new(),
            newline_is_space: true,
            separator: Vec::new(),
            comments: Vec::new(),
            comment_units: Vec::new(),
            comment_lines: Vec::new(),
        }
    }

    /// Reads line structure as Python does: a line holding only whitespace or a line comment
    /// of `comments` opens and closes no block, and with `join_lines` a physical line continues
    /// the logical one before it inside brackets, after a backslash at its end, and inside a
    /// triple-quoted string. A line break inside brackets or after a backslash is whitespace
    /// between tokens; inside a string it is the string's.
    pub fn with_layout(
        text: &str,
        comments: &[Comment],
        join_lines: bool,
    ) -> Result<Self, ParseError> {
        let mut out = LayoutUnits::with_capacity(text.len() + 16);
        let mut levels = vec![0usize];
        let mut comment_lines = Vec::new();
        let mut lines = LineJoiner::new(comments, join_lines);
        let mut line_start = 0;
        while line_start < text.len() {
            let line_end = text[line_start..]
                .find('\n')
                .map_or(text.len(), |i| line_start + i);
            let line = &text[line_start..line_end];
            let content = line.trim_end_matches('\r');
            if let Some(inside) = lines.continuing() {
                // The break before this line: whitespace, or part of a string.
                out.push(b'\n', line_start - 1, inside == Continuation::Joined);
                out.line(&mut lines, content, line_start, 0);
                line_start = line_end + 1;
                continue;
            }
            let indent_bytes =
                content.len() - content.trim_start_matches([' ', '\t', '\x0c']).len();
            let only_comment = line_comment_at(comments, &content.as_bytes()[indent_bytes..], 0);
            if only_comment {
                comment_lines.push(line_start + indent_bytes..line_start + content.len());
            }
            if indent_bytes < content.len() && !only_comment {
                let width = indentation_width(&content[..indent_bytes]);
                let at = line_start + indent_bytes;
                if width > *levels.last().unwrap_or(&0) {
                    levels.push(width);
                    out.push(INDENT, at, false);
                } else {
                    while width < *levels.last().unwrap_or(&0) {
                        levels.pop();
                        out.push(DEDENT, at, false);
                    }
                    if width != *levels.last().unwrap_or(&0) {
                        return Err(ParseError::at(
                            at,
                            "unindent does not match any outer indentation level",
                        ));
                    }
                }
                out.line(&mut lines, content, line_start, indent_bytes);
            }
            line_start = line_end + 1;
        }
        if lines.continuing().is_some() {
            out.push(NEWLINE, text.len(), false);
        }
        for _ in 1..levels.len() {
            out.push(DEDENT, text.len(), false);
        }
        let LayoutUnits {
            units,
            mut offsets,
            joined,
        } = out;
        offsets.push(text.len() as u32);
        Ok(Self {
            units,
            offsets,
            newline_is_space: false,
            separator: joined,
            comments: Vec::new(),
            comment_units: Vec::new(),
            comment_lines,
        })
    }

    /// Byte offset in the text of the unit at `position`.
    pub(crate) fn offset(&self, position: usize) -> usize {
        if self.offsets.is_empty() {
            position
        } else {
            self.offsets[position.min(self.offsets.len() - 1)] as usize
        }
    }

    pub(crate) fn is_space(&self, position: usize) -> bool {
        match self.units.get(position) {
            Some(b' ' | b'\t' | b'\x0c') => true,
            Some(b'\n' | b'\r') => {
                self.newline_is_space || self.separator.get(position).copied().unwrap_or(false)
            }
            Some(_) => {
                self.separator.get(position).copied().unwrap_or(false)
                    || self.comment_units.get(position).copied().unwrap_or(false)
            }
            None => false,
        }
    }

    /// Comments to skip between tokens.
    pub(crate) fn skip_comments(&mut self, comments: &[Comment]) {
        self.comments = comments.to_vec();
    }

    /// The end of the whitespace and comments that start at `position`, if any: where the
    /// next token may start.
    pub(crate) fn skip_layout(&self, position: usize) -> Option<usize> {
        let mut end = position;
        loop {
            while self.is_space(end) {
                end += 1;
            }
            match self.comment_end(end) {
                Some(after) => end = after,
                None => break,
            }
        }
        (end > position).then_some(end)
    }

    /// The end of a comment that starts exactly at `position`.
    pub(crate) fn comment_end(&self, position: usize) -> Option<usize> {
        let marker = |u: u8| marker_name(u).is_some();
        self.comments
            .iter()
            .find_map(|c| c.end_at(&self.units, position, marker))
            .filter(|&end| end > position)
    }

    /// Records that the recognizer skipped `start..end` between tokens; the units there that
    /// are not whitespace are a comment's.
    pub(crate) fn mark_skipped(&mut self, start: usize, end: usize) {
        if self.comment_units.is_empty() {
            self.comment_units = vec![false; self.units.len()];
        }
        for position in start..end {
            if !self.is_space(position) {
                self.comment_units[position] = true;
            }
        }
    }

    /// Lets every occurrence of `separator` be skipped like whitespace, when it is more than
    /// whitespace.
    pub(crate) fn skip_separator(&mut self, separator: &str) {
        if separator.trim().is_empty() {
            return;
        }
        let bytes = separator.as_bytes();
        self.separator.resize(self.units.len(), false);
        let mut at = 0;
        while let Some(found) = self.units[at..]
            .windows(bytes.len())
            .position(|w| w == bytes)
        {
            let start = at + found;
            self.separator[start..start + bytes.len()].fill(true);
            at = start + bytes.len();
        }
    }
}

/// The units `ParseInput::with_layout` builds, with each one's byte offset and whether it is a
/// line break (or backslash) that joins lines, to be skipped as whitespace.
struct LayoutUnits {
    units: Vec<u8>,
    offsets: Vec<u32>,
    /// Only as long as the last joining unit; the rest is not joining.
    joined: Vec<bool>,
}

impl LayoutUnits {
    fn with_capacity(capacity: usize) -> Self {
        Self {
            units: Vec::with_capacity(capacity),
            offsets: Vec::with_capacity(capacity),
            joined: Vec::new(),
        }
    }

    fn push(&mut self, unit: u8, offset: usize, joining: bool) {
        if joining {
            self.joined.resize(self.units.len(), false);
            self.joined.push(true);
        }
        self.units.push(unit);
        self.offsets.push(offset as u32);
    }

    /// The text of one physical line from byte `from` on (a final backslash that joins the next
    /// line marked as such), and the NEWLINE that ends the logical line, if this one does.
    fn line(&mut self, lines: &mut LineJoiner<'_>, content: &str, line_start: usize, from: usize) {
        let backslash = from + lines.scan(&content.as_bytes()[from..]);
        for (i, byte) in content.bytes().enumerate().skip(from) {
            self.push(byte, line_start + i, i == backslash);
        }
        if lines.continuing().is_none() {
            self.push(NEWLINE, line_start + content.len(), false);
        }
    }
}

/// Whether a line comment of `comments` starts at `at` of `bytes`.
fn line_comment_at(comments: &[Comment], bytes: &[u8], at: usize) -> bool {
    comments
        .iter()
        .any(|c| matches!(c, Comment::Line(_)) && c.end_at(bytes, at, |_| false).is_some())
}

/// Why a physical line does not end the logical line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Continuation {
    /// Inside brackets or after a backslash: the break is whitespace.
    Joined,
    /// Inside a triple-quoted string: the break is the string's.
    InString,
}

/// Python's rules for where a logical line goes on: bracket depth, open triple-quoted strings,
/// a backslash before the line break. Quotes and brackets inside strings and line comments do
/// not count.
struct LineJoiner<'c> {
    comments: &'c [Comment],
    /// Off: every line is a logical line, and nothing is scanned.
    enabled: bool,
    depth: usize,
    /// The open triple-quoted string's quote character.
    triple: Option<u8>,
    backslash: bool,
}

impl<'c> LineJoiner<'c> {
    fn new(comments: &'c [Comment], enabled: bool) -> Self {
        Self {
            comments,
            enabled,
            depth: 0,
            triple: None,
            backslash: false,
        }
    }

    fn continuing(&self) -> Option<Continuation> {
        if self.triple.is_some() {
            Some(Continuation::InString)
        } else if self.depth > 0 || self.backslash {
            Some(Continuation::Joined)
        } else {
            None
        }
    }

    /// Reads one line (without its break) and returns where a final backslash that joins the
    /// next line stands, or the line's length when there is none.
    fn scan(&mut self, line: &[u8]) -> usize {
        self.backslash = false;
        if !self.enabled {
            return line.len();
        }
        let mut single: Option<u8> = None;
        let mut i = 0;
        while i < line.len() {
            let byte = line[i];
            if let Some(quote) = self.triple {
                if byte == b'\\' {
                    i += 2;
                    continue;
                }
                if line[i..].starts_with(&[quote; 3]) {
                    self.triple = None;
                    i += 3;
                    continue;
                }
            } else if let Some(quote) = single {
                if byte == b'\\' {
                    i += 2;
                    continue;
                }
                if byte == quote {
                    single = None;
                }
            } else {
                match byte {
                    b'"' | b'\'' if line[i..].starts_with(&[byte; 3]) => {
                        self.triple = Some(byte);
                        i += 3;
                        continue;
                    }
                    b'"' | b'\'' => single = Some(byte),
                    b'(' | b'[' | b'{' => self.depth += 1,
                    b')' | b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                    b'\\' if i + 1 == line.len() => {
                        self.backslash = true;
                        return i;
                    }
                    _ if line_comment_at(self.comments, line, i) => return line.len(),
                    _ => {}
                }
            }
            i += 1;
        }
        line.len()
    }
}

fn indentation_width(indent: &str) -> usize {
    indent.chars().fold(0, |width, c| match c {
        '\t' => (width / 8 + 1) * 8,
        _ => width + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(text: &str) -> String {
        let input = ParseInput::with_layout(text, &[], true).unwrap();
        input
            .units
            .iter()
            .map(|&b| match marker_name(b) {
                Some(name) => format!("<{name}>"),
                None => (b as char).to_string(),
            })
            .collect()
    }

    #[test]
    fn lines_become_newline_indent_and_dedent() {
        assert_eq!(
            shape("if x:\n    y\n\n  \n    z\nw"),
            "if x:<NEWLINE><INDENT>y<NEWLINE>z<NEWLINE><DEDENT>w<NEWLINE>"
        );
        assert_eq!(
            shape("a:\n  b:\n    c\n"),
            "a:<NEWLINE><INDENT>b:<NEWLINE><INDENT>c<NEWLINE><DEDENT><DEDENT>"
        );
        assert_eq!(
            shape("a \r\n\tb\r\n"),
            "a <NEWLINE><INDENT>b<NEWLINE><DEDENT>"
        );
        assert_eq!(shape(""), "");
    }

    #[test]
    fn offsets_point_into_the_original_text() {
        let text = "a:\n    b\n";
        let input = ParseInput::with_layout(text, &[], true).unwrap();
        let b = input.units.iter().position(|&u| u == b'b').unwrap();
        assert_eq!(input.offset(b), 7);
        assert_eq!(input.offset(input.units.len()), text.len());
    }

    #[test]
    fn a_dedent_to_an_unopened_level_is_an_error() {
        let error = ParseInput::with_layout("a\n    b\n  c\n", &[], true)
            .err()
            .unwrap();
        assert_eq!(error.offset, 10);
        assert!(error.message.contains("unindent"));
    }
}
