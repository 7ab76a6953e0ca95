//! Recursive-descent parser from tokens to [`GrammarFile`].

use super::Comment;
use super::lexer::{Lexer, Token, TokenKind};
use super::syntax::{
    Expr, GrammarFile, LayoutSetting, MAX_NESTING, PoolDef, PoolSource, RuleDef, too_deep,
};
use crate::diagnostic::{Diagnostic, SourceFile, Span};

pub fn parse(source: &SourceFile) -> Result<GrammarFile, Diagnostic> {
    let tokens = Lexer::new(source).tokenize()?;
    Parser {
        source,
        tokens,
        pos: 0,
        depth: 0,
    }
    .file()
}

struct Parser<'a> {
    source: &'a SourceFile,
    tokens: Vec<Token>,
    pos: usize,
    /// Parentheses open around the current token: see [`MAX_NESTING`].
    depth: usize,
}

fn describe(kind: &TokenKind) -> String {
    match kind {
        TokenKind::Name(n) => format!("name '{n}'"),
        TokenKind::Literal(l) => format!("literal {l:?}"),
        TokenKind::Regex(r) => format!("regex /{r}/"),
        TokenKind::Class(c) => format!("class {c}"),
        TokenKind::Directive(d) => format!("directive '%{d}'"),
        TokenKind::Defines => "'='".into(),
        TokenKind::Semicolon => "';'".into(),
        TokenKind::Pipe => "'|'".into(),
        TokenKind::LeftParen => "'('".into(),
        TokenKind::RightParen => "')'".into(),
        TokenKind::Question => "'?'".into(),
        TokenKind::Star => "'*'".into(),
        TokenKind::Plus => "'+'".into(),
        TokenKind::Count { .. } => "a repetition count".into(),
        TokenKind::Eof => "end of file".into(),
    }
}

impl Parser<'_> {
    fn peek(&self) -> &Token {
        &self.tokens[self.pos]
    }

    fn advance(&mut self) -> Token {
        let token = self.tokens[self.pos].clone();
        if token.kind != TokenKind::Eof {
            self.pos += 1;
        }
        token
    }

    fn unexpected(&self, expected: &str) -> Diagnostic {
        let token = self.peek();
        self.source.error(
            token.span,
            format!("expected {expected}, found {}", describe(&token.kind)),
        )
    }

    /// Whether the next tokens begin something that cannot continue the current rule or
    /// directive: the end of the file, a directive, or `name =`.
    fn at_next_definition(&self) -> bool {
        match self.peek().kind {
            TokenKind::Eof | TokenKind::Directive(_) => true,
            TokenKind::Name(_) => self.tokens[self.pos + 1].kind == TokenKind::Defines,
            _ => false,
        }
    }

    /// The ';' that ends `what`. When the next token starts a new definition, the ';' was
    /// forgotten: the error points right after the last token, where it belongs, instead of at
    /// the next rule, which may be many lines (or comments) further down.
    fn semicolon(&mut self, what: &str) -> Result<(), Diagnostic> {
        if self.peek().kind == TokenKind::Semicolon {
            self.advance();
            return Ok(());
        }
        if !self.at_next_definition() {
            return Err(self.unexpected(&format!("';' or '|' to end {what}")));
        }
        let next = match &self.peek().kind {
            TokenKind::Name(n) => format!("the definition of '{n}'"),
            TokenKind::Eof => "the end of the file".to_string(),
            other => describe(other),
        };
        let end = self.tokens[self.pos.saturating_sub(1)].span.end as usize;
        Err(self.source.error(
            Span::new(end, end),
            format!("expected ';' to end {what} before {next}"),
        ))
    }

    fn expect(&mut self, kind: TokenKind, expected: &str) -> Result<Token, Diagnostic> {
        if self.peek().kind == kind {
            Ok(self.advance())
        } else {
            Err(self.unexpected(expected))
        }
    }

    fn name(&mut self, expected: &str) -> Result<(String, Span), Diagnostic> {
        match &self.peek().kind {
            TokenKind::Name(n) => {
                let n = n.clone();
                Ok((n, self.advance().span))
            }
            _ => Err(self.unexpected(expected)),
        }
    }

    fn file(mut self) -> Result<GrammarFile, Diagnostic> {
        let mut file = GrammarFile::default();
        loop {
            match self.peek().kind.clone() {
                TokenKind::Eof => break,
                TokenKind::Directive(d) => {
                    let span = self.advance().span;
                    self.directive(&d, span, &mut file)?;
                }
                TokenKind::Name(_) => {
                    let rule = self.rule()?;
                    file.rules.push(rule);
                }
                _ => return Err(self.unexpected("a rule name or a '%' directive")),
            }
        }
        Ok(file)
    }

    fn directive(
        &mut self,
        name: &str,
        span: Span,
        file: &mut GrammarFile,
    ) -> Result<(), Diagnostic> {
        let given_twice = match name {
            "start" => file.start.is_some(),
            "layout" => file.layout.is_some(),
            "indent" => file.indent.is_some(),
            "depth" => file.depth.is_some(),
            "reserved" => file.reserved.is_some(),
            _ => false,
        };
        if given_twice {
            return Err(self.source.error(span, format!("'%{name}' is given twice")));
        }
        match name {
            "start" => {
                let start = self.name("the name of the start rule")?;
                file.start = Some(start);
            }
            "layout" => {
                let token = self.peek().clone();
                let setting = match token.kind {
                    TokenKind::Name(n) => LayoutSetting::Named(n, token.span),
                    TokenKind::Literal(l) => LayoutSetting::Text(l),
                    _ => {
                        return Err(self.unexpected(
                            "auto, space, none, newline or a quoted separator after '%layout'",
                        ));
                    }
                };
                self.advance();
                file.layout = Some(setting);
            }
            "indent" => {
                let token = self.peek().clone();
                let TokenKind::Literal(unit) = token.kind else {
                    return Err(self.unexpected("a quoted indentation string after '%indent'"));
                };
                if unit.is_empty() || !unit.chars().all(|c| c == ' ' || c == '\t') {
                    return Err(self.source.error(
                        token.span,
                        format!("the indentation unit {unit:?} must be one or more spaces or tabs"),
                    ));
                }
                self.advance();
                file.indent = Some(unit);
            }
            "depth" => {
                let measure = self.name("rule or cycle after '%depth'")?;
                file.depth = Some(measure);
            }
            "pool" => {
                let (name, name_span) = self.name("the pool's name after '%pool'")?;
                self.expect(TokenKind::Defines, "'=' after the pool's name")?;
                let source = self.pool_source()?;
                file.pools.push(PoolDef {
                    name,
                    name_span,
                    source,
                });
            }
            "comment" => {
                let comment = self.comment()?;
                file.comments.push(comment);
            }
            "reserved" => {
                let mut words = Vec::new();
                while let TokenKind::Literal(word) = &self.peek().kind {
                    words.push(word.clone());
                    self.advance();
                }
                file.reserved = Some(words);
            }
            other => {
                return Err(self.source.error(
                    span,
                    format!("unknown directive '%{other}'; known directives are %start, %layout, %indent, %depth, %pool, %comment and %reserved"),
                ));
            }
        }
        self.semicolon(&format!("the '%{name}' directive"))
    }

    /// `"#"` (to the end of the line) or `"/*" "*/"` (to the closing text).
    fn comment(&mut self) -> Result<Comment, Diagnostic> {
        let delimiter = |this: &mut Self, what: &str| -> Result<String, Diagnostic> {
            let token = this.peek().clone();
            let TokenKind::Literal(text) = token.kind else {
                return Err(this.unexpected(what));
            };
            if text.trim().is_empty() || text.contains('\n') {
                return Err(this.source.error(
                    token.span,
                    format!("a comment delimiter must be visible text on one line, not {text:?}"),
                ));
            }
            this.advance();
            Ok(text)
        };
        let open = delimiter(self, "a quoted comment opener after '%comment'")?;
        if !matches!(self.peek().kind, TokenKind::Literal(_)) {
            return Ok(Comment::Line(open));
        }
        let close = delimiter(self, "a quoted comment closer")?;
        Ok(Comment::Block { open, close })
    }

    fn pool_source(&mut self) -> Result<PoolSource, Diagnostic> {
        let token = self.peek().clone();
        match token.kind {
            TokenKind::Regex(r) => {
                self.advance();
                Ok(PoolSource::Regex(r, token.span))
            }
            TokenKind::Class(c) => {
                self.advance();
                Ok(PoolSource::Regex(c, token.span))
            }
            TokenKind::Literal(_) => {
                let mut values = Vec::new();
                loop {
                    let token = self.peek().clone();
                    match token.kind {
                        TokenKind::Literal(l) => values.push((l, token.span)),
                        _ => return Err(self.unexpected("a quoted pool value after '|'")),
                    }
                    self.advance();
                    if self.peek().kind != TokenKind::Pipe {
                        return Ok(PoolSource::Values(values));
                    }
                    self.advance();
                }
            }
            _ => Err(self.unexpected("a regex or quoted values for the pool")),
        }
    }

    fn rule(&mut self) -> Result<RuleDef, Diagnostic> {
        let (name, name_span) = self.name("a rule name")?;
        self.expect(
            TokenKind::Defines,
            &format!("'=' after the rule name '{name}'"),
        )?;
        let body = self.alternatives()?;
        if self.peek().kind == TokenKind::RightParen {
            return Err(self.source.error(
                self.peek().span,
                format!("unmatched ')' in the rule '{name}'"),
            ));
        }
        self.semicolon(&format!("the rule '{name}'"))?;
        Ok(RuleDef {
            name,
            name_span,
            body,
        })
    }

    fn alternatives(&mut self) -> Result<Expr, Diagnostic> {
        let mut alts = vec![self.sequence()?];
        while self.peek().kind == TokenKind::Pipe {
            self.advance();
            alts.push(self.sequence()?);
        }
        if alts.len() == 1 {
            return Ok(alts.pop().unwrap());
        }
        let span = alts[0].span().to(alts[alts.len() - 1].span());
        Ok(Expr::Alt(alts, span))
    }

    fn sequence(&mut self) -> Result<Expr, Diagnostic> {
        let start = self.peek().span;
        let mut items = Vec::new();
        while let Some(item) = self.postfix()? {
            items.push(item);
        }
        let span = items
            .iter()
            .map(Expr::span)
            .reduce(Span::to)
            .unwrap_or(Span {
                start: start.start,
                end: start.start,
            });
        if items.len() == 1 {
            return Ok(items.pop().unwrap());
        }
        Ok(Expr::Seq(items, span))
    }

    fn postfix(&mut self) -> Result<Option<Expr>, Diagnostic> {
        let Some(mut expr) = self.atom()? else {
            return Ok(None);
        };
        let mut stacked = 0;
        loop {
            let token = self.peek().clone();
            let (min, max, optional) = match token.kind {
                TokenKind::Question => (0, Some(1), true),
                TokenKind::Star => (0, None, false),
                TokenKind::Plus => (1, None, false),
                TokenKind::Count { min, max } => (min, max, false),
                _ => return Ok(Some(expr)),
            };
            stacked += 1;
            if self.depth + stacked > MAX_NESTING {
                return Err(self.source.error(token.span, too_deep("this repetition")));
            }
            self.advance();
            let span = expr.span().to(token.span);
            expr = Expr::Quantified {
                inner: Box::new(expr),
                min,
                max,
                optional,
                span,
            };
        }
    }

    fn atom(&mut self) -> Result<Option<Expr>, Diagnostic> {
        let token = self.peek().clone();
        let expr = match token.kind {
            TokenKind::Name(n) => {
                // A name followed by '=' starts the next rule: the current one lacks its ';',
                // which the caller reports.
                if self.tokens[self.pos + 1].kind == TokenKind::Defines {
                    return Ok(None);
                }
                Expr::Name(n, token.span)
            }
            TokenKind::Literal(l) => Expr::Literal(l, token.span),
            TokenKind::Regex(r) => Expr::Regex(r, token.span),
            TokenKind::Class(c) => Expr::Class(c, token.span),
            TokenKind::LeftParen => {
                if self.depth == MAX_NESTING {
                    return Err(self.source.error(token.span, too_deep("this '('")));
                }
                self.advance();
                self.depth += 1;
                let inner = self.alternatives()?;
                self.depth -= 1;
                let close = self.peek().span;
                if self.peek().kind != TokenKind::RightParen {
                    return Err(self.source.error(
                        token.span,
                        format!(
                            "unclosed '(': expected ')' before {}",
                            describe(&self.peek().kind)
                        ),
                    ));
                }
                self.advance();
                let span = token.span.to(close);
                return Ok(Some(match inner {
                    Expr::Seq(items, _) => Expr::Seq(items, span),
                    other => other,
                }));
            }
            TokenKind::Question | TokenKind::Star | TokenKind::Plus | TokenKind::Count { .. } => {
                return Err(self.source.error(
                    token.span,
                    format!("{} has nothing to apply to", describe(&token.kind)),
                ));
            }
            _ => return Ok(None),
        };
        self.advance();
        Ok(Some(expr))
    }
}
