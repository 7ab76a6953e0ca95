//! toylang: a lexer, a recursive-descent parser and an evaluator for a tiny language, the
//! user's own crate in cargo-bonsai's end-to-end test. It has three planted bugs: a list nested
//! three deep panics; the printer loses the closing bracket of an empty list; the second checker
//! refuses lists nested two deep.

use std::collections::HashMap;
use std::fmt;

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
    Int(i64),
    Name(String),
    Let,
    Print,
    Punct(char),
}

fn lex(source: &str) -> Result<Vec<Token>, Error> {
    let mut tokens = Vec::new();
    let mut chars = source.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_digit() {
            let mut value: i64 = 0;
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                value = value
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(i64::from(d)))
                    .ok_or_else(|| Error("lex: number too large".into()))?;
                chars.next();
            }
            tokens.push(Token::Int(value));
        } else if c.is_ascii_lowercase() {
            let mut word = String::new();
            while let Some(&c) = chars.peek().filter(|c| c.is_ascii_alphanumeric()) {
                word.push(c);
                chars.next();
            }
            tokens.push(match word.as_str() {
                "let" => Token::Let,
                "print" => Token::Print,
                _ => Token::Name(word),
            });
        } else if "=;+-*()[],".contains(c) {
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
    Int(i64),
    Name(String),
    List(Vec<Expr>),
    Binary(char, Box<Expr>, Box<Expr>),
}

#[derive(Debug)]
enum Stmt {
    Let(String, Expr),
    Print(Expr),
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    lists: usize,
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

    fn program(&mut self) -> Result<Vec<Stmt>, Error> {
        let mut stmts = Vec::new();
        while self.peek().is_some() {
            stmts.push(self.stmt()?);
        }
        Ok(stmts)
    }

    fn stmt(&mut self) -> Result<Stmt, Error> {
        let stmt = match self.peek() {
            Some(Token::Let) => {
                self.at += 1;
                let Some(Token::Name(name)) = self.peek().cloned() else {
                    return Err(Error("parse: expected a name after let".into()));
                };
                self.at += 1;
                self.expect('=')?;
                Stmt::Let(name, self.expr()?)
            }
            Some(Token::Print) => {
                self.at += 1;
                Stmt::Print(self.expr()?)
            }
            other => return Err(Error(format!("parse: unexpected {other:?}"))),
        };
        self.expect(';')?;
        Ok(stmt)
    }

    fn expr(&mut self) -> Result<Expr, Error> {
        let mut left = self.term()?;
        loop {
            let op = if self.eat('+') {
                '+'
            } else if self.eat('-') {
                '-'
            } else {
                return Ok(left);
            };
            left = Expr::Binary(op, Box::new(left), Box::new(self.term()?));
        }
    }

    fn term(&mut self) -> Result<Expr, Error> {
        let mut left = self.atom()?;
        while self.eat('*') {
            left = Expr::Binary('*', Box::new(left), Box::new(self.atom()?));
        }
        Ok(left)
    }

    fn atom(&mut self) -> Result<Expr, Error> {
        match self.peek().cloned() {
            Some(Token::Int(value)) => {
                self.at += 1;
                Ok(Expr::Int(value))
            }
            Some(Token::Name(name)) => {
                self.at += 1;
                Ok(Expr::Name(name))
            }
            Some(Token::Punct('(')) => {
                self.at += 1;
                let inner = self.expr()?;
                self.expect(')')?;
                Ok(inner)
            }
            Some(Token::Punct('[')) => {
                self.at += 1;
                self.lists += 1;
                // The planted bug.
                assert!(self.lists < 3, "planted: a list nested {} deep", self.lists);
                let mut items = Vec::new();
                if !self.eat(']') {
                    items.push(self.expr()?);
                    while self.eat(',') {
                        items.push(self.expr()?);
                    }
                    self.expect(']')?;
                }
                self.lists -= 1;
                Ok(Expr::List(items))
            }
            other => Err(Error(format!("parse: expected an operand, found {other:?}"))),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Value {
    Int(i64),
    List(Vec<Value>),
}

fn eval(expr: &Expr, vars: &HashMap<String, Value>) -> Result<Value, Error> {
    match expr {
        Expr::Int(value) => Ok(Value::Int(*value)),
        Expr::Name(name) => vars
            .get(name)
            .cloned()
            .ok_or_else(|| Error(format!("name: '{name}' is not defined"))),
        Expr::List(items) => Ok(Value::List(
            items.iter().map(|i| eval(i, vars)).collect::<Result<_, _>>()?,
        )),
        Expr::Binary(op, left, right) => {
            match (eval(left, vars)?, eval(right, vars)?) {
                (Value::Int(a), Value::Int(b)) => {
                    let value = match op {
                        '+' => a.checked_add(b),
                        '-' => a.checked_sub(b),
                        _ => a.checked_mul(b),
                    };
                    value
                        .map(Value::Int)
                        .ok_or_else(|| Error("eval: overflow".into()))
                }
                (Value::List(mut a), Value::List(b)) if *op == '+' => {
                    a.extend(b);
                    Ok(Value::List(a))
                }
                _ => Err(Error(format!("type: '{op}' needs two integers"))),
            }
        }
    }
}

fn parse(source: &str) -> Result<Vec<Stmt>, Error> {
    Parser {
        tokens: lex(source)?,
        at: 0,
        lists: 0,
    }
    .program()
}

fn print_expr(expr: &Expr, out: &mut String) {
    let needs_parentheses = |e: &Expr| matches!(e, Expr::Binary('+' | '-', _, _));
    match expr {
        Expr::Int(value) => out.push_str(&value.to_string()),
        Expr::Name(name) => out.push_str(name),
        Expr::List(items) => {
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                print_expr(item, out);
            }
            // The planted printer bug: an empty list loses its `]`.
            if !items.is_empty() {
                out.push(']');
            }
        }
        Expr::Binary(op, left, right) => {
            let left_parentheses = *op == '*' && needs_parentheses(left);
            if left_parentheses {
                out.push('(');
            }
            print_expr(left, out);
            if left_parentheses {
                out.push(')');
            }
            out.push_str(&format!(" {op} "));
            let right_parentheses =
                needs_parentheses(right) || (*op == '*' && matches!(**right, Expr::Binary(..)));
            if right_parentheses {
                out.push('(');
            }
            print_expr(right, out);
            if right_parentheses {
                out.push(')');
            }
        }
    }
}

/// Prints the program `source` reads, one statement a line, with the parentheses its
/// operators need.
pub fn print(source: &str) -> Result<String, Error> {
    let mut out = String::new();
    for stmt in parse(source)? {
        match stmt {
            Stmt::Let(name, expr) => {
                out.push_str(&format!("let {name} = "));
                print_expr(&expr, &mut out);
            }
            Stmt::Print(expr) => {
                out.push_str("print ");
                print_expr(&expr, &mut out);
            }
        }
        out.push_str(";\n");
    }
    Ok(out)
}

/// A second implementation of `check`, as another team would write it, with a depth limit
/// the first does not have: lists nested two deep are refused.
pub fn check_other(source: &str) -> Result<String, Error> {
    let mut depth = 0usize;
    for token in lex(source)? {
        match token {
            Token::Punct('[') => depth += 1,
            Token::Punct(']') => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > 1 {
            return Err(Error("parse: lists nested too deep".into()));
        }
    }
    check(source)
}

/// Lexes, parses and runs `source`; what it printed, or why it was refused.
pub fn check(source: &str) -> Result<String, Error> {
    let program = parse(source)?;
    let mut vars = HashMap::new();
    let mut out = String::new();
    for stmt in program {
        match stmt {
            Stmt::Let(name, expr) => {
                let value = eval(&expr, &vars)?;
                vars.insert(name, value);
            }
            Stmt::Print(expr) => out.push_str(&format!("{:?}\n", eval(&expr, &vars)?)),
        }
    }
    Ok(out)
}
