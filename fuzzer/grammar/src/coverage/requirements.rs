//! What each criterion asks of a grammar: the items some derivation can contain.

use std::collections::BTreeSet;

use fixedbitset::FixedBitSet;

use super::{Criterion, Element, Item};
use crate::analysis::Analysis;
use crate::grammar::{Grammar, RuleId, Symbol};

/// Most items listed one by one; beyond it a criterion's requirements are only counted.
pub const MAX_LISTED: u128 = 200_000;

/// A criterion's requirements: listed when they are few enough to compare with what the inputs
/// covered item by item, otherwise only their number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Required {
    /// Every feasible item.
    Listed(BTreeSet<Item>),
    /// How many feasible items there are (saturating): too many to list.
    Counted(u128),
}

/// The grammar's feasible part: rules the start rule reaches that derive some word, and of
/// those the alternatives whose every symbol does. Only feasible items can be covered.
pub struct Requirements<'g> {
    pub(super) grammar: &'g Grammar,
    pub(super) feasible_rules: FixedBitSet,
    /// Per rule, per alternative: whether a derivation can use it.
    pub(super) feasible_alternatives: Vec<Vec<bool>>,
    /// Per rule, the distinct symbols its feasible alternatives hold, in grammar order; the
    /// edges of the k-path graph.
    pub(super) children: Vec<Vec<Element>>,
    /// Per rule, the tokens of its first set (see [`Criterion::Pll`]) in the grammar text,
    /// taken from the analysis when the requirements are made, so that they do not borrow it.
    pub(super) first: Vec<Vec<crate::grammar::TerminalId>>,
    /// The same over the feasible part, made when first asked for.
    pub(super) feasible_first: std::sync::OnceLock<Vec<Vec<crate::grammar::TerminalId>>>,
    /// Rules that derive the empty word, for the feasible first sets.
    pub(super) nullable: FixedBitSet,
}

impl<'g> Requirements<'g> {
    /// Works out the feasible part from the analysis every command already runs.
    pub fn new(grammar: &'g Grammar, analysis: &Analysis) -> Self {
        let productive = |rule: RuleId| analysis.heights.is_productive(rule.index());
        let symbol_ok = |symbol: &Symbol| match *symbol {
            Symbol::Terminal(_) | Symbol::Optional(_) => true,
            Symbol::Rule(rule) => productive(rule),
            Symbol::Repeat { body, min, .. } => min == 0 || productive(body),
        };
        let mut feasible_rules = FixedBitSet::with_capacity(grammar.rules.len());
        let mut feasible_alternatives = Vec::with_capacity(grammar.rules.len());
        let mut children = Vec::with_capacity(grammar.rules.len());
        for rule in grammar.rule_ids() {
            let reachable = analysis.reachability.rules.contains(rule.index());
            let live = reachable && productive(rule);
            feasible_rules.set(rule.index(), live);
            let alternatives: Vec<bool> = grammar
                .rule(rule)
                .alternatives
                .iter()
                .map(|alt| live && alt.symbols.iter().all(symbol_ok))
                .collect();
            let mut below = Vec::new();
            for (alt, ok) in grammar.rule(rule).alternatives.iter().zip(&alternatives) {
                if !ok {
                    continue;
                }
                for symbol in &alt.symbols {
                    let element = match *symbol {
                        Symbol::Terminal(t) => Some(Element::Terminal(t)),
                        Symbol::Rule(r) => Some(Element::Rule(r)),
                        Symbol::Optional(r) | Symbol::Repeat { body: r, .. } => {
                            productive(r).then_some(Element::Rule(r))
                        }
                    };
                    if let Some(element) = element
                        && !below.contains(&element)
                    {
                        below.push(element);
                    }
                }
            }
            feasible_alternatives.push(alternatives);
            children.push(below);
        }
        let first = super::descendants::first_tokens(grammar, analysis);
        Self {
            grammar,
            feasible_rules,
            feasible_alternatives,
            children,
            first,
            feasible_first: std::sync::OnceLock::new(),
            nullable: analysis.nullable.clone(),
        }
    }

    /// The feasible items of `criterion`.
    pub fn required(&self, criterion: Criterion) -> Required {
        match criterion {
            Criterion::Symbol => {
                Required::Listed(self.symbols().into_iter().map(Item::Symbol).collect())
            }
            Criterion::Rule => Required::Listed(self.productions().collect()),
            Criterion::Cdrc => Required::Listed(self.contexts().collect()),
            Criterion::KPath(k) => {
                let count = self.path_count(k);
                if count > MAX_LISTED {
                    Required::Counted(count)
                } else {
                    Required::Listed(self.paths(k))
                }
            }
            Criterion::Cdrc2 | Criterion::KStep(_) => {
                let products = self.products(criterion, true);
                let count = products.total();
                if count > MAX_LISTED {
                    Required::Counted(count)
                } else {
                    Required::Listed(
                        products
                            .groups()
                            .flat_map(|(rule, a, _)| self.product_items(&products, rule, a))
                            .collect(),
                    )
                }
            }
            Criterion::Pairs => Required::Listed(self.pairs()),
            Criterion::Pll => Required::Listed(self.firsts(true).collect()),
        }
    }

    /// Items the grammar text holds but no derivation can contain (unreachable from the start
    /// rule, or deriving no word); 0 for k-paths and derivable pairs, which only run through
    /// feasible symbols. Saturates at `usize::MAX` for the products of CDRC² and k-steps.
    pub fn infeasible(&self, criterion: Criterion) -> usize {
        let grammar = self.grammar;
        match criterion {
            Criterion::Symbol => {
                let terminals = grammar.terminals.len();
                grammar.rules.len() + terminals - self.symbols().len()
            }
            Criterion::Rule => {
                let all: usize = grammar.rules.iter().map(|r| r.alternatives.len()).sum();
                all - self.productions().count()
            }
            Criterion::Cdrc => {
                let mut all = 0;
                for (_, _, symbol) in grammar.occurrences() {
                    if let Some(nested) = Grammar::referenced_rule(symbol) {
                        all += grammar.rule(nested).alternatives.len();
                    }
                }
                all - self.contexts().count()
            }
            Criterion::KPath(_) | Criterion::Pairs => 0,
            Criterion::Cdrc2 | Criterion::KStep(_) => {
                let all = self.product_total(criterion, false);
                let feasible = self.product_total(criterion, true);
                usize::try_from(all - feasible).unwrap_or(usize::MAX)
            }
            Criterion::Pll => self.firsts(false).count() - self.firsts(true).count(),
        }
    }

    /// Whether some derivation from the start rule can expand `rule` with `alternative`.
    pub fn feasible(&self, rule: RuleId, alternative: usize) -> bool {
        self.feasible_alternatives[rule.index()]
            .get(alternative)
            .copied()
            .unwrap_or(false)
    }

    /// Feasible rules, and the terminals their feasible alternatives hold.
    pub(super) fn symbols(&self) -> BTreeSet<Element> {
        let mut symbols = BTreeSet::new();
        for rule in self.grammar.rule_ids() {
            if self.feasible_rules.contains(rule.index()) {
                symbols.insert(Element::Rule(rule));
                symbols.extend(
                    self.children[rule.index()]
                        .iter()
                        .filter(|e| matches!(e, Element::Terminal(_))),
                );
            }
        }
        symbols
    }

    pub(super) fn productions(&self) -> impl Iterator<Item = Item> + '_ {
        self.grammar.rule_ids().flat_map(move |rule| {
            (0..self.grammar.rule(rule).alternatives.len())
                .filter(move |&alt| self.feasible(rule, alt))
                .map(move |alt| Item::Rule {
                    rule,
                    alternative: alt as u32,
                })
        })
    }

    /// Each nonterminal position of each feasible production, with each feasible alternative
    /// of the nonterminal there.
    fn contexts(&self) -> impl Iterator<Item = Item> + '_ {
        self.productions().flat_map(move |item| {
            let Item::Rule { rule, alternative } = item else {
                unreachable!("productions are rule items")
            };
            let symbols = &self.grammar.rule(rule).alternatives[alternative as usize].symbols;
            symbols
                .iter()
                .enumerate()
                .filter_map(|(position, symbol)| {
                    Grammar::referenced_rule(symbol).map(|nested| (position, nested))
                })
                .flat_map(move |(position, nested)| {
                    (0..self.grammar.rule(nested).alternatives.len())
                        .filter(move |&inner| self.feasible(nested, inner))
                        .map(move |inner| Item::Cdrc {
                            rule,
                            alternative,
                            position: position as u32,
                            inner: inner as u32,
                        })
                })
        })
    }

    /// Number of paths of `k` symbols through the feasible part, each symbol a child of the one
    /// before, starting anywhere: `paths[e][l]` = Σ over e's children of `paths[child][l - 1]`.
    /// Saturates instead of overflowing; linear in k times the grammar's size, so a total is
    /// known even where the paths are far too many to list.
    pub fn path_count(&self, k: usize) -> u128 {
        let symbols: Vec<Element> = self.symbols().into_iter().collect();
        let mut from: std::collections::HashMap<Element, u128> =
            symbols.iter().map(|&e| (e, 1)).collect();
        for _ in 1..k {
            let next = symbols
                .iter()
                .map(|&e| {
                    let count = self.below(e).iter().fold(0u128, |sum, child| {
                        sum.saturating_add(from.get(child).copied().unwrap_or(0))
                    });
                    (e, count)
                })
                .collect();
            from = next;
        }
        from.values().fold(0u128, |sum, &c| sum.saturating_add(c))
    }

    fn paths(&self, k: usize) -> BTreeSet<Item> {
        let mut paths = BTreeSet::new();
        let mut path = Vec::with_capacity(k);
        for element in self.symbols() {
            self.extend_path(element, k, &mut path, &mut paths);
        }
        paths
    }

    fn extend_path(
        &self,
        element: Element,
        k: usize,
        path: &mut Vec<Element>,
        paths: &mut BTreeSet<Item>,
    ) {
        path.push(element);
        if path.len() == k {
            paths.insert(Item::Path(path.clone()));
        } else {
            for &child in self.below(element) {
                self.extend_path(child, k, path, paths);
            }
        }
        path.pop();
    }

    pub(super) fn below(&self, element: Element) -> &[Element] {
        match element {
            Element::Rule(rule) => &self.children[rule.index()],
            Element::Terminal(_) => &[],
        }
    }
}
