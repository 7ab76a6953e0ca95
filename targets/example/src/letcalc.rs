//! letcalc: the stand-in for your compiler. A lexer, a recursive-descent parser, a name
//! resolver and an evaluator with checked arithmetic; each reports its errors with a position.

use std::fmt;

/// An error of one phase, at a 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub phase: &'static str,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}:{}: {}",
            self.phase, self.line, self.column, self.message
        )
    }
}

/// Compiles and evaluates a program; returns the value it prints.
pub fn run(source: &str) -> Result<i64, Error> {
    run_variant(source, Variant::Golden)
}

/// Deliberately wrong parsers, each accepting more than the language: the mistakes the
/// negative-suite paper found in student parsers, for the test that a negative suite catches
/// what positive suites cannot (`tests/negative_variants.rs`). Only [`Variant::Golden`] is
/// the compiler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The parser as it should be.
    Golden,
    /// A gratuitous optional: `let a 1;` as well as `let a = 1;`.
    OptionalEquals,
    /// A superfluous alternative: `+` before an operand, as `-` is.
    UnaryPlus,
    /// An order violation: a binary operator after its right operand too (`a b +`).
    EitherOperatorOrder,
}

/// [`run`] with the parser of `variant`.
pub fn run_variant(source: &str, variant: Variant) -> Result<i64, Error> {
    let tokens = lex(source)?;
    let program = Parser {
        tokens,
        pos: 0,
        variant,
    }
    .program()?;
    resolve(&program)?;
    evaluate(&program)
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Number(i64),
    Name(String),
    Keyword(&'static str),
    Symbol(char),
    End,
}

#[derive(Debug, Clone)]
struct Token {
    kind: Kind,
    line: usize,
    column: usize,
}

const KEYWORDS: [&str; 3] = ["let", "in", "print"];

fn lex(source: &str) -> Result<Vec<Token>, Error> {
    let mut tokens = Vec::new();
    let (mut line, mut column) = (1, 1);
    let mut chars = source.chars().peekable();
    while let Some(&c) = chars.peek() {
        let (start_line, start_column) = (line, column);
        let mut bump = |chars: &mut std::iter::Peekable<std::str::Chars>| {
            let c = chars.next();
            if c == Some('\n') {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }
            c
        };
        let kind = if c.is_whitespace() {
            bump(&mut chars);
            continue;
        } else if c.is_ascii_digit() {
            let mut value: i64 = 0;
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                value = value
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(i64::from(d)))
                    .ok_or_else(|| error("parse", start_line, start_column, "number too large"))?;
                bump(&mut chars);
            }
            Kind::Number(value)
        } else if c.is_ascii_lowercase() {
            let mut word = String::new();
            while let Some(&c) = chars.peek().filter(|c| c.is_ascii_alphanumeric()) {
                word.push(c);
                bump(&mut chars);
            }
            match KEYWORDS.iter().find(|k| **k == word) {
                Some(k) => Kind::Keyword(k),
                None => Kind::Name(word),
            }
        } else if "=;+-*/()".contains(c) {
            bump(&mut chars);
            Kind::Symbol(c)
        } else {
            return Err(error(
                "parse",
                line,
                column,
                &format!("unexpected character {c:?}"),
            ));
        };
        tokens.push(Token {
            kind,
            line: start_line,
            column: start_column,
        });
    }
    tokens.push(Token {
        kind: Kind::End,
        line,
        column,
    });
    Ok(tokens)
}

fn error(phase: &'static str, line: usize, column: usize, message: &str) -> Error {
    Error {
        phase,
        line,
        column,
        message: message.to_string(),
    }
}

/// A name with the position where it occurs.
#[derive(Debug, Clone)]
struct Name {
    text: String,
    line: usize,
    column: usize,
}

#[derive(Debug)]
enum Expr {
    Number(i64),
    Var(Name),
    Negate(Box<Expr>, Name),
    Binary(Box<Expr>, char, Box<Expr>, Name),
    Let(Name, Box<Expr>, Box<Expr>),
}

#[derive(Debug)]
struct Program {
    bindings: Vec<(Name, Expr)>,
    result: Expr,
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    variant: Variant,
}

impl Parser {
    fn peek(&self) -> &Token {
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn next(&mut self) -> Token {
        let token = self.peek().clone();
        self.pos += 1;
        token
    }

    fn fail<T>(&self, expected: &str) -> Result<T, Error> {
        let token = self.peek();
        Err(error(
            "parse",
            token.line,
            token.column,
            &format!("expected {expected}"),
        ))
    }

    fn expect(&mut self, kind: Kind, what: &str) -> Result<(), Error> {
        if self.peek().kind == kind {
            self.pos += 1;
            Ok(())
        } else {
            self.fail(what)
        }
    }

    fn name(&mut self) -> Result<Name, Error> {
        match self.peek().kind.clone() {
            Kind::Name(text) => {
                let token = self.next();
                Ok(Name {
                    text,
                    line: token.line,
                    column: token.column,
                })
            }
            _ => self.fail("a name"),
        }
    }

    fn program(mut self) -> Result<Program, Error> {
        let mut bindings = Vec::new();
        while self.peek().kind == Kind::Keyword("let") {
            self.pos += 1;
            let name = self.name()?;
            if self.variant != Variant::OptionalEquals || self.peek().kind == Kind::Symbol('=') {
                self.expect(Kind::Symbol('='), "'='")?;
            }
            let value = self.expr()?;
            self.expect(Kind::Symbol(';'), "';'")?;
            bindings.push((name, value));
        }
        self.expect(Kind::Keyword("print"), "'let' or 'print'")?;
        let result = self.expr()?;
        self.expect(Kind::Symbol(';'), "';'")?;
        self.expect(Kind::End, "the end of the program")?;
        Ok(Program { bindings, result })
    }

    fn expr(&mut self) -> Result<Expr, Error> {
        if self.peek().kind == Kind::Keyword("let") {
            self.pos += 1;
            let name = self.name()?;
            self.expect(Kind::Symbol('='), "'='")?;
            let value = self.expr()?;
            self.expect(Kind::Keyword("in"), "'in'")?;
            let body = self.expr()?;
            return Ok(Expr::Let(name, Box::new(value), Box::new(body)));
        }
        self.binary(&['+', '-'], Self::product)
    }

    fn product(&mut self) -> Result<Expr, Error> {
        self.binary(&['*', '/'], Self::atom)
    }

    fn binary(
        &mut self,
        ops: &[char],
        operand: fn(&mut Self) -> Result<Expr, Error>,
    ) -> Result<Expr, Error> {
        let mut left = operand(self)?;
        loop {
            match self.peek().kind {
                Kind::Symbol(op) if ops.contains(&op) => {
                    let token = self.next();
                    let at = Name {
                        text: op.to_string(),
                        line: token.line,
                        column: token.column,
                    };
                    let right = operand(self)?;
                    left = Expr::Binary(Box::new(left), op, Box::new(right), at);
                }
                Kind::Number(_) | Kind::Name(_) | Kind::Symbol('(')
                    if self.variant == Variant::EitherOperatorOrder =>
                {
                    let right = operand(self)?;
                    let token = self.peek().clone();
                    let Kind::Symbol(op) = token.kind else {
                        return self.fail("an operator");
                    };
                    if !ops.contains(&op) {
                        return self.fail("an operator");
                    }
                    self.pos += 1;
                    let at = Name {
                        text: op.to_string(),
                        line: token.line,
                        column: token.column,
                    };
                    left = Expr::Binary(Box::new(left), op, Box::new(right), at);
                }
                _ => return Ok(left),
            }
        }
    }

    fn atom(&mut self) -> Result<Expr, Error> {
        match self.peek().kind.clone() {
            Kind::Number(value) => {
                self.pos += 1;
                Ok(Expr::Number(value))
            }
            Kind::Name(_) => Ok(Expr::Var(self.name()?)),
            Kind::Symbol('(') => {
                self.pos += 1;
                let inner = self.expr()?;
                self.expect(Kind::Symbol(')'), "')'")?;
                Ok(inner)
            }
            Kind::Symbol('+') if self.variant == Variant::UnaryPlus => {
                self.pos += 1;
                self.atom()
            }
            Kind::Symbol('-') => {
                let token = self.next();
                let at = Name {
                    text: "-".to_string(),
                    line: token.line,
                    column: token.column,
                };
                Ok(Expr::Negate(Box::new(self.atom()?), at))
            }
            _ => self.fail("a number, a name, '(' or '-'"),
        }
    }
}

/// Every name must be bound before it is used: program-level `let`s in order, and each
/// `let ... in` for its body only.
fn resolve(program: &Program) -> Result<(), Error> {
    let mut scope: Vec<&str> = Vec::new();
    for (name, value) in &program.bindings {
        resolve_expr(value, &mut scope)?;
        scope.push(&name.text);
    }
    resolve_expr(&program.result, &mut scope)
}

fn resolve_expr<'p>(expr: &'p Expr, scope: &mut Vec<&'p str>) -> Result<(), Error> {
    match expr {
        Expr::Number(_) => Ok(()),
        Expr::Var(name) if scope.contains(&name.text.as_str()) => Ok(()),
        Expr::Var(name) => Err(error(
            "scope",
            name.line,
            name.column,
            &format!("'{}' is not bound", name.text),
        )),
        Expr::Negate(inner, _) => resolve_expr(inner, scope),
        Expr::Binary(left, _, right, _) => {
            resolve_expr(left, scope)?;
            resolve_expr(right, scope)
        }
        Expr::Let(name, value, body) => {
            resolve_expr(value, scope)?;
            scope.push(&name.text);
            let result = resolve_expr(body, scope);
            scope.pop();
            result
        }
    }
}

fn evaluate(program: &Program) -> Result<i64, Error> {
    let mut env: Vec<(&str, i64)> = Vec::new();
    for (name, value) in &program.bindings {
        let v = eval(value, &mut env)?;
        env.push((&name.text, v));
    }
    eval(&program.result, &mut env)
}

fn eval<'p>(expr: &'p Expr, env: &mut Vec<(&'p str, i64)>) -> Result<i64, Error> {
    match expr {
        Expr::Number(v) => Ok(*v),
        Expr::Var(name) => Ok(env
            .iter()
            .rev()
            .find(|(n, _)| *n == name.text)
            .map(|(_, v)| *v)
            .expect("resolve() checked every name")),
        Expr::Negate(inner, at) => eval(inner, env)?
            .checked_neg()
            .ok_or_else(|| error("eval", at.line, at.column, "overflow")),
        Expr::Binary(left, op, right, at) => {
            let (l, r) = (eval(left, env)?, eval(right, env)?);
            let result = match op {
                '+' => l.checked_add(r),
                '-' => l.checked_sub(r),
                '*' => l.checked_mul(r),
                _ if r == 0 => {
                    return Err(error("eval", at.line, at.column, "division by zero"));
                }
                _ => l.checked_div(r),
            };
            result.ok_or_else(|| error("eval", at.line, at.column, "overflow"))
        }
        Expr::Let(name, value, body) => {
            let v = eval(value, env)?;
            env.push((&name.text, v));
            let result = eval(body, env);
            env.pop();
            result
        }
    }
}
