//! fourbugs: a lexer, a recursive-descent parser and an interpreter for a tiny language, the
//! user's crate in the end-to-end test of fault buckets. It has four planted bugs whose
//! messages and stopping points vary with the input, so that a fuzzer that tells bugs apart by
//! message or by where a timer landed reports each many times:
//!
//! - `print 7/(3/4);`: a division by zero panics with the whole expression quoted;
//! - `swap a a;`: swapping a variable with itself panics naming it, unquoted;
//! - `pick [1, 2] 5;`: an index out of bounds at an index the input gives;
//! - `wait 3;`: waiting for an odd number never ends, stepping through three helpers.
//!
//! `BUGS = false` fixes all four (the test flips it to check the exported regression tests).

use std::collections::HashMap;
use std::fmt;

/// Whether the planted bugs are in.
const BUGS: bool = true;

/// Why a program was refused, with the stage that refused it.
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Int(u64),
    Word(String),
    Punct(char),
}

fn lex(source: &str) -> Result<Vec<Token>, Error> {
    let mut tokens = Vec::new();
    let mut chars = source.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_digit() {
            let mut value: u64 = 0;
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                value = value.saturating_mul(10).saturating_add(u64::from(d));
                chars.next();
            }
            tokens.push(Token::Int(value));
        } else if c.is_ascii_lowercase() {
            let mut word = String::new();
            while let Some(&c) = chars.peek().filter(|c| c.is_ascii_lowercase()) {
                word.push(c);
                chars.next();
            }
            tokens.push(Token::Word(word));
        } else if "=;/()[],".contains(c) {
            tokens.push(Token::Punct(c));
            chars.next();
        } else {
            return Err(Error(format!("lex: unexpected '{c}'")));
        }
    }
    Ok(tokens)
}

#[derive(Debug)]
enum Expr {
    Int(u64),
    Name(String),
    Divide(Box<Expr>, Box<Expr>),
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Int(value) => write!(f, "{value}"),
            Expr::Name(name) => f.write_str(name),
            Expr::Divide(left, right) => write!(f, "({left} / {right})"),
        }
    }
}

#[derive(Debug)]
enum Stmt {
    Let(String, Expr),
    Print(Expr),
    Swap(String, String),
    Pick(Vec<u64>, u64),
    Wait(u64),
}

const KEYWORDS: [&str; 5] = ["let", "print", "swap", "pick", "wait"];

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Token::Punct(c)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), Error> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(Error(format!("parse: expected '{c}' at token {}", self.at)))
        }
    }

    fn name(&mut self) -> Result<String, Error> {
        match self.peek().cloned() {
            Some(Token::Word(word)) if !KEYWORDS.contains(&word.as_str()) => {
                self.at += 1;
                Ok(word)
            }
            other => Err(Error(format!("parse: expected a name, found {other:?}"))),
        }
    }

    fn int(&mut self) -> Result<u64, Error> {
        match self.peek().cloned() {
            Some(Token::Int(value)) => {
                self.at += 1;
                Ok(value)
            }
            other => Err(Error(format!("parse: expected a number, found {other:?}"))),
        }
    }

    fn program(&mut self) -> Result<Vec<Stmt>, Error> {
        let mut stmts = Vec::new();
        while self.peek().is_some() {
            stmts.push(self.stmt()?);
        }
        Ok(stmts)
    }

    fn stmt(&mut self) -> Result<Stmt, Error> {
        let Some(Token::Word(keyword)) = self.peek().cloned() else {
            return Err(Error(format!("parse: expected a statement at token {}", self.at)));
        };
        self.at += 1;
        let stmt = match keyword.as_str() {
            "let" => {
                let name = self.name()?;
                self.expect('=')?;
                Stmt::Let(name, self.expr()?)
            }
            "print" => Stmt::Print(self.expr()?),
            "swap" => Stmt::Swap(self.name()?, self.name()?),
            "pick" => {
                self.expect('[')?;
                let mut items = vec![self.int()?];
                while self.eat(',') {
                    items.push(self.int()?);
                }
                self.expect(']')?;
                Stmt::Pick(items, self.int()?)
            }
            "wait" => Stmt::Wait(self.int()?),
            other => return Err(Error(format!("parse: unknown statement '{other}'"))),
        };
        self.expect(';')?;
        Ok(stmt)
    }

    fn expr(&mut self) -> Result<Expr, Error> {
        let mut left = self.atom()?;
        while self.eat('/') {
            left = Expr::Divide(Box::new(left), Box::new(self.atom()?));
        }
        Ok(left)
    }

    fn atom(&mut self) -> Result<Expr, Error> {
        if self.eat('(') {
            let inner = self.expr()?;
            self.expect(')')?;
            return Ok(inner);
        }
        match self.peek() {
            Some(Token::Int(_)) => Ok(Expr::Int(self.int()?)),
            _ => Ok(Expr::Name(self.name()?)),
        }
    }
}

struct Machine {
    vars: HashMap<String, u64>,
    printed: u64,
}

impl Machine {
    fn eval(&self, expr: &Expr) -> Result<u64, Error> {
        match expr {
            Expr::Int(value) => Ok(*value),
            Expr::Name(name) => self
                .vars
                .get(name)
                .copied()
                .ok_or_else(|| Error(format!("scope: '{name}' is not defined"))),
            Expr::Divide(left, right) => {
                let (l, r) = (self.eval(left)?, self.eval(right)?);
                if r == 0 {
                    if BUGS {
                        panic!("cannot evaluate \"{expr}\": division by zero");
                    }
                    return Err(Error("eval: division by zero".into()));
                }
                Ok(l / r)
            }
        }
    }

    fn run(&mut self, stmt: &Stmt) -> Result<(), Error> {
        match stmt {
            Stmt::Let(name, value) => {
                let value = self.eval(value)?;
                self.vars.insert(name.clone(), value);
            }
            Stmt::Print(value) => self.printed = self.printed.wrapping_add(self.eval(value)?),
            Stmt::Swap(a, b) => {
                if a == b {
                    if BUGS {
                        panic!("swap of {a} with {b} is not a swap");
                    }
                    return Ok(());
                }
                let (x, y) = (self.lookup(a)?, self.lookup(b)?);
                self.vars.insert(a.clone(), y);
                self.vars.insert(b.clone(), x);
            }
            Stmt::Pick(items, index) => {
                let index = *index as usize;
                let picked = if BUGS {
                    items[index]
                } else {
                    *items
                        .get(index)
                        .ok_or_else(|| Error("eval: pick out of range".into()))?
                };
                self.printed = self.printed.wrapping_add(picked);
            }
            Stmt::Wait(until) => wait(*until),
        }
        Ok(())
    }

    fn lookup(&self, name: &str) -> Result<u64, Error> {
        self.eval(&Expr::Name(name.to_string()))
    }
}

/// Counts up to `until`. The planted bug steps two at a time, so an odd number is never hit.
fn wait(until: u64) {
    let mut clock = Clock { now: 0, ticks: 0 };
    while clock.now != until && (BUGS || clock.now < until) {
        clock.advance();
    }
}

struct Clock {
    now: u64,
    ticks: u64,
}

impl Clock {
    #[inline(never)]
    fn advance(&mut self) {
        self.tick();
        self.carry();
    }

    #[inline(never)]
    fn tick(&mut self) {
        self.ticks = std::hint::black_box(self.ticks.wrapping_add(1));
    }

    #[inline(never)]
    fn carry(&mut self) {
        let step = if BUGS { 2 } else { 1 };
        self.now = std::hint::black_box(self.now.wrapping_add(step) % 1_000_000);
    }
}

/// Parses and runs a program: `Ok(())`, or why it was refused.
pub fn check(source: &str) -> Result<(), Error> {
    let tokens = lex(source)?;
    let program = Parser { tokens, at: 0 }.program()?;
    let mut machine = Machine {
        vars: HashMap::new(),
        printed: 0,
    };
    for stmt in &program {
        machine.run(stmt)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_run_and_refusals_say_why() {
        assert!(check("let a = 8; let b = 2; swap a b; print a / b;").is_ok());
        assert!(check("pick [1, 2] 1; wait 4;").is_ok());
        assert!(check("print x;").unwrap_err().0.starts_with("scope:"));
        assert!(check("print 1 +;").unwrap_err().0.starts_with("lex:"));
    }
}
