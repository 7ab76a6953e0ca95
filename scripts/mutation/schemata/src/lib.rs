//! Mutant schemata for Rust sources: every mutation point of a file becomes a runtime branch
//! on `crate::__bonsai_mutant(ID)`, so one build of a crate holds all of its mutants and the
//! environment variable `BONSAI_MUTANT` picks one per process. Relinking a compiler per
//! mutant takes minutes; selecting a mutant this way costs a process start.
//!
//! The rewrite splices text into the original file at the byte offsets syn reports, rather
//! than re-printing a changed syntax tree: comments, layout and macro bodies stay byte for
//! byte, and the offsets of every generated branch are known, so that a compiler error in a
//! mutant can be traced back to it (see [`Rewritten::regions`]).
//!
//! Each operand is evaluated once (bound in a `match` or `let`), so a mutation point inside
//! another one does not double the code around it. The operators follow cargo-mutants'
//! binary-operator set, plus its deletion of unary `!` and `-`, and the literal flips of the
//! older line-based script (`true`/`false`, integer `0`/`1`).

use std::collections::{BTreeSet, HashSet};
use std::ops::Range;

use proc_macro2::Span;
use serde::Serialize;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{BinOp, Expr, ImplItem, Item, Lit, TraitItem, UnOp};

/// The function every schema calls; [`runtime`] defines it in the crate root.
pub const CALL: &str = "crate::__bonsai_mutant";

/// One mutant: an operator or literal at a place, replaced by another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mutant {
    pub id: u32,
    pub file: String,
    /// 1-based line of the operator or literal in the original file.
    pub line: usize,
    /// 1-based column (in characters) of the operator or literal.
    pub column: usize,
    pub original: String,
    pub replacement: String,
}

/// Where generated code for a mutant lies in the rewritten file, in bytes. A compiler error
/// inside `branch` is the mutant's own; one elsewhere inside `site` may still be (a binding
/// the mutant's operator could not use), and one inside a function's `Region` can only be
/// blamed on the mutants of that function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Region {
    pub kind: RegionKind,
    pub start: usize,
    pub end: usize,
    pub ids: Vec<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RegionKind {
    Branch,
    Site,
    Function,
}

#[derive(Debug)]
pub struct Rewritten {
    pub text: String,
    /// Every mutant of the file, including excluded ones: ids do not depend on exclusions.
    pub mutants: Vec<Mutant>,
    pub regions: Vec<Region>,
}

/// Which `#[cfg(...)]` predicates hold in the build the mutants are for. Items whose cfg is
/// known to be false (tests, other features, other platforms) are not compiled, so mutants
/// in them would count as viable and could never be killed.
#[derive(Clone, Debug, Default)]
pub struct Cfg {
    /// Enabled features; `None` when unknown (every `feature = ".."` is then assumed on).
    pub features: Option<HashSet<String>>,
    /// Whether `debug_assertions` holds (false for a release build).
    pub debug_assertions: bool,
}

impl Cfg {
    fn eval(&self, meta: &syn::Meta) -> Option<bool> {
        match meta {
            syn::Meta::Path(path) => {
                let name = path.get_ident()?.to_string();
                match name.as_str() {
                    "test" | "doc" | "doctest" | "miri" | "windows" | "fuzzing" => Some(false),
                    "unix" => Some(true),
                    "debug_assertions" => Some(self.debug_assertions),
                    _ => None,
                }
            }
            syn::Meta::NameValue(nv) => {
                let name = nv.path.get_ident()?.to_string();
                let Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(value),
                    ..
                }) = &nv.value
                else {
                    return None;
                };
                let value = value.value();
                match name.as_str() {
                    "feature" => self.features.as_ref().map(|f| f.contains(&value)),
                    "target_os" => Some(value == "linux"),
                    "target_family" => Some(value == "unix"),
                    _ => None,
                }
            }
            syn::Meta::List(list) => {
                let name = list.path.get_ident()?.to_string();
                let args = list
                    .parse_args_with(
                        syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                    )
                    .ok()?;
                let values: Vec<Option<bool>> = args.iter().map(|m| self.eval(m)).collect();
                match name.as_str() {
                    // Unknown parts make the whole unknown unless a known part decides it.
                    "all" if values.contains(&Some(false)) => Some(false),
                    "all" if values.iter().all(Option::is_some) => Some(true),
                    "any" if values.contains(&Some(true)) => Some(true),
                    "any" if values.iter().all(Option::is_some) => Some(false),
                    "not" if values.len() == 1 => values[0].map(|v| !v),
                    _ => None,
                }
            }
        }
    }

    /// False when the attributes make the item absent from the build (or a test).
    fn compiled(&self, attrs: &[syn::Attribute]) -> bool {
        attrs.iter().all(|attr| {
            if attr.path().is_ident("test") {
                return false;
            }
            if !attr.path().is_ident("cfg") {
                return true;
            }
            match attr.parse_args::<syn::Meta>() {
                Ok(meta) => self.eval(&meta) != Some(false),
                Err(_) => true,
            }
        })
    }
}

#[derive(Clone, Debug)]
enum Shape {
    /// `L op R` evaluated by value (arithmetic, bitwise, shifts).
    ByValue {
        left: Range<usize>,
        right: Range<usize>,
    },
    /// `L op R` that compares through references, as `PartialEq`/`PartialOrd` do.
    Compare {
        left: Range<usize>,
        right: Range<usize>,
    },
    /// `L && R` or `L || R`: R only runs when the operator says so.
    Lazy {
        left: Range<usize>,
        right: Range<usize>,
        and: bool,
    },
    /// `P op= R`.
    Assign {
        place: Range<usize>,
        right: Range<usize>,
    },
    /// `!X` or `-X`.
    Unary { operand: Range<usize> },
    /// A literal replaced by another one.
    Literal,
}

#[derive(Clone, Debug)]
struct Site {
    range: Range<usize>,
    shape: Shape,
    original: String,
    /// `(id, replacement)`, one mutant each.
    replacements: Vec<(u32, String)>,
}

struct Collector<'a> {
    cfg: &'a Cfg,
    /// Byte offset of the parsed text in the file (a byte-order mark is skipped by syn).
    base: usize,
    next_id: u32,
    file: &'a str,
    source: &'a str,
    sites: Vec<Site>,
    mutants: Vec<Mutant>,
    functions: Vec<Range<usize>>,
}

fn range_of(base: usize, span: Span) -> Range<usize> {
    let r = span.byte_range();
    r.start + base..r.end + base
}

/// Replacements per binary operator, after cargo-mutants; `<` and `<=` swap both ways as the
/// older script did.
fn binary_replacements(op: &str) -> &'static [&'static str] {
    match op {
        "+" => &["-", "*"],
        "-" => &["+", "/"],
        "*" => &["/", "+"],
        "/" => &["*", "%"],
        "%" => &["/", "+"],
        "&&" => &["||"],
        "||" => &["&&"],
        "==" => &["!="],
        "!=" => &["=="],
        "<" => &["<=", "==", ">"],
        "<=" => &["<", ">"],
        ">" => &[">=", "==", "<"],
        ">=" => &[">", "<"],
        "&" => &["|", "^"],
        "|" => &["&", "^"],
        "^" => &["&", "|"],
        "<<" => &[">>"],
        ">>" => &["<<"],
        "+=" => &["-=", "*="],
        "-=" => &["+=", "/="],
        "*=" => &["/=", "+="],
        "/=" => &["*=", "%="],
        "%=" => &["/=", "+="],
        "&=" => &["|=", "^="],
        "|=" => &["&=", "^="],
        "^=" => &["&=", "|="],
        "<<=" => &[">>="],
        ">>=" => &["<<="],
        _ => &[],
    }
}

fn op_text(op: &BinOp) -> &'static str {
    match op {
        BinOp::Add(_) => "+",
        BinOp::Sub(_) => "-",
        BinOp::Mul(_) => "*",
        BinOp::Div(_) => "/",
        BinOp::Rem(_) => "%",
        BinOp::And(_) => "&&",
        BinOp::Or(_) => "||",
        BinOp::BitXor(_) => "^",
        BinOp::BitAnd(_) => "&",
        BinOp::BitOr(_) => "|",
        BinOp::Shl(_) => "<<",
        BinOp::Shr(_) => ">>",
        BinOp::Eq(_) => "==",
        BinOp::Lt(_) => "<",
        BinOp::Le(_) => "<=",
        BinOp::Ne(_) => "!=",
        BinOp::Ge(_) => ">=",
        BinOp::Gt(_) => ">",
        BinOp::AddAssign(_) => "+=",
        BinOp::SubAssign(_) => "-=",
        BinOp::MulAssign(_) => "*=",
        BinOp::DivAssign(_) => "/=",
        BinOp::RemAssign(_) => "%=",
        BinOp::BitXorAssign(_) => "^=",
        BinOp::BitAndAssign(_) => "&=",
        BinOp::BitOrAssign(_) => "|=",
        BinOp::ShlAssign(_) => "<<=",
        BinOp::ShrAssign(_) => ">>=",
        _ => "",
    }
}

/// A `let` anywhere in a `&&` chain makes it an `if let` chain, which is not an expression
/// whose operands can be bound.
fn has_let(expr: &Expr) -> bool {
    match expr {
        Expr::Let(_) => true,
        Expr::Binary(b) if matches!(b.op, BinOp::And(_)) => has_let(&b.left) || has_let(&b.right),
        Expr::Paren(p) => has_let(&p.expr),
        _ => false,
    }
}

impl Collector<'_> {
    fn add(
        &mut self,
        range: Range<usize>,
        at: Span,
        shape: Shape,
        original: &str,
        replacements: &[String],
    ) {
        let start = at.start();
        let mut ids = Vec::new();
        for replacement in replacements {
            let id = self.next_id;
            self.next_id += 1;
            self.mutants.push(Mutant {
                id,
                file: self.file.to_string(),
                line: start.line,
                column: start.column + 1,
                original: original.to_string(),
                replacement: replacement.clone(),
            });
            ids.push((id, replacement.clone()));
        }
        self.sites.push(Site {
            range,
            shape,
            original: original.to_string(),
            replacements: ids,
        });
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item(&mut self, item: &'ast Item) {
        let attrs: &[syn::Attribute] = match item {
            Item::Fn(f) => &f.attrs,
            Item::Impl(i) => &i.attrs,
            Item::Mod(m) => &m.attrs,
            Item::Trait(t) => &t.attrs,
            Item::Struct(s) => &s.attrs,
            Item::Enum(e) => &e.attrs,
            Item::Use(_) => return,
            _ => &[],
        };
        if !self.cfg.compiled(attrs) {
            return;
        }
        match item {
            // Const contexts: a runtime branch cannot be evaluated there.
            Item::Const(_) | Item::Static(_) | Item::Macro(_) => {}
            Item::Fn(f) if f.sig.constness.is_some() => {}
            Item::Fn(f) => {
                self.functions.push(range_of(self.base, f.span()));
                visit::visit_item(self, item);
            }
            _ => visit::visit_item(self, item),
        }
    }

    fn visit_impl_item(&mut self, item: &'ast ImplItem) {
        match item {
            ImplItem::Fn(f) if f.sig.constness.is_none() && self.cfg.compiled(&f.attrs) => {
                self.functions.push(range_of(self.base, f.span()));
                visit::visit_impl_item(self, item);
            }
            _ => {}
        }
    }

    fn visit_trait_item(&mut self, item: &'ast TraitItem) {
        match item {
            TraitItem::Fn(f) if f.sig.constness.is_none() && self.cfg.compiled(&f.attrs) => {
                self.functions.push(range_of(self.base, f.span()));
                visit::visit_trait_item(self, item);
            }
            _ => {}
        }
    }

    // Nothing in these runs at run time, or it must be a constant.
    fn visit_pat(&mut self, _: &'ast syn::Pat) {}
    fn visit_type(&mut self, _: &'ast syn::Type) {}
    fn visit_generics(&mut self, _: &'ast syn::Generics) {}
    fn visit_generic_argument(&mut self, _: &'ast syn::GenericArgument) {}
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
    fn visit_variant(&mut self, _: &'ast syn::Variant) {}

    fn visit_stmt(&mut self, stmt: &'ast syn::Stmt) {
        let attrs = match stmt {
            syn::Stmt::Local(l) => &l.attrs,
            syn::Stmt::Expr(Expr::Block(b), _) => &b.attrs,
            _ => return visit::visit_stmt(self, stmt),
        };
        if self.cfg.compiled(attrs) {
            visit::visit_stmt(self, stmt);
        }
    }

    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Const(_) => return,
            Expr::Repeat(r) => {
                // The length is a constant; the element is not.
                self.visit_expr(&r.expr);
                return;
            }
            Expr::Binary(b) if b.attrs.is_empty() => {
                let op = op_text(&b.op);
                let left = range_of(self.base, b.left.span());
                let right = range_of(self.base, b.right.span());
                let range = left.start..right.end;
                let shape = match op {
                    "&&" | "||" if has_let(expr) => None,
                    "&&" | "||" => Some(Shape::Lazy {
                        left,
                        right,
                        and: op == "&&",
                    }),
                    "==" | "!=" | "<" | "<=" | ">" | ">=" => Some(Shape::Compare { left, right }),
                    _ if op.ends_with('=') => Some(Shape::Assign { place: left, right }),
                    _ => Some(Shape::ByValue { left, right }),
                };
                let replacements: Vec<String> = binary_replacements(op)
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                if let Some(shape) = shape
                    && !replacements.is_empty()
                {
                    self.add(range, b.op.span(), shape, op, &replacements);
                }
            }
            Expr::Unary(u) if u.attrs.is_empty() => {
                let op = match u.op {
                    UnOp::Not(_) => Some("!"),
                    UnOp::Neg(_) if !matches!(*u.expr, Expr::Lit(_)) => Some("-"),
                    _ => None,
                };
                if let Some(op) = op {
                    let operand = range_of(self.base, u.expr.span());
                    let range = range_of(self.base, u.op.span()).start..operand.end;
                    self.add(
                        range,
                        u.op.span(),
                        Shape::Unary { operand },
                        op,
                        &[String::new()],
                    );
                }
            }
            Expr::Lit(l) if l.attrs.is_empty() => {
                let replacement = match &l.lit {
                    Lit::Bool(b) => Some((!b.value).to_string()),
                    Lit::Int(i) => match i.base10_digits() {
                        "0" => Some(format!("1{}", i.suffix())),
                        "1" => Some(format!("0{}", i.suffix())),
                        _ => None,
                    },
                    _ => None,
                };
                if let Some(replacement) = replacement {
                    let range = range_of(self.base, l.lit.span());
                    let original = self.source[range.clone()].to_string();
                    self.add(
                        range,
                        l.lit.span(),
                        Shape::Literal,
                        &original,
                        &[replacement],
                    );
                }
            }
            _ => {}
        }
        visit::visit_expr(self, expr);
    }
}

/// Rewrites one file. `first_id` is the id of its first mutant; mutants in `exclude` keep
/// their ids but are left out of the code (their site keeps its other mutants).
pub fn rewrite(
    source: &str,
    file: &str,
    first_id: u32,
    exclude: &BTreeSet<u32>,
    cfg: &Cfg,
) -> Result<Rewritten, String> {
    let base = if source.starts_with('\u{feff}') { 3 } else { 0 };
    let ast = syn::parse_file(source).map_err(|e| {
        let at = e.span().start();
        format!("{file}:{}:{}: cannot parse: {e}", at.line, at.column + 1)
    })?;
    let mut collector = Collector {
        cfg,
        base,
        next_id: first_id,
        file,
        source,
        sites: Vec::new(),
        mutants: Vec::new(),
        functions: Vec::new(),
    };
    if cfg.compiled(&ast.attrs) {
        collector.visit_file(&ast);
    }
    let Collector {
        mut sites,
        mutants,
        functions,
        ..
    } = collector;
    for site in &mut sites {
        site.replacements.retain(|(id, _)| !exclude.contains(id));
    }
    let mut renderer = Renderer {
        source,
        sites: &sites,
        out: String::with_capacity(source.len() * 2),
        regions: Vec::new(),
        boundaries: Vec::new(),
    };
    renderer.render_top();
    let Renderer {
        out,
        mut regions,
        boundaries,
        ..
    } = renderer;
    for function in functions {
        let ids: Vec<u32> = sites
            .iter()
            .filter(|s| s.range.start >= function.start && s.range.end <= function.end)
            .flat_map(|s| s.replacements.iter().map(|(id, _)| *id))
            .collect();
        if ids.is_empty() {
            continue;
        }
        regions.push(Region {
            kind: RegionKind::Function,
            start: map_offset(&boundaries, function.start),
            end: map_offset(&boundaries, function.end),
            ids,
        });
    }
    Ok(Rewritten {
        text: out,
        mutants,
        regions,
    })
}

/// An offset of the original file that lies outside every site, in the rewritten file.
/// `boundaries` holds `(original, rewritten)` at the end of each top-level site.
fn map_offset(boundaries: &[(usize, usize)], offset: usize) -> usize {
    let i = boundaries.partition_point(|(o, _)| *o <= offset);
    match i {
        0 => offset,
        _ => {
            let (o, r) = boundaries[i - 1];
            r + (offset - o)
        }
    }
}

struct Renderer<'a> {
    source: &'a str,
    /// In the collector's order: an enclosing site comes before the sites inside it.
    sites: &'a [Site],
    out: String,
    regions: Vec<Region>,
    boundaries: Vec<(usize, usize)>,
}

impl Renderer<'_> {
    fn render_top(&mut self) {
        let all: Vec<usize> = (0..self.sites.len()).collect();
        self.render_range(0..self.source.len(), &all, true);
    }

    /// Copies `range` of the source, rendering the outermost sites inside it.
    fn render_range(&mut self, range: Range<usize>, candidates: &[usize], top: bool) {
        let mut inside: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&i| {
                let r = &self.sites[i].range;
                r.start >= range.start && r.end <= range.end
            })
            .collect();
        inside.sort_by_key(|&i| {
            (
                self.sites[i].range.start,
                std::cmp::Reverse(self.sites[i].range.end),
                i,
            )
        });
        let mut pos = range.start;
        let mut k = 0;
        while k < inside.len() {
            let i = inside[k];
            let site_range = self.sites[i].range.clone();
            // Everything inside this site is rendered by it.
            let nested: Vec<usize> = inside[k + 1..]
                .iter()
                .copied()
                .take_while(|&j| self.sites[j].range.start < site_range.end)
                .collect();
            k += 1 + nested.len();
            self.out.push_str(&self.source[pos..site_range.start]);
            self.render_site(i, &nested);
            pos = site_range.end;
            if top {
                self.boundaries.push((pos, self.out.len()));
            }
        }
        self.out.push_str(&self.source[pos..range.end]);
    }

    /// Renders an operand in place, in parentheses so that the surrounding code cannot change
    /// how it parses (`&a as u8` is not `&(a as u8)`).
    fn operand(&mut self, range: &Range<usize>, nested: &[usize]) {
        self.out.push('(');
        self.render_range(range.clone(), nested, false);
        self.out.push(')');
    }

    /// `if CALL(a) { body(a's replacement) } else if ... else { body(original) }`, recording
    /// each replacement's branch.
    fn chain(
        &mut self,
        site: &Site,
        branches: &mut Vec<(u32, Range<usize>)>,
        body: &dyn Fn(&str) -> String,
    ) {
        for (id, replacement) in &site.replacements {
            self.out.push_str(&format!("if {CALL}({id}) {{ "));
            let start = self.out.len();
            self.out.push_str(&body(replacement));
            branches.push((*id, start..self.out.len()));
            self.out.push_str(" } else ");
        }
        self.out.push_str("{ ");
        self.out.push_str(&body(&site.original));
        self.out.push_str(" }");
    }

    fn render_site(&mut self, i: usize, nested: &[usize]) {
        let site = self.sites[i].clone();
        if site.replacements.is_empty() {
            // Every mutant here was excluded: the original text, with the sites inside it.
            self.render_range(site.range.clone(), nested, false);
            return;
        }
        let start = self.out.len();
        let mut branches: Vec<(u32, Range<usize>)> = Vec::new();
        match &site.shape {
            Shape::ByValue { left, right } => {
                self.out.push_str("(match (");
                self.operand(left, nested);
                self.out.push_str(", ");
                self.operand(right, nested);
                self.out.push_str(") { (__bonsai_l, __bonsai_r) => ");
                self.chain(&site, &mut branches, &|op| {
                    format!("__bonsai_l {op} __bonsai_r")
                });
                self.out.push_str(" })");
            }
            Shape::Compare { left, right } => {
                self.out.push_str("(match (&");
                self.operand(left, nested);
                self.out.push_str(", &");
                self.operand(right, nested);
                self.out.push_str(") { (__bonsai_l, __bonsai_r) => ");
                self.chain(&site, &mut branches, &|op| {
                    format!("*__bonsai_l {op} *__bonsai_r")
                });
                self.out.push_str(" })");
            }
            Shape::Lazy { left, right, and } => {
                // `&&` runs R when L holds, `||` when it does not; the mutant flips which.
                let (id, _) = site.replacements[0];
                self.out.push_str("({ let __bonsai_l: bool = ");
                self.operand(left, nested);
                let b = self.out.len();
                let test = if *and { "!=" } else { "==" };
                self.out
                    .push_str(&format!("; if __bonsai_l {test} {CALL}({id})"));
                branches.push((id, b..self.out.len()));
                self.out.push_str(" { ");
                self.operand(right, nested);
                self.out.push_str(" } else { __bonsai_l } })");
            }
            Shape::Assign { place, right } => {
                self.out.push_str("({ let __bonsai_r = ");
                self.operand(right, nested);
                self.out.push_str("; ");
                for (id, replacement) in &site.replacements {
                    self.out.push_str(&format!("if {CALL}({id}) {{ "));
                    let b = self.out.len();
                    self.operand(place, nested);
                    self.out.push_str(&format!(" {replacement} __bonsai_r"));
                    branches.push((*id, b..self.out.len()));
                    self.out.push_str(" } else ");
                }
                self.out.push_str("{ ");
                self.operand(place, nested);
                self.out
                    .push_str(&format!(" {} __bonsai_r }} }})", site.original));
            }
            Shape::Unary { operand } => {
                let (id, _) = site.replacements[0];
                self.out.push_str("(match ");
                self.operand(operand, nested);
                self.out
                    .push_str(&format!(" {{ __bonsai_v => if {CALL}({id}) {{ "));
                let b = self.out.len();
                self.out.push_str("__bonsai_v");
                branches.push((id, b..self.out.len()));
                self.out
                    .push_str(&format!(" }} else {{ {}__bonsai_v }} }})", site.original));
            }
            Shape::Literal => {
                self.out.push('(');
                self.chain(&site, &mut branches, &|lit| lit.to_string());
                self.out.push(')');
            }
        }
        let ids: Vec<u32> = site.replacements.iter().map(|(id, _)| *id).collect();
        for (id, range) in branches {
            self.regions.push(Region {
                kind: RegionKind::Branch,
                start: range.start,
                end: range.end,
                ids: vec![id],
            });
        }
        self.regions.push(Region {
            kind: RegionKind::Site,
            start,
            end: self.out.len(),
            ids,
        });
    }
}

/// The definition of `crate::__bonsai_mutant` for a crate whose mutants are `first..=last`,
/// appended to its root file.
///
/// The active id is read from `BONSAI_MUTANT` on the first call and kept in an atomic, so
/// the unmutated path costs a load and a compare. With `BONSAI_MUTANT_TRACE` set, no mutant
/// is active and the first time a process reaches a mutation point it writes
/// `@bonsai-mutant ID` to standard output: `bonsai replay --json` runs each input in a child
/// that inherits its stdout, so these lines precede the input's own JSON line and tell which
/// inputs can notice which mutant at all.
pub fn runtime(first: u32, last: u32) -> String {
    let words = ((last.saturating_sub(first) as usize) / 64) + 1;
    format!(
        r#"

// Mutant schemata runtime, added by scripts/mutation/schemata (never committed anywhere).
#[doc(hidden)]
#[inline(always)]
#[allow(dead_code)]
pub(crate) fn __bonsai_mutant(id: u32) -> bool {{
    match __bonsai_schemata::ACTIVE.load(::core::sync::atomic::Ordering::Relaxed) {{
        0 => __bonsai_schemata::first_or_traced(id),
        active => active == id,
    }}
}}

#[doc(hidden)]
#[allow(dead_code, clippy::all)]
mod __bonsai_schemata {{
    extern crate std;
    use std::sync::atomic::{{AtomicBool, AtomicU32, AtomicU64, Ordering}};

    const FIRST: u32 = {first};
    const NONE: u32 = u32::MAX;
    /// 0 until the environment was read (and for good when tracing).
    pub(crate) static ACTIVE: AtomicU32 = AtomicU32::new(0);
    static TRACING: AtomicBool = AtomicBool::new(false);
    static READ: AtomicBool = AtomicBool::new(false);
    static SEEN: [AtomicU64; {words}] = [const {{ AtomicU64::new(0) }}; {words}];

    #[cold]
    #[inline(never)]
    pub(crate) fn first_or_traced(id: u32) -> bool {{
        if !READ.load(Ordering::Acquire) {{
            let tracing = std::env::var_os("BONSAI_MUTANT_TRACE").is_some();
            TRACING.store(tracing, Ordering::Relaxed);
            let active = std::env::var("BONSAI_MUTANT")
                .ok()
                .and_then(|v| v.trim().parse::<u32>().ok())
                .filter(|&v| v != 0)
                .unwrap_or(NONE);
            if !tracing {{
                ACTIVE.store(active, Ordering::Relaxed);
            }}
            READ.store(true, Ordering::Release);
            if !tracing {{
                return active == id;
            }}
        }}
        if TRACING.load(Ordering::Relaxed) && id >= FIRST {{
            let index = (id - FIRST) as usize;
            if let Some(word) = SEEN.get(index / 64) {{
                let bit = 1u64 << (index % 64);
                if word.fetch_or(bit, Ordering::Relaxed) & bit == 0 {{
                    // Safe code only: naga forbids `unsafe`. A whole line, flushed at once,
                    // so it lands before the replay's own line for this input.
                    use std::io::Write;
                    let mut out = std::io::stdout().lock();
                    let _ = out.write_all(std::format!("@bonsai-mutant {{id}}\n").as_bytes());
                    let _ = out.flush();
                }}
            }}
            return false;
        }}
        ACTIVE.load(Ordering::Relaxed) == id
    }}
}}
"#
    )
}
