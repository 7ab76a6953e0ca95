//! tree-sitter's PATTERN values are JavaScript regexes; our regexes are regex-syntax's. Most of
//! the two dialects agree (`\d`, `\w`, `\s`, `\p{..}`, `\uFFFF`, classes, `{a,b}`); this file
//! rewrites the rest:
//!
//! - escapes of punctuation that regex-syntax gives another meaning or refuses (`\/`, `\<`,
//!   `\'`) become the plain character, escaped only where regex-syntax needs it;
//! - `\0` is NUL and `\cX` a control character; `\b` inside a class is a backspace;
//! - a `{` that does not start a counted repetition is a literal, as JavaScript reads it;
//! - inside a class, `[`, `&` and `~` are literals (regex-syntax would read nested classes
//!   and set operations);
//! - `[^]` matches any character;
//! - lookarounds `(?=..)`, `(?!..)`, `(?<=..)`, `(?<!..)` have no counterpart in a generator
//!   (there is no text around a generated token to look at), so they are dropped and the
//!   caller warns: the pattern then generates a superset of what it matches;
//! - backreferences cannot be generated from a regular grammar and are an error.
//!
//! The flags `i`, `s` and `m` become inline flags; `u`, `v`, `g` and `y` change nothing for
//! generation.

/// A translated pattern, with the original offset of every byte of it so that a regex-syntax
/// error in the translation points into the pattern the user wrote.
pub struct Translated {
    pub text: String,
    origin: Vec<usize>,
    pub dropped_lookaround: bool,
}

impl Translated {
    /// The offset in the original pattern that byte `at` of the translation came from.
    pub fn original_offset(&self, at: usize) -> usize {
        self.origin
            .get(at)
            .or(self.origin.last())
            .copied()
            .unwrap_or(0)
    }
}

/// A translation fault: the byte offset in the original pattern and what is wrong.
#[derive(Debug)]
pub struct Fault {
    pub offset: usize,
    pub message: String,
}

pub fn translate(pattern: &str, flags: &str) -> Result<Translated, Fault> {
    let mut t = Translator {
        chars: pattern.char_indices().collect(),
        pos: 0,
        out: Translated {
            text: String::new(),
            origin: Vec::new(),
            dropped_lookaround: false,
        },
    };
    let inline: String = flags
        .chars()
        .filter(|c| matches!(c, 'i' | 's' | 'm'))
        .collect();
    if !inline.is_empty() {
        t.emit(&format!("(?{inline})"), 0);
    }
    t.run()?;
    Ok(t.out)
}

struct Translator {
    chars: Vec<(usize, char)>,
    pos: usize,
    out: Translated,
}

impl Translator {
    fn peek(&self, n: usize) -> Option<char> {
        self.chars.get(self.pos + n).map(|&(_, c)| c)
    }

    fn offset(&self) -> usize {
        self.chars.get(self.pos).map_or_else(
            || self.chars.last().map_or(0, |&(i, c)| i + c.len_utf8()),
            |&(i, _)| i,
        )
    }

    fn emit(&mut self, text: &str, origin: usize) {
        self.out.text.push_str(text);
        self.out
            .origin
            .extend(std::iter::repeat_n(origin, text.len()));
    }

    fn fault(&self, offset: usize, message: impl Into<String>) -> Fault {
        Fault {
            offset,
            message: message.into(),
        }
    }

    fn run(&mut self) -> Result<(), Fault> {
        while let Some(c) = self.peek(0) {
            let at = self.offset();
            match c {
                '\\' => self.escape(false)?,
                '[' => self.class()?,
                '(' if self.peek(1) == Some('?') && self.lookaround_len().is_some() => {
                    self.skip_group()?;
                    self.out.dropped_lookaround = true;
                }
                '{' => {
                    self.pos += 1;
                    if !self.counted_repetition_follows(at) {
                        self.emit("\\{", at);
                    }
                }
                '}' => {
                    self.pos += 1;
                    // Closing a counted repetition was copied with its opening brace.
                    self.emit("\\}", at);
                }
                _ => {
                    self.pos += 1;
                    self.emit(c.encode_utf8(&mut [0; 4]), at);
                }
            }
        }
        Ok(())
    }

    /// After a `{` at `brace`: whether `n}`, `n,}` or `n,m}` follows; if so the repetition
    /// is copied whole.
    fn counted_repetition_follows(&mut self, brace: usize) -> bool {
        let rest: String = self.chars[self.pos..].iter().map(|&(_, c)| c).collect();
        let Some(close) = rest.find('}') else {
            return false;
        };
        let body = &rest[..close];
        let valid = {
            let (a, b) = body.split_once(',').unwrap_or((body, "0"));
            !a.is_empty()
                && a.chars().all(|c| c.is_ascii_digit())
                && b.chars().all(|c| c.is_ascii_digit())
        };
        if valid {
            let copy = format!("{{{body}}}");
            self.pos += copy.chars().count() - 1;
            self.emit(&copy, brace);
        }
        valid
    }

    fn lookaround_len(&self) -> Option<usize> {
        match (self.peek(2), self.peek(3)) {
            (Some('=' | '!'), _) => Some(3),
            (Some('<'), Some('=' | '!')) => Some(4),
            _ => None,
        }
    }

    /// Skips a parenthesised group, nested groups, classes and escapes included.
    fn skip_group(&mut self) -> Result<(), Fault> {
        let start = self.offset();
        let mut depth = 0;
        let mut in_class = false;
        while let Some(c) = self.peek(0) {
            self.pos += 1;
            match c {
                '\\' => self.pos += 1,
                '[' => in_class = true,
                ']' => in_class = false,
                '(' if !in_class => depth += 1,
                ')' if !in_class => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
        Err(self.fault(start, "unclosed lookaround group"))
    }

    fn escape(&mut self, in_class: bool) -> Result<(), Fault> {
        let at = self.offset();
        let Some(c) = self.peek(1) else {
            return Err(self.fault(at, "the pattern ends with a lone backslash"));
        };
        self.pos += 2;
        let text = match c {
            'd' | 'D' | 'w' | 'W' | 's' | 'S' | 'n' | 'r' | 't' | 'f' | 'v' => format!("\\{c}"),
            'b' if in_class => "\\x08".to_string(),
            'b' | 'B' => format!("\\{c}"),
            '0' if !self.peek(0).is_some_and(|d| d.is_ascii_digit()) => "\\x00".to_string(),
            '1'..='9' => {
                return Err(self.fault(
                    at,
                    "backreferences cannot be generated from a grammar and are not supported",
                ));
            }
            'k' if self.peek(0) == Some('<') => {
                return Err(self.fault(
                    at,
                    "named backreferences cannot be generated from a grammar and are not supported",
                ));
            }
            'x' | 'u' | 'p' | 'P' => {
                // regex-syntax reads `\xHH`, `\uHHHH`, `\u{H..}` and `\p{..}` as JavaScript does.
                // The braces are copied with the escape: read on their own, they would be
                // escaped as literal braces (`\p\{XID_Start\}`, tree-sitter-cpp's identifier).
                let mut text = format!("\\{c}");
                if c != 'x'
                    && self.peek(0) == Some('{')
                    && let Some(len) = (0..).map_while(|i| self.peek(i)).position(|d| d == '}')
                {
                    for _ in 0..=len {
                        text.push(self.peek(0).expect("counted above"));
                        self.pos += 1;
                    }
                }
                text
            }
            'c' => {
                let Some(letter) = self.peek(0).filter(char::is_ascii_alphabetic) else {
                    return Err(self.fault(at, "'\\c' must be followed by a letter"));
                };
                self.pos += 1;
                format!("\\x{:02X}", (letter as u8) % 32)
            }
            other => regex_syntax::escape(other.encode_utf8(&mut [0; 4])),
        };
        self.emit(&text, at);
        Ok(())
    }

    fn class(&mut self) -> Result<(), Fault> {
        let start = self.offset();
        self.pos += 1;
        if self.peek(0) == Some('^') && self.peek(1) == Some(']') {
            self.pos += 2;
            self.emit("(?s:.)", start);
            return Ok(());
        }
        if self.peek(0) == Some(']') {
            return Err(self.fault(
                start,
                "the empty class '[]' matches nothing and cannot be generated",
            ));
        }
        self.emit("[", start);
        if self.peek(0) == Some('^') {
            self.pos += 1;
            self.emit("^", start + 1);
        }
        loop {
            let at = self.offset();
            match self.peek(0) {
                None => return Err(self.fault(start, "unclosed character class")),
                Some(']') => {
                    self.pos += 1;
                    self.emit("]", at);
                    return Ok(());
                }
                Some('\\') => self.escape(true)?,
                Some(c @ ('[' | '&' | '~')) => {
                    self.pos += 1;
                    self.emit(&format!("\\{c}"), at);
                }
                Some(c) => {
                    self.pos += 1;
                    self.emit(c.encode_utf8(&mut [0; 4]), at);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tr(p: &str) -> String {
        translate(p, "")
            .map(|t| t.text)
            .unwrap_or_else(|f| panic!("{}", f.message))
    }

    fn accepted(p: &str) {
        let t = tr(p);
        regex_syntax::parse(&t).unwrap_or_else(|e| panic!("{p} -> {t}: {e}"));
    }

    #[test]
    fn javascript_escapes_become_regex_syntax() {
        assert_eq!(tr(r"\/\/"), "//");
        assert_eq!(tr(r"a\<b"), "a<b");
        assert_eq!(tr(r"\0"), r"\x00");
        assert_eq!(tr(r"[\b]"), r"[\x08]");
        assert_eq!(tr(r"\cJ"), r"\x0A");
        assert_eq!(tr("[[&~]"), r"[\[\&\~]");
        assert_eq!(tr("a{"), r"a\{");
        assert_eq!(tr("a{2,3}"), "a{2,3}");
        assert_eq!(tr("[^]"), "(?s:.)");
        // Issue 31, tree-sitter-cpp's identifier: a property's or code point's braces stay
        // its own.
        assert_eq!(
            tr(r"(\p{XID_Start}|\$)\P{L}\u{1F600}"),
            r"(\p{XID_Start}|\$)\P{L}\u{1F600}"
        );
        accepted(r"(\p{XID_Start}|\$|_)(\p{XID_Continue}|\$)*");
        for p in [
            r#"[^\x00-\x1F\s\p{Zs}0-9:;`']|\\u[0-9a-fA-F]{4}|\\u\{[0-9a-fA-F]+\}"#,
            r"[\s\f\uFEFF\u2060\u200B]|\r?\n",
            r#"(\"|\\|\/|b|f|n|r|t|u)"#,
            r#"[^\p{Control}\s+\-*/%^#&~|<>=(){}\[\];:,.\\'"\d]"#,
        ] {
            accepted(p);
        }
    }

    #[test]
    fn lookarounds_are_dropped_and_reported() {
        let t = translate(r"a(?=b(c))d(?<!x)", "").unwrap();
        assert_eq!(t.text, "ad");
        assert!(t.dropped_lookaround);
    }

    #[test]
    fn faults_point_into_the_original_pattern() {
        let f = translate(r"ab\1", "").err().unwrap();
        assert_eq!(f.offset, 2);
        let t = translate(r"\/(", "i").unwrap();
        assert_eq!(t.text, "(?i)/(");
        let err = regex_syntax::parse(&t.text).unwrap_err();
        let regex_syntax::Error::Parse(e) = err else {
            panic!()
        };
        assert_eq!(t.original_offset(e.span().start.offset), 2);
    }
}
