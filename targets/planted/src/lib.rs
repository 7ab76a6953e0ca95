//! A checker for the small language of `grammars/planted.ebnf`, with one planted fault of each
//! kind the engine must survive. Each fault sits behind a nested construct, so that a fuzzer has
//! to build some structure to reach it:
//!
//! - panic: an `if` whose body prints, directly inside a `while` body;
//! - abort: printing an expression wrapped in three pairs of parentheses;
//! - hang: a `while` whose condition is the literal `7` and whose body is a `let`;
//! - stack overflow: `let x = x * x;` inside an `if` inside an `if`.
//!
//! Apart from these, the checker is honest: a program is valid when it parses and every
//! variable is assigned before it is read.

use bonsai::target::{Target, Verdict};

#[derive(Default)]
pub struct Planted;

impl Target for Planted {
    fn run(&mut self, input: &[u8]) -> Verdict {
        let Ok(text) = std::str::from_utf8(input) else {
            return Verdict::Reject;
        };
        check(text)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Int(u64),
    Punct(char),
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_lowercase() {
            let mut word = String::new();
            while let Some(&c) = chars.peek().filter(|c| c.is_ascii_lowercase()) {
                word.push(c);
                chars.next();
            }
            tokens.push(Token::Word(word));
        } else if c.is_ascii_digit() {
            let mut value = 0u64;
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                value = value.saturating_mul(10).saturating_add(u64::from(d));
                chars.next();
            }
            tokens.push(Token::Int(value));
        } else if "=;{}()+*".contains(c) {
            tokens.push(Token::Punct(c));
            chars.next();
        } else {
            return Err(format!("unexpected character {c:?}"));
        }
    }
    Ok(tokens)
}

#[derive(Debug)]
enum Expr {
    Int(u64),
    Var(String),
    Binary(Box<Expr>, char, Box<Expr>),
    Paren(Box<Expr>),
}

#[derive(Debug)]
enum Stmt {
    Let(String, Expr),
    Print(Expr),
    While(Expr, Vec<Stmt>),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

const KEYWORDS: [&str; 5] = ["let", "print", "while", "if", "else"];

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn eat(&mut self, token: &Token) -> bool {
        if self.peek() == Some(token) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.eat(&Token::Punct(c)) {
            Ok(())
        } else {
            Err(format!("expected '{c}' at token {}", self.pos))
        }
    }

    fn keyword(&mut self, word: &str) -> bool {
        self.eat(&Token::Word(word.to_string()))
    }

    fn name(&mut self) -> Result<String, String> {
        match self.peek() {
            Some(Token::Word(w)) if !KEYWORDS.contains(&w.as_str()) => {
                let w = w.clone();
                self.pos += 1;
                Ok(w)
            }
            _ => Err(format!("expected a name at token {}", self.pos)),
        }
    }

    fn block(&mut self) -> Result<Vec<Stmt>, String> {
        self.expect('{')?;
        let mut body = Vec::new();
        while !self.eat(&Token::Punct('}')) {
            if self.peek().is_none() {
                return Err("unclosed block".into());
            }
            body.push(self.stmt()?);
        }
        Ok(body)
    }

    fn stmt(&mut self) -> Result<Stmt, String> {
        if self.keyword("let") {
            let name = self.name()?;
            self.expect('=')?;
            let value = self.expr()?;
            self.expect(';')?;
            Ok(Stmt::Let(name, value))
        } else if self.keyword("print") {
            let value = self.expr()?;
            self.expect(';')?;
            Ok(Stmt::Print(value))
        } else if self.keyword("while") {
            let cond = self.expr()?;
            Ok(Stmt::While(cond, self.block()?))
        } else if self.keyword("if") {
            let cond = self.expr()?;
            let then = self.block()?;
            let otherwise = if self.keyword("else") {
                self.block()?
            } else {
                Vec::new()
            };
            Ok(Stmt::If(cond, then, otherwise))
        } else {
            Err(format!("expected a statement at token {}", self.pos))
        }
    }

    /// Operators associate to the left without precedence: the grammar leaves it open, and
    /// the checker only needs some tree.
    fn expr(&mut self) -> Result<Expr, String> {
        let mut left = self.atom()?;
        loop {
            let op = match self.peek() {
                Some(Token::Punct(c @ ('+' | '*'))) => *c,
                _ => return Ok(left),
            };
            self.pos += 1;
            let right = self.atom()?;
            left = Expr::Binary(Box::new(left), op, Box::new(right));
        }
    }

    fn atom(&mut self) -> Result<Expr, String> {
        match self.peek().cloned() {
            Some(Token::Int(v)) => {
                self.pos += 1;
                Ok(Expr::Int(v))
            }
            Some(Token::Punct('(')) => {
                self.pos += 1;
                let inner = self.expr()?;
                self.expect(')')?;
                Ok(Expr::Paren(Box::new(inner)))
            }
            _ => Ok(Expr::Var(self.name()?)),
        }
    }
}

fn check(text: &str) -> Verdict {
    let tokens = match tokenize(text) {
        Ok(t) => t,
        Err(e) => return Verdict::Invalid(e),
    };
    let mut parser = Parser { tokens, pos: 0 };
    let mut program = Vec::new();
    while parser.peek().is_some() {
        match parser.stmt() {
            Ok(stmt) => program.push(stmt),
            Err(e) => return Verdict::Invalid(e),
        }
    }
    let mut scope = Vec::new();
    match check_block(&program, &mut scope, &[]) {
        Ok(()) => Verdict::Valid,
        Err(e) => Verdict::Invalid(e),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Enclosing {
    While,
    If,
}

fn check_block(body: &[Stmt], scope: &mut Vec<String>, outer: &[Enclosing]) -> Result<(), String> {
    for stmt in body {
        match stmt {
            Stmt::Let(name, value) => {
                if outer.ends_with(&[Enclosing::If, Enclosing::If])
                    && let Expr::Binary(l, '*', r) = value
                    && matches!((&**l, &**r), (Expr::Var(a), Expr::Var(b)) if a == name && b == name)
                {
                    planted_stack_overflow(1);
                }
                check_expr(value, scope)?;
                scope.push(name.clone());
            }
            Stmt::Print(value) => {
                if outer.ends_with(&[Enclosing::While, Enclosing::If]) {
                    panic!("planted panic: print inside if inside while");
                }
                if paren_depth(value) >= 3 {
                    std::process::abort();
                }
                check_expr(value, scope)?;
            }
            Stmt::While(cond, inner) => {
                if matches!(cond, Expr::Int(7)) && matches!(inner.first(), Some(Stmt::Let(..))) {
                    planted_hang();
                }
                check_expr(cond, scope)?;
                nested(inner, scope, outer, Enclosing::While)?;
            }
            Stmt::If(cond, then, otherwise) => {
                check_expr(cond, scope)?;
                nested(then, scope, outer, Enclosing::If)?;
                nested(otherwise, scope, outer, Enclosing::If)?;
            }
        }
    }
    Ok(())
}

fn nested(
    body: &[Stmt],
    scope: &mut Vec<String>,
    outer: &[Enclosing],
    kind: Enclosing,
) -> Result<(), String> {
    let mark = scope.len();
    let mut path = outer.to_vec();
    path.push(kind);
    let result = check_block(body, scope, &path);
    scope.truncate(mark);
    result
}

fn check_expr(expr: &Expr, scope: &[String]) -> Result<(), String> {
    match expr {
        Expr::Int(_) => Ok(()),
        Expr::Var(name) if scope.contains(name) => Ok(()),
        Expr::Var(name) => Err(format!("variable '{name}' is read before it is assigned")),
        Expr::Binary(l, _, r) => {
            check_expr(l, scope)?;
            check_expr(r, scope)
        }
        Expr::Paren(inner) => check_expr(inner, scope),
    }
}

fn paren_depth(expr: &Expr) -> u32 {
    match expr {
        Expr::Paren(inner) => 1 + paren_depth(inner),
        _ => 0,
    }
}

#[inline(never)]
#[allow(unconditional_recursion, reason = "the planted fault is exactly this")]
fn planted_stack_overflow(n: u64) -> u64 {
    // The black box keeps the optimizer from turning the recursion into a loop.
    std::hint::black_box(planted_stack_overflow(std::hint::black_box(n + 1))) + 1
}

/// Allocates as it spins, as a compiler stuck in a loop does: the timeout then usually lands
/// inside `malloc` or `free`, which is the case the engine's fault handling must survive.
#[inline(never)]
fn planted_hang() {
    let mut size = 1usize;
    loop {
        size = size % 4096 + 1;
        std::hint::black_box(vec![0u8; size]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn honest_verdicts() {
        assert_eq!(check("let a = 1; print a + 2;"), Verdict::Valid);
        assert_eq!(check("while 1 { let b = 2; print b; }"), Verdict::Valid);
        assert!(matches!(check("print a;"), Verdict::Invalid(m) if m.contains("'a'")));
        assert!(matches!(
            check("while 1 { let b = 2; } print b;"),
            Verdict::Invalid(_)
        ));
        assert!(matches!(check("let = 1;"), Verdict::Invalid(_)));
        assert_eq!(Planted.run(&[0xff]), Verdict::Reject);
    }

    #[test]
    fn the_planted_panic_needs_its_nesting() {
        assert_eq!(check("if 1 { print 1; }"), Verdict::Valid);
        assert_eq!(check("while 1 { print 1; }"), Verdict::Valid);
        let hit = std::panic::catch_unwind(|| check("while 1 { if 1 { print 1; } }"));
        assert!(hit.is_err());
    }

    #[test]
    fn near_misses_of_the_other_faults_are_harmless() {
        assert_eq!(check("print ((1));"), Verdict::Valid);
        assert_eq!(check("while 7 { print 1; }"), Verdict::Valid);
        assert_eq!(check("while 8 { let a = 1; }"), Verdict::Valid);
        assert!(matches!(
            check("if 1 { let x = x * x; }"),
            Verdict::Invalid(_)
        ));
    }
}
