//! Located messages for everything a user hands us: grammars, choice files, flags.
//!
//! Every user-facing error carries the file and, where the fault is inside a file, the line and
//! column, so that an editor can jump to it. The command line turns any error into exit code 2.

use std::fmt;
use std::path::{Path, PathBuf};

/// A byte range inside one source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: u32,
    /// Byte offset one past the last byte.
    pub end: u32,
}

impl Span {
    /// A span from `usize` offsets; they are stored as `u32`, so sources must stay below 4 GiB.
    pub fn new(start: usize, end: usize) -> Self {
        Self {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both, for a construct reported from its first to its last part.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// The text of a file together with its line index, so that spans can be turned into
/// `line:column` positions lazily, only when a message is actually printed.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Where the text came from, printed in front of every message about it.
    pub path: PathBuf,
    /// The whole source text that spans index into.
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// Indexes the line starts once, so any number of spans can later be located cheaply.
    pub fn new(path: impl Into<PathBuf>, text: impl Into<String>) -> Self {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self {
            path: path.into(),
            text,
            line_starts,
        }
    }

    /// One-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let column = self.text[start..offset].chars().count() + 1;
        (line + 1, column)
    }

    /// The one-based position of the span's start; the end is not reported.
    pub fn location(&self, span: Span) -> Location {
        let (line, column) = self.line_col(span.start as usize);
        Location {
            path: self.path.clone(),
            line,
            column,
        }
    }

    /// An error located at `span` in this file.
    pub fn error(&self, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error(message).at(self.location(span))
    }

    /// A warning located at `span` in this file; it does not stop the command.
    pub fn warning(&self, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::warning(message).at(self.location(span))
    }
}

/// A position a user's editor can jump to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file, as given to Bonsai (not canonicalized).
    pub path: PathBuf,
    /// One-based line.
    pub line: usize,
    /// One-based column, counted in characters, not bytes.
    pub column: usize,
}

/// Whether a diagnostic stops the command (exit code 2) or is only printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The command fails.
    Error,
    /// Printed, and the command goes on.
    Warning,
}

/// One message for the user, printed as `file:line:col: error: message` when its position is
/// known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Whether the message fails the command.
    pub severity: Severity,
    /// The text after `error:` or `warning:`, without a trailing newline.
    pub message: String,
    /// Position inside a file; takes precedence over `path` when both are set.
    pub location: Option<Location>,
    /// A file without a position, for errors about a whole file (unreadable, unwritable).
    pub path: Option<PathBuf>,
}

impl Diagnostic {
    /// An error with no location yet; chain [`Diagnostic::at`] or [`Diagnostic::in_file`] to add
    /// one.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            message: message.into(),
            location: None,
            path: None,
        }
    }

    /// A warning with no location yet.
    pub fn warning(message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(message)
        }
    }

    /// Places the message at a position inside a file.
    pub fn at(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
    }

    /// Names the file the message is about when no position inside it applies.
    pub fn in_file(mut self, path: &Path) -> Self {
        self.path = Some(path.to_path_buf());
        self
    }

    /// Whether the diagnostic should fail the command.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(loc) = &self.location {
            write!(f, "{}:{}:{}: ", loc.path.display(), loc.line, loc.column)?;
        } else if let Some(path) = &self.path {
            write!(f, "{}: ", path.display())?;
        }
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{kind}: {}", self.message)
    }
}

/// A failure made of one or more located diagnostics, as returned by loaders and checkers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Wraps one diagnostic, for loaders that stop at the first error.
    pub fn single(diagnostic: Diagnostic) -> Self {
        Self(vec![diagnostic])
    }

    /// Only the errors, skipping warnings gathered along the way.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().filter(|d| d.is_error())
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

impl std::error::Error for Diagnostics {}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Self::single(d)
    }
}
