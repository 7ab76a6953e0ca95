//! Comments of the grammar's language (`%comment`): never generated, skipped between tokens
//! when a seed file is parsed, so that real files with comments import.

/// One comment form. Both delimiters are literal text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Comment {
    /// From the opener to the end of the line (`#`, `//`, `--`).
    Line(String),
    /// From `open` to the first `close` after it (`/*` ... `*/`); not nested.
    Block {
        /// The text that starts the comment.
        open: String,
        /// The text that ends it, consumed with the comment.
        close: String,
    },
}

impl Comment {
    /// Where the comment that starts at `at` in `units` ends, or `None` when none starts there
    /// (or a block comment is not closed). `marker` says which units stand for line structure
    /// (`parse::ParseInput` reads indented text into NEWLINE, INDENT and DEDENT markers): a line
    /// comment stops before them or a line break, and a block comment does not cross them,
    /// where the line structure would be lost.
    pub fn end_at(&self, units: &[u8], at: usize, marker: impl Fn(u8) -> bool) -> Option<usize> {
        let rest = units.get(at..)?;
        match self {
            Comment::Line(open) => {
                if !rest.starts_with(open.as_bytes()) {
                    return None;
                }
                let body = &rest[open.len()..];
                let length = body
                    .iter()
                    .position(|&u| matches!(u, b'\n' | b'\r') || marker(u))
                    .unwrap_or(body.len());
                Some(at + open.len() + length)
            }
            Comment::Block { open, close } => {
                if !rest.starts_with(open.as_bytes()) {
                    return None;
                }
                let body = &rest[open.len()..];
                let close = close.as_bytes();
                let found = body.windows(close.len()).position(|w| w == close)?;
                if body[..found].iter().any(|&u| marker(u)) {
                    return None;
                }
                Some(at + open.len() + found + close.len())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn newline(u: u8) -> bool {
        u == 0xFD
    }

    #[test]
    fn line_and_block_comments_end_where_they_should() {
        let hash = Comment::Line("#".into());
        assert_eq!(hash.end_at(b"x # hi\ny", 2, |_| false), Some(6));
        assert_eq!(hash.end_at(b"x # hi\xFDy", 2, newline), Some(6));
        assert_eq!(hash.end_at(b"x # hi", 2, newline), Some(6));
        assert_eq!(hash.end_at(b"x # hi", 1, newline), None);
        let block = Comment::Block {
            open: "/*".into(),
            close: "*/".into(),
        };
        assert_eq!(block.end_at(b"a /* b */ c", 2, |_| false), Some(9));
        assert_eq!(block.end_at(b"/**/", 0, |_| false), Some(4));
        assert_eq!(block.end_at(b"a /* b", 2, |_| false), None);
        assert_eq!(block.end_at(b"/* a\xFDb */", 0, newline), None);
        assert_eq!(block.end_at(b"/* a\nb */", 0, |_| false), Some(9));
    }
}
