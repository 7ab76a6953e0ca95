//! Tokens of the native grammar language.

use super::regex::MAX_REPETITION_COUNT;
use crate::diagnostic::{Diagnostic, SourceFile, Span};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// A rule, pool or layout-token name; `<angle-names>` keep their brackets.
    Name(String),
    /// A quoted literal with its escapes decoded.
    Literal(String),
    /// The pattern between `/` delimiters, verbatim; the span covers the pattern only.
    Regex(String),
    /// A bracket expression such as `[a-z]`, verbatim including the brackets.
    Class(String),
    /// `%name`
    Directive(String),
    Defines,
    Semicolon,
    Pipe,
    LeftParen,
    RightParen,
    Question,
    Star,
    Plus,
    /// `{min}`, `{min,}` or `{min,max}`
    Count {
        min: u32,
        max: Option<u32>,
    },
    Eof,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

pub struct Lexer<'a> {
    source: &'a SourceFile,
    text: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(source: &'a SourceFile) -> Self {
        Self {
            source,
            text: &source.text,
            pos: 0,
        }
    }

    pub fn tokenize(mut self) -> Result<Vec<Token>, Diagnostic> {
        let mut tokens = Vec::new();
        loop {
            let token = self.next_token()?;
            let eof = token.kind == TokenKind::Eof;
            tokens.push(token);
            if eof {
                return Ok(tokens);
            }
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.text[self.pos..].chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn error(&self, start: usize, message: impl Into<String>) -> Diagnostic {
        self.source.error(Span::new(start, start + 1), message)
    }

    fn skip_trivia(&mut self) -> Result<(), Diagnostic> {
        loop {
            match self.peek() {
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some('#') => self.skip_line(),
                Some('/') if self.peek_at(1) == Some('/') => self.skip_line(),
                Some('/') if self.peek_at(1) == Some('*') => {
                    let start = self.pos;
                    match self.text[self.pos + 2..].find("*/") {
                        Some(end) => self.pos += 2 + end + 2,
                        None => return Err(self.error(start, "unterminated block comment")),
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.bump() {
            if c == '\n' {
                break;
            }
        }
    }

    fn next_token(&mut self) -> Result<Token, Diagnostic> {
        self.skip_trivia()?;
        let start = self.pos;
        let Some(c) = self.bump() else {
            return Ok(Token {
                kind: TokenKind::Eof,
                span: Span::new(start, start),
            });
        };
        let kind = match c {
            ';' => TokenKind::Semicolon,
            '|' => TokenKind::Pipe,
            '(' => TokenKind::LeftParen,
            ')' => TokenKind::RightParen,
            '?' => TokenKind::Question,
            '*' => TokenKind::Star,
            '+' => TokenKind::Plus,
            '=' => TokenKind::Defines,
            ':' if self.text[self.pos..].starts_with(":=") => {
                self.pos += 2;
                TokenKind::Defines
            }
            '{' => self.count(start)?,
            '"' | '\'' => TokenKind::Literal(self.literal(start, c)?),
            '/' => {
                let pattern = self.regex(start)?;
                return Ok(Token {
                    span: Span::new(start + 1, start + 1 + pattern.len()),
                    kind: TokenKind::Regex(pattern),
                });
            }
            '[' => TokenKind::Class(self.class(start)?),
            '%' => {
                let name = self.word();
                if name.is_empty() {
                    return Err(self.error(start, "expected a directive name after '%'"));
                }
                TokenKind::Directive(name)
            }
            '<' => {
                let name = self.word();
                if name.is_empty() || self.bump() != Some('>') {
                    return Err(self.error(start, "expected a name of the form <name>"));
                }
                TokenKind::Name(format!("<{name}>"))
            }
            c if c.is_alphabetic() || c == '_' => {
                self.pos = start;
                TokenKind::Name(self.word())
            }
            other => {
                return Err(self.error(
                    start,
                    format!(
                        "unexpected character {other:?}; expected a rule, literal, regex or ';'"
                    ),
                ));
            }
        };
        Ok(Token {
            kind,
            span: Span::new(start, self.pos),
        })
    }

    /// Names may contain letters, digits, `_` and `-` (as in fuzzingbook's `<symbol-1>`).
    fn word(&mut self) -> String {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_alphanumeric() || c == '_' || (c == '-' && self.pos > start) {
                self.bump();
            } else {
                break;
            }
        }
        self.text[start..self.pos].to_string()
    }

    fn count(&mut self, start: usize) -> Result<TokenKind, Diagnostic> {
        let line = self.text[self.pos..].split('\n').next().unwrap_or_default();
        let close = line
            .find('}')
            .ok_or_else(|| self.error(start, "unterminated repetition count '{'"))?;
        let body = &self.text[self.pos..self.pos + close];
        let bad = || {
            self.error(
                start,
                format!("invalid repetition count '{{{body}}}'; expected {{n}}, {{n,}} or {{n,m}}"),
            )
        };
        let number = |s: &str| s.trim().parse::<u32>().map_err(|_| bad());
        let (min, max) = match body.split_once(',') {
            None => {
                let n = number(body)?;
                (n, Some(n))
            }
            Some((a, b)) if b.trim().is_empty() => (number(a)?, None),
            Some((a, b)) => (number(a)?, Some(number(b)?)),
        };
        if max.unwrap_or(min) > MAX_REPETITION_COUNT {
            return Err(self.error(
                start,
                format!("repetition count '{{{body}}}' is too large; counts are at most {MAX_REPETITION_COUNT}"),
            ));
        }
        if max.is_some_and(|max| max < min) {
            return Err(self.error(
                start,
                format!("repetition count '{{{body}}}' has its maximum below its minimum"),
            ));
        }
        self.pos += close + 1;
        Ok(TokenKind::Count { min, max })
    }

    fn literal(&mut self, start: usize, quote: char) -> Result<String, Diagnostic> {
        let mut value = String::new();
        loop {
            let at = self.pos;
            match self.bump() {
                None | Some('\n') => {
                    return Err(self.error(start, "unterminated literal; missing closing quote"));
                }
                Some(c) if c == quote => return Ok(value),
                Some('\\') => value.push(self.escape(at)?),
                Some(c) => value.push(c),
            }
        }
    }

    fn escape(&mut self, at: usize) -> Result<char, Diagnostic> {
        let c = self
            .bump()
            .ok_or_else(|| self.error(at, "unterminated escape sequence"))?;
        Ok(match c {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            '0' => '\0',
            '\\' | '"' | '\'' => c,
            'x' => {
                let hex = self.hex_digits(2);
                u8::from_str_radix(hex, 16)
                    .ok()
                    .filter(|b| b.is_ascii() && hex.len() == 2)
                    .map(char::from)
                    .ok_or_else(|| {
                        self.error(
                            at,
                            format!("invalid escape '\\x{hex}'; expected two hex digits up to 7f"),
                        )
                    })?
            }
            'u' => {
                let hex = if self.peek() == Some('{') {
                    self.bump();
                    let hex = self.hex_digits(6);
                    (self.bump() == Some('}') && !hex.is_empty()).then_some(hex)
                } else {
                    None
                };
                let hex = hex.ok_or_else(|| {
                    self.error(
                        at,
                        "invalid escape; expected '\\u{H..}' with 1 to 6 hex digits",
                    )
                })?;
                u32::from_str_radix(hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| {
                        self.error(
                            at,
                            format!("invalid escape '\\u{{{hex}}}': not a Unicode scalar value"),
                        )
                    })?
            }
            other => {
                return Err(self.error(
                    at,
                    format!("unknown escape '\\{other}'; known escapes are \\n \\t \\r \\0 \\\\ \\\" \\' \\xHH \\u{{H..}}"),
                ));
            }
        })
    }

    /// Up to `max` hex digits, consumed.
    fn hex_digits(&mut self, max: usize) -> &'a str {
        let start = self.pos;
        while self.pos - start < max && self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
            self.bump();
        }
        &self.text[start..self.pos]
    }

    /// The pattern of `/.../`. Only `\/` is special to us; everything else, escapes included,
    /// goes to regex-syntax unchanged so that its error offsets map back onto the file.
    fn regex(&mut self, start: usize) -> Result<String, Diagnostic> {
        let begin = self.pos;
        loop {
            match self.bump() {
                None | Some('\n') => {
                    return Err(self.error(start, "unterminated regex; missing closing '/'"));
                }
                Some('\\') => {
                    self.bump();
                }
                Some('/') => {
                    let pattern = &self.text[begin..self.pos - 1];
                    if pattern.is_empty() {
                        return Err(self.error(start, "empty regex '//'"));
                    }
                    return Ok(pattern.to_string());
                }
                Some(_) => {}
            }
        }
    }

    /// A bracket expression, verbatim. Nested brackets (`[[:alpha:]]`, `[a-z&&[^x]]`) are
    /// counted so that the whole class reaches regex-syntax. As in regex-syntax, a `]` right
    /// after the opening `[` or `[^` is a literal, so `[]a]` is the class of `]` and `a`.
    fn class(&mut self, start: usize) -> Result<String, Diagnostic> {
        if self.peek() == Some('^') {
            self.bump();
        }
        let literal_bracket = self.peek() == Some(']');
        if literal_bracket {
            self.bump();
        }
        let mut depth = 1;
        loop {
            match self.bump() {
                None | Some('\n') => {
                    let hint = if literal_bracket {
                        " (a ']' right after '[' is a literal ']', so '[]' is not an empty class)"
                    } else {
                        ""
                    };
                    return Err(self.error(
                        start,
                        format!("unterminated character class; missing ']'{hint}"),
                    ));
                }
                Some('\\') => {
                    self.bump();
                }
                Some('[') => depth += 1,
                Some(']') => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(self.text[start..self.pos].to_string());
                    }
                }
                Some(_) => {}
            }
        }
    }
}
