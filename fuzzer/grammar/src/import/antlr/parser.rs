//! Recursive-descent parser for ANTLR4 `.g4` files: combined, `lexer` and `parser` grammars.
//!
//! Everything that only matters to ANTLR's generated code is read and dropped: `@header` and
//! `@members` actions, rule arguments, `returns`, `locals`, `throws`, exception handlers,
//! element and alternative labels, and `<assoc=right>` options. Embedded actions `{...}` and
//! semantic predicates `{...}?` can change the accepted language in ways that need the target
//! language to run, so each one dropped gets a located warning.

use super::lexer::{Token, TokenKind, tokenize};
use super::syntax::{Alternative, Command, Element, GrammarKind, GrammarSpec, Rule};
use crate::diagnostic::{Diagnostic, SourceFile, Span};
use crate::grammar::syntax::{MAX_NESTING, too_deep};

pub fn parse(source: &SourceFile) -> Result<(GrammarSpec, Vec<Diagnostic>), Diagnostic> {
    let tokens = tokenize(source)?;
    let mut parser = Parser {
        source,
        tokens,
        pos: 0,
        warnings: Vec::new(),
        depth: 0,
    };
    let mut spec = parser.grammar()?;
    for rule in spec.rules.iter_mut().filter(|r| r.is_lexer()) {
        super::charset::pair_surrogates(&mut rule.alternatives);
    }
    Ok((spec, parser.warnings))
}

struct Parser<'a> {
    source: &'a SourceFile,
    tokens: Vec<Token>,
    pos: usize,
    warnings: Vec<Diagnostic>,
    /// Blocks and `~` open around the current token, bounded by [`MAX_NESTING`] as in the
    /// native format.
    depth: usize,
}

fn describe(kind: &TokenKind) -> String {
    match kind {
        TokenKind::Ident(n) => format!("'{n}'"),
        TokenKind::Int(n) => format!("the number {n}"),
        TokenKind::Literal(l) => format!("literal {l:?}"),
        TokenKind::Bracket(b) => format!("[{b}]"),
        TokenKind::Action {
            predicate: true, ..
        } => "a predicate".into(),
        TokenKind::Action { .. } => "an action".into(),
        TokenKind::ElementOptions => "element options".into(),
        TokenKind::Colon => "':'".into(),
        TokenKind::ColonColon => "'::'".into(),
        TokenKind::Semicolon => "';'".into(),
        TokenKind::Pipe => "'|'".into(),
        TokenKind::LeftParen => "'('".into(),
        TokenKind::RightParen => "')'".into(),
        TokenKind::Question => "'?'".into(),
        TokenKind::Star => "'*'".into(),
        TokenKind::Plus => "'+'".into(),
        TokenKind::Tilde => "'~'".into(),
        TokenKind::DotDot => "'..'".into(),
        TokenKind::Dot => "'.'".into(),
        TokenKind::Assign => "'='".into(),
        TokenKind::PlusAssign => "'+='".into(),
        TokenKind::Arrow => "'->'".into(),
        TokenKind::Comma => "','".into(),
        TokenKind::Pound => "'#'".into(),
        TokenKind::At => "'@'".into(),
        TokenKind::Eof => "end of file".into(),
    }
}

impl Parser<'_> {
    fn peek(&self) -> &TokenKind {
        &self.tokens[self.pos].kind
    }

    fn peek_at(&self, n: usize) -> &TokenKind {
        &self.tokens[(self.pos + n).min(self.tokens.len() - 1)].kind
    }

    fn span(&self) -> Span {
        self.tokens[self.pos].span
    }

    fn advance(&mut self) -> Token {
        let token = self.tokens[self.pos].clone();
        if token.kind != TokenKind::Eof {
            self.pos += 1;
        }
        token
    }

    fn at_ident(&self, word: &str) -> bool {
        matches!(self.peek(), TokenKind::Ident(n) if n == word)
    }

    fn unexpected(&self, expected: &str) -> Diagnostic {
        self.source.error(
            self.span(),
            format!("expected {expected}, found {}", describe(self.peek())),
        )
    }

    fn expect(&mut self, kind: TokenKind, expected: &str) -> Result<Span, Diagnostic> {
        if *self.peek() == kind {
            Ok(self.advance().span)
        } else {
            Err(self.unexpected(expected))
        }
    }

    fn ident(&mut self, expected: &str) -> Result<(String, Span), Diagnostic> {
        match self.peek().clone() {
            TokenKind::Ident(n) => Ok((n, self.advance().span)),
            _ => Err(self.unexpected(expected)),
        }
    }

    fn warn(&mut self, span: Span, message: impl Into<String>) {
        self.warnings.push(self.source.warning(span, message));
    }

    fn grammar(&mut self) -> Result<GrammarSpec, Diagnostic> {
        let kind = if self.at_ident("lexer") {
            self.advance();
            GrammarKind::Lexer
        } else if self.at_ident("parser") {
            self.advance();
            GrammarKind::Parser
        } else {
            GrammarKind::Combined
        };
        if !self.at_ident("grammar") {
            return Err(self.unexpected("'grammar NAME;' at the start of the file"));
        }
        self.advance();
        let (name, _) = self.ident("the grammar's name")?;
        self.expect(TokenKind::Semicolon, "';' after the grammar's name")?;
        let mut spec = GrammarSpec {
            kind,
            name,
            options: Vec::new(),
            imports: Vec::new(),
            tokens: Vec::new(),
            rules: Vec::new(),
            first_mode: None,
        };
        loop {
            match self.peek().clone() {
                TokenKind::Eof => return Ok(spec),
                TokenKind::At => self.named_action()?,
                TokenKind::Ident(word) => match word.as_str() {
                    "options" if matches!(self.peek_at(1), TokenKind::Action { .. }) => {
                        self.advance();
                        let block = self.advance();
                        spec.options.extend(self.option_block(&block));
                    }
                    "tokens" | "channels"
                        if matches!(self.peek_at(1), TokenKind::Action { .. }) =>
                    {
                        self.advance();
                        let block = self.advance();
                        if word == "tokens" {
                            spec.tokens.extend(self.name_list(&block));
                        }
                    }
                    "import" => {
                        self.advance();
                        loop {
                            let (mut name, mut span) = self.ident("a grammar name to import")?;
                            if *self.peek() == TokenKind::Assign {
                                self.advance();
                                (name, span) = self.ident("a grammar name to import")?;
                            }
                            spec.imports.push((name, span));
                            if *self.peek() != TokenKind::Comma {
                                break;
                            }
                            self.advance();
                        }
                        self.expect(TokenKind::Semicolon, "';' after the imports")?;
                    }
                    "mode"
                        if matches!(self.peek_at(1), TokenKind::Ident(_))
                            && *self.peek_at(2) == TokenKind::Semicolon =>
                    {
                        let span = self.advance().span;
                        spec.first_mode.get_or_insert(span);
                        self.advance();
                        self.advance();
                    }
                    _ => {
                        let rule = self.rule()?;
                        spec.rules.push(rule);
                    }
                },
                _ => {
                    return Err(
                        self.unexpected("a rule, 'options', 'tokens', 'import' or '@action'")
                    );
                }
            }
        }
    }

    /// `@header {...}`, `@parser::members {...}`: code for the generated parser.
    fn named_action(&mut self) -> Result<(), Diagnostic> {
        self.advance();
        self.ident("an action name after '@'")?;
        if *self.peek() == TokenKind::ColonColon {
            self.advance();
            self.ident("an action name after '::'")?;
        }
        match self.peek() {
            TokenKind::Action { .. } => {
                self.advance();
                Ok(())
            }
            _ => Err(self.unexpected("'{' to open the action")),
        }
    }

    /// `name = value; ...` inside an options block.
    /// The options of a block, each located at its own text (`tokenVocab = CalcLexer`), so
    /// that a message about one points at it.
    fn option_block(&self, block: &Token) -> Vec<(String, String, Span)> {
        let TokenKind::Action { text, .. } = &block.kind else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut offset = block.span.start as usize + 1;
        for item in text.split(';') {
            if let Some((n, v)) = item.split_once('=') {
                let start = offset + (item.len() - item.trim_start().len());
                let end = offset + item.trim_end().len();
                let span = Span::new(start.min(end), end);
                out.push((
                    n.trim().to_string(),
                    v.trim().trim_matches('\'').to_string(),
                    span,
                ));
            }
            offset += item.len() + 1;
        }
        out
    }

    fn name_list(&self, block: &Token) -> Vec<(String, Span)> {
        let TokenKind::Action { text, .. } = &block.kind else {
            return Vec::new();
        };
        text.split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(|n| (n.to_string(), block.span))
            .collect()
    }

    fn rule(&mut self) -> Result<Rule, Diagnostic> {
        let mut fragment = false;
        while let TokenKind::Ident(w) = self.peek() {
            match w.as_str() {
                "public" | "private" | "protected" => {
                    self.advance();
                }
                "fragment" => {
                    fragment = true;
                    self.advance();
                }
                _ => break,
            }
        }
        let (name, name_span) = self.ident("a rule name")?;
        // Everything between the name and ':' belongs to ANTLR's generated code.
        loop {
            match self.peek().clone() {
                TokenKind::Colon => break,
                TokenKind::Bracket(_) | TokenKind::Action { .. } => {
                    self.advance();
                }
                TokenKind::At => self.named_action()?,
                TokenKind::Ident(w) if matches!(w.as_str(), "returns" | "locals" | "options") => {
                    self.advance();
                }
                TokenKind::Ident(w) if w == "throws" => {
                    self.advance();
                    self.ident("an exception name")?;
                    while *self.peek() == TokenKind::Comma {
                        self.advance();
                        self.ident("an exception name")?;
                    }
                }
                _ => return Err(self.unexpected(&format!("':' after the rule name '{name}'"))),
            }
        }
        self.advance();
        let mut alternatives = self.alternatives(true)?;
        // An alternative of a parser rule that is only a predicate (grammars-v4 Go's
        // `eos : ';' | EOS | {this.closingBracket()}?`) matches nothing where the target's code
        // allows it. Read as always true, it would let a seed skip what the code requires
        // (Go's line end, read as layout and replayed as a space); it is left out instead.
        if name.starts_with(|c: char| c.is_lowercase()) && alternatives.len() > 1 {
            let gates: Vec<Span> = (alternatives.iter())
                .filter(|a| a.elements.is_empty())
                .filter_map(|a| a.predicate)
                .collect();
            if gates.len() < alternatives.len() {
                alternatives.retain(|a| !(a.elements.is_empty() && a.predicate.is_some()));
                for span in gates {
                    self.warn(span, "an alternative that is only a semantic predicate is left out: it matches nothing where the target's code allows it, which no seed or generated input can decide");
                }
            }
        }
        let end = self.expect(
            TokenKind::Semicolon,
            &format!("';' or '|' to end the rule '{name}'"),
        )?;
        // Exception handlers: `catch [Type e] {...}` and `finally {...}`.
        loop {
            if self.at_ident("catch") {
                self.advance();
                if matches!(self.peek(), TokenKind::Bracket(_)) {
                    self.advance();
                }
            } else if self.at_ident("finally") {
                self.advance();
            } else {
                break;
            }
            match self.peek() {
                TokenKind::Action { .. } => {
                    self.advance();
                }
                _ => return Err(self.unexpected("'{' to open the handler")),
            }
        }
        Ok(Rule {
            name,
            name_span,
            fragment,
            alternatives,
            span: name_span.to(end),
        })
    }

    fn alternatives(&mut self, top: bool) -> Result<Vec<Alternative>, Diagnostic> {
        let mut alts = vec![self.alternative(top)?];
        while *self.peek() == TokenKind::Pipe {
            self.advance();
            alts.push(self.alternative(top)?);
        }
        Ok(alts)
    }

    fn alternative(&mut self, top: bool) -> Result<Alternative, Diagnostic> {
        let start = self.span();
        let mut elements = Vec::new();
        let mut commands = Vec::new();
        let mut predicate_at = None;
        let mut action_at = None;
        loop {
            match self.peek().clone() {
                TokenKind::Pipe | TokenKind::Semicolon | TokenKind::RightParen | TokenKind::Eof => {
                    break;
                }
                TokenKind::Pound if top => {
                    self.advance();
                    self.ident("an alternative label after '#'")?;
                }
                TokenKind::Arrow if top => {
                    self.advance();
                    commands = self.commands()?;
                }
                TokenKind::ElementOptions => {
                    self.advance();
                }
                TokenKind::Action { predicate, .. } => {
                    let span = self.advance().span;
                    if predicate {
                        predicate_at = predicate_at.or(Some(span));
                        self.warn(span, "semantic predicate ignored: generated inputs may include what it would reject");
                    } else {
                        action_at = action_at.or(Some(span));
                        self.warn(
                            span,
                            "action ignored: a generator cannot run target-language code",
                        );
                    }
                    if *self.peek() == TokenKind::ElementOptions {
                        self.advance();
                    }
                }
                _ => elements.push(self.element()?),
            }
        }
        let span = elements
            .iter()
            .map(Element::span)
            .reduce(Span::to)
            .unwrap_or(Span {
                start: start.start,
                end: start.start,
            });
        Ok(Alternative {
            elements,
            commands,
            span,
            predicate: predicate_at,
            action: action_at,
        })
    }

    fn commands(&mut self) -> Result<Vec<(Command, Span)>, Diagnostic> {
        let mut out = Vec::new();
        loop {
            let (name, span) =
                self.ident("a lexer command (skip, more, channel, type, pushMode, popMode, mode)")?;
            let argument = if *self.peek() == TokenKind::LeftParen {
                self.advance();
                // A channel may be named by its number (`channel(2)`, a channel of its own that
                // no parser reads, like HIDDEN).
                let arg = match self.peek().clone() {
                    TokenKind::Ident(a) | TokenKind::Int(a) => a,
                    _ => return Err(self.unexpected("the command's argument")),
                };
                self.advance();
                self.expect(TokenKind::RightParen, "')' after the command's argument")?;
                Some(arg)
            } else {
                None
            };
            let command = match (name.as_str(), argument) {
                ("skip", None) => Command::Skip,
                ("more", None) => Command::More,
                ("popMode", None) => Command::PopMode,
                ("channel", Some(a)) => Command::Channel(a),
                ("type", Some(a)) => Command::Type(a),
                ("pushMode", Some(a)) => Command::PushMode(a),
                ("mode", Some(a)) => Command::Mode(a),
                (other, _) => {
                    return Err(self.source.error(
                        span,
                        format!("unknown lexer command '{other}'; expected skip, more, popMode, channel(X), type(X), pushMode(X) or mode(X)"),
                    ));
                }
            };
            out.push((command, span));
            if *self.peek() != TokenKind::Comma {
                return Ok(out);
            }
            self.advance();
        }
    }

    fn element(&mut self) -> Result<Element, Diagnostic> {
        // Labels: `x=atom`, `xs+=atom`.
        if matches!(self.peek(), TokenKind::Ident(_))
            && matches!(self.peek_at(1), TokenKind::Assign | TokenKind::PlusAssign)
        {
            self.advance();
            self.advance();
        }
        let atom = self.atom()?;
        let op = match self.peek() {
            TokenKind::Question => '?',
            TokenKind::Star => '*',
            TokenKind::Plus => '+',
            _ => return Ok(atom),
        };
        let mut span = atom.span().to(self.advance().span);
        // Non-greedy `*?`, `+?`, `??` match the same strings.
        if *self.peek() == TokenKind::Question {
            span = span.to(self.advance().span);
        }
        Ok(Element::Suffix(Box::new(atom), op, span))
    }

    fn atom(&mut self) -> Result<Element, Diagnostic> {
        let token = self.peek().clone();
        let span = self.span();
        if matches!(token, TokenKind::LeftParen | TokenKind::Tilde) {
            if self.depth == MAX_NESTING {
                return Err(self.source.error(span, too_deep("this element")));
            }
            self.depth += 1;
            let element = self.atom_inside(token, span);
            self.depth -= 1;
            return element;
        }
        self.atom_inside(token, span)
    }

    fn atom_inside(&mut self, token: TokenKind, span: Span) -> Result<Element, Diagnostic> {
        let element = match token {
            TokenKind::Literal(text) => {
                self.advance();
                if *self.peek() == TokenKind::DotDot {
                    self.advance();
                    let end = self.span();
                    let TokenKind::Literal(to) = self.peek().clone() else {
                        return Err(self.unexpected("a literal after '..'"));
                    };
                    self.advance();
                    let (Some(a), Some(b)) = (single_char(&text), single_char(&to)) else {
                        return Err(self.source.error(
                            span.to(end),
                            "a range 'a'..'z' needs one character on each side",
                        ));
                    };
                    if a > b {
                        return Err(self.source.error(
                            span.to(end),
                            "the range is empty: its start is after its end",
                        ));
                    }
                    Element::Range(a, b, span.to(end))
                } else {
                    Element::Literal(text, span)
                }
            }
            TokenKind::Ident(name) => {
                self.advance();
                // Rule arguments `expr[0]` belong to the generated code.
                if name.starts_with(|c: char| c.is_lowercase())
                    && matches!(self.peek(), TokenKind::Bracket(_))
                {
                    self.advance();
                }
                Element::Ref(name, span)
            }
            TokenKind::Bracket(set) => {
                self.advance();
                Element::Set(set, span)
            }
            TokenKind::Dot => {
                self.advance();
                Element::Any(span)
            }
            TokenKind::Tilde => {
                self.advance();
                let inner = self.atom()?;
                let whole = span.to(inner.span());
                Element::Not(Box::new(inner), whole)
            }
            TokenKind::LeftParen => {
                self.advance();
                // `( options {...} : alts )`
                if self.at_ident("options") && matches!(self.peek_at(1), TokenKind::Action { .. }) {
                    self.advance();
                    self.advance();
                    self.expect(TokenKind::Colon, "':' after the block's options")?;
                }
                let alts = self.alternatives(false)?;
                if *self.peek() != TokenKind::RightParen {
                    return Err(self.source.error(
                        span,
                        format!(
                            "unclosed '(': expected ')' before {}",
                            describe(self.peek())
                        ),
                    ));
                }
                let close = self.advance().span;
                Element::Block(alts, span.to(close))
            }
            _ => return Err(self.unexpected("a rule, token, literal, set or '('")),
        };
        if *self.peek() == TokenKind::ElementOptions {
            self.advance();
        }
        Ok(element)
    }
}

fn single_char(text: &str) -> Option<char> {
    let mut chars = text.chars();
    let c = chars.next()?;
    chars.next().is_none().then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> (GrammarSpec, Vec<Diagnostic>) {
        parse(&SourceFile::new("t.g4", text)).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn reads_headers_rules_labels_and_commands() {
        let (spec, warnings) = parse_ok(
            "grammar T;\noptions { tokenVocab = L; }\n@header { import x; }\n\
             s returns [int v] : e=expr {print();} # Top | xs+=ID* ;\n\
             expr : <assoc=right> expr '^' expr | INT ;\n\
             fragment D : '0'..'9' ;\nWS : [ \\t]+ -> channel(HIDDEN) ;\n",
        );
        assert_eq!(spec.kind, GrammarKind::Combined);
        assert_eq!(spec.option("tokenVocab").map(|o| o.0), Some("L"));
        let names: Vec<&str> = spec.rules.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["s", "expr", "D", "WS"]);
        assert!(spec.rules[2].fragment);
        assert!(spec.rules[3].is_skipped());
        assert_eq!(spec.rules[0].alternatives.len(), 2);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].message.contains("action ignored"));
        assert_eq!(warnings[0].location.as_ref().unwrap().line, 4);
    }

    #[test]
    fn malformed_files_are_located() {
        let err = parse(&SourceFile::new("t.g4", "grammar T;\nr : 'a' (b ;\n")).unwrap_err();
        let loc = err.location.unwrap();
        assert_eq!((loc.line, loc.column), (2, 9));
        let err = parse(&SourceFile::new("t.g4", "grammar T;\nA : 'ab'..'c' ;\n")).unwrap_err();
        assert!(err.message.contains("one character"));
    }
}
