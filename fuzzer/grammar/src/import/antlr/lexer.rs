//! Tokens of the ANTLR4 grammar language.
//!
//! Blocks whose inside is another language are single tokens: `{...}` (target-language
//! actions, also `options {...}`, `tokens {...}`), `[...]` (a lexer character set, or a rule's
//! arguments; the parser knows which) and `<...>` (element options such as `<assoc=right>`).

use crate::diagnostic::{Diagnostic, SourceFile, Span};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Ident(String),
    /// A run of decimal digits: a channel's number in `-> channel(2)`.
    Int(String),
    /// A `'...'` literal with its escapes decoded.
    Literal(String),
    /// The text between `[` and `]`, verbatim.
    Bracket(String),
    /// The text between `{` and `}`, verbatim; `predicate` when a `?` follows.
    Action {
        text: String,
        predicate: bool,
    },
    /// `<...>`
    ElementOptions,
    Colon,
    ColonColon,
    Semicolon,
    Pipe,
    LeftParen,
    RightParen,
    Question,
    Star,
    Plus,
    Tilde,
    DotDot,
    Dot,
    Assign,
    PlusAssign,
    Arrow,
    Comma,
    Pound,
    At,
    Eof,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

pub fn tokenize(source: &SourceFile) -> Result<Vec<Token>, Diagnostic> {
    let mut lexer = Lexer {
        source,
        text: &source.text,
        pos: 0,
    };
    let mut tokens = Vec::new();
    loop {
        lexer.skip_trivia()?;
        let start = lexer.pos;
        let Some(c) = lexer.bump() else {
            tokens.push(Token {
                kind: TokenKind::Eof,
                span: Span::new(start, start),
            });
            return Ok(tokens);
        };
        let kind = match c {
            ':' if lexer.eat(':') => TokenKind::ColonColon,
            ':' => TokenKind::Colon,
            ';' => TokenKind::Semicolon,
            '|' => TokenKind::Pipe,
            '(' => TokenKind::LeftParen,
            ')' => TokenKind::RightParen,
            '?' => TokenKind::Question,
            '*' => TokenKind::Star,
            '+' if lexer.eat('=') => TokenKind::PlusAssign,
            '+' => TokenKind::Plus,
            '~' => TokenKind::Tilde,
            '.' if lexer.eat('.') => TokenKind::DotDot,
            '.' => TokenKind::Dot,
            '=' => TokenKind::Assign,
            '-' if lexer.eat('>') => TokenKind::Arrow,
            ',' => TokenKind::Comma,
            '#' => TokenKind::Pound,
            '@' => TokenKind::At,
            '\'' => TokenKind::Literal(lexer.literal(start)?),
            '[' => TokenKind::Bracket(lexer.bracket(start)?),
            '{' => {
                let text = lexer.action(start)?;
                let predicate = lexer.peek() == Some('?');
                if predicate {
                    lexer.bump();
                }
                TokenKind::Action { text, predicate }
            }
            '<' => {
                lexer.element_options(start)?;
                TokenKind::ElementOptions
            }
            c if c.is_alphabetic() || c == '_' => {
                while lexer
                    .peek()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_')
                {
                    lexer.bump();
                }
                TokenKind::Ident(lexer.text[start..lexer.pos].to_string())
            }
            c if c.is_ascii_digit() => {
                while lexer.peek().is_some_and(|c| c.is_ascii_digit()) {
                    lexer.bump();
                }
                TokenKind::Int(lexer.text[start..lexer.pos].to_string())
            }
            other => {
                return Err(lexer.error(start, format!("unexpected character {other:?}")));
            }
        };
        tokens.push(Token {
            kind,
            span: Span::new(start, lexer.pos),
        });
    }
}

struct Lexer<'a> {
    source: &'a SourceFile,
    text: &'a str,
    pos: usize,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn error(&self, at: usize, message: impl Into<String>) -> Diagnostic {
        self.source.error(Span::new(at, at + 1), message)
    }

    fn skip_trivia(&mut self) -> Result<(), Diagnostic> {
        loop {
            let rest = &self.text[self.pos..];
            if rest.starts_with(|c: char| c.is_whitespace()) {
                self.bump();
            } else if rest.starts_with("//") {
                self.pos += rest.find('\n').unwrap_or(rest.len());
            } else if let Some(body) = rest.strip_prefix("/*") {
                let end = body
                    .find("*/")
                    .ok_or_else(|| self.error(self.pos, "unterminated comment"))?;
                self.pos += end + 4;
            } else {
                return Ok(());
            }
        }
    }

    /// A `'...'` literal. ANTLR's escapes: `\n \r \t \b \f \\ \' \" \uXXXX \u{X..}`.
    fn literal(&mut self, start: usize) -> Result<String, Diagnostic> {
        let mut value = String::new();
        loop {
            let at = self.pos;
            match self.bump() {
                None | Some('\n') => {
                    return Err(self.error(start, "unterminated literal; missing closing quote"));
                }
                Some('\'') => return Ok(value),
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
            'r' => '\r',
            't' => '\t',
            'b' => '\u{8}',
            'f' => '\u{c}',
            '\\' | '\'' | '"' => c,
            'u' => {
                let hex: String = if self.eat('{') {
                    let close = self.text[self.pos..]
                        .find('}')
                        .ok_or_else(|| self.error(at, "unterminated '\\u{' escape"))?;
                    let hex = self.text[self.pos..self.pos + close].to_string();
                    self.pos += close + 1;
                    hex
                } else {
                    (0..4).filter_map(|_| self.bump()).collect()
                };
                u32::from_str_radix(&hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| {
                        self.error(
                            at,
                            format!("invalid escape '\\u{hex}': not a Unicode scalar value"),
                        )
                    })?
            }
            other => {
                return Err(self.error(
                    at,
                    format!("invalid escape '\\{other}' in a literal; ANTLR knows \\n \\r \\t \\b \\f \\\\ \\' \\\" \\uXXXX and \\u{{X..}}"),
                ));
            }
        })
    }

    fn bracket(&mut self, start: usize) -> Result<String, Diagnostic> {
        let begin = self.pos;
        loop {
            match self.bump() {
                None => return Err(self.error(start, "unterminated '['; missing ']'")),
                Some('\\') => {
                    self.bump();
                }
                Some(']') => return Ok(self.text[begin..self.pos - 1].to_string()),
                Some(_) => {}
            }
        }
    }

    /// A target-language block: braces nest, and strings and comments inside it may hold
    /// unbalanced braces.
    fn action(&mut self, start: usize) -> Result<String, Diagnostic> {
        let begin = self.pos;
        let mut depth = 1;
        while depth > 0 {
            let rest = &self.text[self.pos..];
            if rest.starts_with("//") {
                self.pos += rest.find('\n').unwrap_or(rest.len());
                continue;
            }
            if let Some(body) = rest.strip_prefix("/*") {
                self.pos += body.find("*/").map_or(rest.len(), |e| e + 4);
                continue;
            }
            match self.bump() {
                None => return Err(self.error(start, "unterminated action; missing '}'")),
                Some('{') => depth += 1,
                Some('}') => depth -= 1,
                Some(q @ ('"' | '\'')) => loop {
                    match self.bump() {
                        None | Some('\n') => break,
                        Some('\\') => {
                            self.bump();
                        }
                        Some(c) if c == q => break,
                        Some(_) => {}
                    }
                },
                Some(_) => {}
            }
        }
        Ok(self.text[begin..self.pos - 1].to_string())
    }

    fn element_options(&mut self, start: usize) -> Result<(), Diagnostic> {
        loop {
            match self.bump() {
                None => return Err(self.error(start, "unterminated element options; missing '>'")),
                Some('>') => return Ok(()),
                Some('\'') => {
                    self.literal(self.pos - 1)?;
                }
                Some(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokenKind> {
        tokenize(&SourceFile::new("t.g4", text))
            .unwrap()
            .into_iter()
            .map(|t| t.kind)
            .collect()
    }

    #[test]
    fn blocks_of_other_languages_are_single_tokens() {
        let k = kinds("a : {x = \"}\";}? b=[a-z\\]] <assoc=right> 'x\\n' .. -> ;");
        assert_eq!(
            k,
            vec![
                TokenKind::Ident("a".into()),
                TokenKind::Colon,
                TokenKind::Action {
                    text: "x = \"}\";".into(),
                    predicate: true
                },
                TokenKind::Ident("b".into()),
                TokenKind::Assign,
                TokenKind::Bracket("a-z\\]".into()),
                TokenKind::ElementOptions,
                TokenKind::Literal("x\n".into()),
                TokenKind::DotDot,
                TokenKind::Arrow,
                TokenKind::Semicolon,
                TokenKind::Eof,
            ]
        );
    }

    #[test]
    fn errors_are_located() {
        let err = tokenize(&SourceFile::new("t.g4", "a : 'abc\n;")).unwrap_err();
        let loc = err.location.unwrap();
        assert_eq!((loc.line, loc.column), (1, 5));
    }
}
