//! The layout pass compiled into the grammar: a plain grammar whose terminals are the exact
//! text `text::render_into` would write, separators and indentation included.
//!
//! A generator that only concatenates (Nautilus, for one) cannot run a layout pass, but what the
//! pass writes before a token depends on little: whether the token starts a line (then
//! indentation, one `%indent` per open `INDENT`), follows a token on the same line (then the
//! separator, unless a `GLUE` came first), or continues a lexical token (then nothing); and,
//! for `%layout auto`, on the spacing class of the previous token's last character (see
//! `text::spacing_class`) and whether it was a control keyword. So every rule is specialized by the layout position it
//! starts in and the one it ends in, a finite-state intersection in the style of Bar-Hillel,
//! and each terminal carries its own prefix. The result derives exactly the texts the layout
//! pass writes, for every `%layout`, up to [`MAX_INDENT_LEVEL`].

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::plain::{Item, PlainGrammar};
use crate::grammar::{Layout, LayoutToken, Separator};
use crate::text::{SPACING_CLASSES, is_control_keyword, needs_space_after_class, spacing_class};

/// Deepest indentation the text grammar tracks. An `INDENT` that would open a deeper level is
/// never generated; a concatenating generator has no other way to know the level, and every
/// level multiplies the rules that can sit at it.
pub const MAX_INDENT_LEVEL: u8 = 8;

/// A piece of a text alternative: literal text or a reference to another text rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Rule(usize),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextRule {
    /// The plain rule's name, plus the layout positions it is specialized to when there are
    /// several specializations.
    pub name: String,
    pub alternatives: Vec<Vec<Piece>>,
}

/// Rule 0 is the start rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextGrammar {
    pub rules: Vec<TextRule>,
}

/// Where on its line the next piece of text goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum At {
    /// Nothing on this line yet: the next token is indented.
    LineStart,
    /// After a token on this line: the next token is separated from it.
    MidLine(Previous),
    /// Inside a lexical token that has written text already: the next text is glued on.
    InToken(Previous),
}

/// What the separator before the next token depends on: whether a `GLUE` came since the
/// previous token (then there is none) and, for `auto` spacing only, the spacing class of the
/// previous token's last character and whether it was a control keyword.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Previous {
    class: u8,
    keyword: bool,
    glued: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Position {
    level: u8,
    at: At,
}

/// One specialization of a plain rule: the rule entered at `from`, inside a lexical token or
/// not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Entry {
    rule: usize,
    inside: bool,
    from: Position,
}

/// One text rule: an entry that ends at `to`.
type Specialization = (Entry, Position);

/// Compiles the layout into `plain`.
pub fn text_grammar(plain: &PlainGrammar, layout: &Layout) -> TextGrammar {
    let mut builder = Builder::new(plain, layout);
    builder.solve_ends();
    builder.emit()
}

struct Builder<'a> {
    plain: &'a PlainGrammar,
    layout: &'a Layout,
    /// Rules that cannot derive a layout token: entered mid-line, their text does not depend
    /// on the indentation level, so one specialization serves every level.
    level_free: Vec<bool>,
    /// With an empty separator and no layout tokens, every position writes the same text: one
    /// specialization per rule suffices.
    single_position: bool,
    /// Per previous token (class * 2 + keyword): the first previous token that `auto` spaces
    /// the same before every character, so that positions differing only in spacing-equivalent
    /// previous tokens are one (a word and a closing bracket, for one).
    same_spacing: Vec<Previous>,
    /// Least fixpoint: the positions each entry can end at. An entry with no end derives
    /// nothing within the layout's limits.
    ends: BTreeMap<Entry, BTreeSet<Position>>,
}

impl<'a> Builder<'a> {
    fn new(plain: &'a PlainGrammar, layout: &'a Layout) -> Self {
        let mut has_layout = vec![false; plain.rules.len()];
        loop {
            let mut changed = false;
            for (r, rule) in plain.rules.iter().enumerate() {
                if has_layout[r] {
                    continue;
                }
                let found = rule.alternatives.iter().flatten().any(|item| match item {
                    Item::Layout(_) => true,
                    Item::Rule(s) => has_layout[*s],
                    Item::Literal(_) | Item::Value(_) => false,
                });
                if found {
                    has_layout[r] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let single_position =
            layout.separator == Separator::Text(String::new()) && !has_layout.iter().any(|&h| h);
        Self {
            plain,
            layout,
            same_spacing: same_spacing(),
            level_free: has_layout.iter().map(|&h| !h).collect(),
            single_position,
            ends: BTreeMap::new(),
        }
    }

    fn start(&self) -> Entry {
        Entry {
            rule: 0,
            inside: self.plain.rules[0].lexical,
            from: self.normal(Position {
                level: 0,
                at: At::LineStart,
            }),
        }
    }

    /// Merges positions that write the same text from here on: all of them when nothing
    /// depends on the position, and all previous tokens unless spacing is `auto`.
    fn normal(&self, position: Position) -> Position {
        if self.single_position {
            return Position {
                level: 0,
                at: At::MidLine(Previous::default()),
            };
        }
        let merge = |previous: Previous| Previous {
            glued: previous.glued,
            ..match self.layout.separator {
                Separator::Auto => {
                    let index = usize::from(previous.class) * 2 + usize::from(previous.keyword);
                    self.same_spacing[index]
                }
                Separator::Text(_) => Previous::default(),
            }
        };
        let at = match position.at {
            At::LineStart => At::LineStart,
            At::MidLine(previous) => At::MidLine(merge(previous)),
            At::InToken(previous) => At::InToken(merge(previous)),
        };
        Position { at, ..position }
    }

    /// The entry that stands for calling `rule` at `from`: rules that are `level_free` are
    /// entered mid-line at level 0 and their ends shifted back by the caller.
    fn entry(&self, rule: usize, inside: bool, from: Position) -> Entry {
        let inside = inside || self.plain.rules[rule].lexical;
        let from = if self.level_free[rule] && from.at != At::LineStart {
            Position { level: 0, ..from }
        } else {
            from
        };
        Entry { rule, inside, from }
    }

    /// The positions after calling `rule` from a context `inside` a token or not, at `from`;
    /// each with the specialization that gets there. Demands the entry if it is new.
    fn call(
        &mut self,
        rule: usize,
        inside: bool,
        from: Position,
    ) -> Vec<(Specialization, Position)> {
        let entry = self.entry(rule, inside, from);
        let shift = from.level - entry.from.level;
        let ends = self.ends.entry(entry).or_default();
        let closes_token = !inside && self.plain.rules[rule].lexical;
        ends.iter()
            .map(|&to| {
                let mut after = Position {
                    level: to.level + shift,
                    at: to.at,
                };
                if closes_token && let At::InToken(previous) = after.at {
                    after.at = At::MidLine(previous);
                }
                ((entry, to), after)
            })
            .collect()
    }

    /// Where a single item leaves the text, or nothing if it cannot occur at `from`.
    fn step(&mut self, item: &Item, inside: bool, from: Position) -> Vec<Position> {
        let Position { level, at } = from;
        let next = match item {
            Item::Literal(text) | Item::Value(text) => {
                let Some(last) = text.chars().next_back() else {
                    return vec![from];
                };
                let previous = Previous {
                    class: spacing_class(last),
                    keyword: !inside
                        && matches!(item, Item::Literal(_))
                        && is_control_keyword(text),
                    glued: false,
                };
                Position {
                    level,
                    at: if inside {
                        At::InToken(previous)
                    } else {
                        At::MidLine(previous)
                    },
                }
            }
            Item::Layout(LayoutToken::Newline) if matches!(at, At::InToken(_)) => from,
            Item::Layout(LayoutToken::Newline) => Position {
                level,
                at: At::LineStart,
            },
            Item::Layout(LayoutToken::Indent) if level >= MAX_INDENT_LEVEL => return vec![],
            Item::Layout(LayoutToken::Indent) => Position {
                level: level + 1,
                at,
            },
            Item::Layout(LayoutToken::Glue) => Position {
                level,
                at: match at {
                    At::LineStart => At::LineStart,
                    At::MidLine(previous) => At::MidLine(Previous {
                        glued: true,
                        ..previous
                    }),
                    At::InToken(previous) => At::InToken(Previous {
                        glued: true,
                        ..previous
                    }),
                },
            },
            Item::Layout(LayoutToken::Dedent) => Position {
                level: level.saturating_sub(1),
                at,
            },
            Item::Rule(r) => {
                return self
                    .call(*r, inside, from)
                    .into_iter()
                    .map(|(_, after)| self.normal(after))
                    .collect();
            }
        };
        vec![self.normal(next)]
    }

    fn solve_ends(&mut self) {
        let start = self.start();
        self.ends.insert(start, BTreeSet::new());
        let plain = self.plain;
        loop {
            let known = self.ends.len();
            let mut changed = false;
            let entries: Vec<Entry> = self.ends.keys().copied().collect();
            for entry in entries {
                let mut found = BTreeSet::new();
                for alternative in &plain.rules[entry.rule].alternatives {
                    let mut here = BTreeSet::from([entry.from]);
                    for item in alternative {
                        let mut next = BTreeSet::new();
                        for &position in &here {
                            next.extend(self.step(item, entry.inside, position));
                        }
                        here = next;
                    }
                    found.extend(here);
                }
                let ends = self.ends.get_mut(&entry).expect("entry was listed");
                if found.len() > ends.len() {
                    *ends = found;
                    changed = true;
                }
            }
            if !changed && self.ends.len() == known {
                break;
            }
        }
    }

    fn emit(&mut self) -> TextGrammar {
        let plain = self.plain;
        let start = self.start();
        let start_ends: Vec<Position> = self.ends[&start].iter().copied().collect();
        let mut ids: HashMap<Specialization, usize> = HashMap::new();
        let mut order: Vec<Specialization> = Vec::new();
        let mut rules: Vec<TextRule> = Vec::new();
        let mut id_of = |spec: Specialization, order: &mut Vec<Specialization>| {
            *ids.entry(spec).or_insert_with(|| {
                order.push(spec);
                order.len() - 1
            })
        };
        // The start rule may end at several positions; then a root rule chooses among them.
        let has_root = start_ends.len() != 1;
        if has_root {
            order.push((start, start.from));
            let alternatives = start_ends
                .iter()
                .map(|&to| vec![Piece::Rule(id_of((start, to), &mut order))])
                .collect();
            rules.push(TextRule {
                name: String::new(),
                alternatives,
            });
        } else {
            id_of((start, start_ends[0]), &mut order);
        }
        while rules.len() < order.len() {
            let (entry, to) = order[rules.len()];
            let mut alternatives = Vec::new();
            for alternative in &plain.rules[entry.rule].alternatives {
                let mut paths = Vec::new();
                let mut path = Vec::new();
                self.walk(
                    entry.inside,
                    alternative,
                    entry.from,
                    to,
                    &mut path,
                    &mut paths,
                );
                for path in paths {
                    let pieces = path
                        .into_iter()
                        .map(|p| match p {
                            PathPiece::Text(t) => Piece::Text(t),
                            PathPiece::Call(spec) => Piece::Rule(id_of(spec, &mut order)),
                        })
                        .collect();
                    alternatives.push(pieces);
                }
            }
            rules.push(TextRule {
                name: String::new(),
                alternatives,
            });
        }
        self.name(&mut rules, &order, has_root);
        TextGrammar { rules }
    }

    /// Names each text rule after its plain rule, adding the positions where one plain rule has
    /// several specializations.
    fn name(&self, rules: &mut [TextRule], order: &[Specialization], has_root: bool) {
        let mut per_rule: HashMap<usize, usize> = HashMap::new();
        for (entry, _) in order.iter().skip(usize::from(has_root)) {
            *per_rule.entry(entry.rule).or_default() += 1;
        }
        for (i, (entry, to)) in order.iter().enumerate() {
            let plain = &self.plain.rules[entry.rule].name;
            // The root keeps the plain name; its specializations get suffixes.
            let root = has_root && i == 0;
            rules[i].name = if root || per_rule[&entry.rule] == 1 {
                plain.clone()
            } else {
                let token = if entry.inside && !self.plain.rules[entry.rule].lexical {
                    "t"
                } else {
                    ""
                };
                format!("{plain}_{token}{}_{}", tag(entry.from), tag(*to))
            };
        }
    }

    /// Every way `items` gets from `at` to `to`, as text and calls, appended to `out`.
    fn walk(
        &mut self,
        inside: bool,
        items: &[Item],
        at: Position,
        to: Position,
        path: &mut Vec<PathPiece>,
        out: &mut Vec<Vec<PathPiece>>,
    ) {
        let Some((item, rest)) = items.split_first() else {
            if at == to {
                out.push(merge_text(path));
            }
            return;
        };
        let written = match item {
            Item::Literal(text) | Item::Value(text) => {
                let mut written = self.prefix(at, text);
                written.push_str(text);
                written
            }
            Item::Layout(LayoutToken::Newline) => "\n".to_string(),
            Item::Layout(_) => String::new(),
            Item::Rule(r) => {
                for (specialization, after) in self.call(*r, inside, at) {
                    let after = self.normal(after);
                    path.push(PathPiece::Call(specialization));
                    self.walk(inside, rest, after, to, path, out);
                    path.pop();
                }
                return;
            }
        };
        for next in self.step(item, inside, at) {
            path.push(PathPiece::Text(written.clone()));
            self.walk(inside, rest, next, to, path, out);
            path.pop();
        }
    }

    /// What the layout pass writes before a token whose text is `text`.
    fn prefix(&self, at: Position, text: &str) -> String {
        let Some(first) = text.chars().next() else {
            return String::new();
        };
        match at.at {
            _ if self.single_position => String::new(),
            At::InToken(_) => String::new(),
            At::LineStart => self.layout.indent.repeat(at.level as usize),
            At::MidLine(previous) if previous.glued => String::new(),
            At::MidLine(previous) => match &self.layout.separator {
                Separator::Text(separator) => separator.clone(),
                Separator::Auto
                    if needs_space_after_class(previous.class, first, previous.keyword) =>
                {
                    " ".to_string()
                }
                Separator::Auto => String::new(),
            },
        }
    }
}

/// `name` with every character but ASCII letters, digits, `_` and `-` replaced by `_`: what
/// both the Nautilus and the fuzzingbook formats allow in a nonterminal's name, so that the
/// text rules keep recognizable names in either.
pub fn ascii_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `name`, or `name_2`, `name_3`, ... for the first that is not `taken`; marks it taken.
/// Sanitizing names can make two rules' names equal, and a format adds names of its own.
pub fn unique(name: String, taken: &mut HashSet<String>) -> String {
    let mut candidate = name.clone();
    let mut n = 2;
    while !taken.insert(candidate.clone()) {
        candidate = format!("{name}_{n}");
        n += 1;
    }
    candidate
}

#[derive(Clone, Debug)]
enum PathPiece {
    Text(String),
    Call(Specialization),
}

/// Joins adjacent texts and drops empty ones.
fn merge_text(path: &[PathPiece]) -> Vec<PathPiece> {
    let mut out: Vec<PathPiece> = Vec::new();
    for piece in path {
        match (piece, out.last_mut()) {
            (PathPiece::Text(t), _) if t.is_empty() => {}
            (PathPiece::Text(t), Some(PathPiece::Text(last))) => last.push_str(t),
            _ => out.push(piece.clone()),
        }
    }
    out
}

fn same_spacing() -> Vec<Previous> {
    // Every class of next character occurs among the printable ASCII characters.
    let signature = |previous: Previous| -> Vec<bool> {
        (' '..='~')
            .map(|next| needs_space_after_class(previous.class, next, previous.keyword))
            .collect()
    };
    let all: Vec<Previous> = (0..SPACING_CLASSES)
        .flat_map(|class| {
            [false, true].map(|keyword| Previous {
                class,
                keyword,
                glued: false,
            })
        })
        .collect();
    all.iter()
        .map(|&previous| {
            let own = signature(previous);
            *all.iter()
                .find(|&&other| signature(other) == own)
                .expect("a previous token matches itself")
        })
        .collect()
}

fn tag(position: Position) -> String {
    let level = position.level;
    match position.at {
        At::LineStart => format!("L{level}"),
        At::MidLine(previous) => format!("M{level}{}", previous_tag(previous)),
        At::InToken(previous) => format!("T{level}{}", previous_tag(previous)),
    }
}

fn previous_tag(previous: Previous) -> String {
    let keyword = if previous.keyword { "k" } else { "" };
    let glued = if previous.glued { "g" } else { "" };
    format!("{}{keyword}{glued}", previous.class)
}
