//! Word mutations: one token of a positive word deleted, inserted, substituted or swapped with
//! its neighbour, where the slides' precondition guarantees a poisoned pair in the result.
//!
//! uabcv with (a, c) poisoned gives the deletion uacv; uacv with (a, d) or (d, c) poisoned the
//! insertion uadcv; uabcv with (a, d) or (d, c) poisoned the substitution uadcv; uabcdv with
//! (a, c), (c, b) or (b, d) poisoned the transposition uacbdv. The beginning and the end of
//! the word are tokens too, so deleting a word's only token gives the empty word when the
//! start rule is not nullable.

use super::Negative;
use super::pairs::Pairs;
use super::readings::{OpenTokens, Readings};
use super::sample::{Thinned, evenly};
use super::token::{Kind, Token, TokenGrammar, render};
use crate::grammar::Grammar;

/// The four word mutation operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WordOperator {
    /// uabcv → uacv
    Deletion,
    /// uacv → uadcv
    Insertion,
    /// uabcv → uadcv
    Substitution,
    /// uabcdv → uacbdv
    Transposition,
}

impl WordOperator {
    /// All four, in the order they are reported.
    pub const ALL: [WordOperator; 4] = [
        WordOperator::Deletion,
        WordOperator::Insertion,
        WordOperator::Substitution,
        WordOperator::Transposition,
    ];

    /// The name in the manifest and the summary.
    pub fn name(self) -> &'static str {
        match self {
            WordOperator::Deletion => "token-deletion",
            WordOperator::Insertion => "token-insertion",
            WordOperator::Substitution => "token-substitution",
            WordOperator::Transposition => "token-transposition",
        }
    }
}

/// A positive word cut into tokens.
pub struct Positive {
    /// Where it came from (a file name, or the cover requirement it was built for).
    pub source: String,
    /// Its tokens, layout tokens included.
    pub tokens: Vec<Token>,
    /// Its tokens written out by `token::render`: the text every mutant shares a prefix with.
    pub text: String,
    /// Where a token that can hold whitespace may begin in `text`.
    pub open: OpenTokens,
}

/// One mutation: which word, where, and the token put in (an index into the insertable
/// tokens) for insertions and substitutions.
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    word: u32,
    position: u32,
    token: u32,
}

/// What one operator could do.
#[derive(Clone, Debug, Default)]
pub struct OperatorCount {
    /// Mutations whose precondition holds on the tokens' kinds.
    pub possible: u64,
    /// Of those, how many were skipped because the text around the junction can be read
    /// another way (layout, GLUE, tokens that can hold a space, comments, overlapping kinds).
    pub undecidable: u64,
    /// How many were written.
    pub emitted: u64,
}

/// Every possible mutation of `positives` by the operators in `operators`, and an even sample
/// of the decidable ones, at most `budget(op)` per operator.
pub struct WordMutations<'a, 'r> {
    grammar: &'a Grammar,
    view: &'a TokenGrammar,
    pairs: &'a Pairs,
    readings: &'r mut Readings<'a>,
    /// One token per kind that can be inserted or substituted, with its shortest text.
    insertable: Vec<Token>,
}

impl<'a, 'r> WordMutations<'a, 'r> {
    /// `insertable` holds one token per kind a mutation may put into a word.
    pub fn new(
        grammar: &'a Grammar,
        view: &'a TokenGrammar,
        pairs: &'a Pairs,
        readings: &'r mut Readings<'a>,
        insertable: Vec<Token>,
    ) -> Self {
        Self {
            grammar,
            view,
            pairs,
            readings,
            insertable,
        }
    }

    fn kind(&self, token: Option<&Token>) -> Kind {
        token.map_or(self.pairs.boundary(), |t| t.kind)
    }

    /// Enumerates the mutations of one operator over all words; counts them and returns the
    /// decidable ones.
    pub fn candidates(
        &mut self,
        operator: WordOperator,
        positives: &[Positive],
        count: &mut OperatorCount,
        keep: usize,
    ) -> Vec<Candidate> {
        let mut decided = Thinned::new(keep);
        for (w, positive) in positives.iter().enumerate() {
            let tokens = &positive.tokens;
            let n = tokens.len();
            let at =
                |i: isize| -> Option<&Token> { if i < 0 { None } else { tokens.get(i as usize) } };
            let mut consider =
                |this: &mut Self, position: usize, token: usize, mutant: [Option<&Token>; 4]| {
                    // The mutant's tokens around the change, boundaries as None, in order; the
                    // junctions are between neighbours.
                    let kinds: Vec<Kind> = mutant.iter().map(|t| this.kind(*t)).collect();
                    let junctions = match operator {
                        WordOperator::Deletion => 1,
                        WordOperator::Transposition => 3,
                        _ => 2,
                    };
                    if !(0..junctions).any(|j| this.pairs.poisoned(kinds[j], kinds[j + 1])) {
                        return;
                    }
                    count.possible += 1;
                    let decidable = (0..junctions).any(|j| {
                        this.pairs.poisoned(kinds[j], kinds[j + 1])
                            && this
                                .readings
                                .junction_poisoned(this.pairs, mutant[j], mutant[j + 1])
                            && this.touches_no_layout(&mutant[..junctions + 1])
                    });
                    if decidable {
                        decided.push(Candidate {
                            word: w as u32,
                            position: position as u32,
                            token: token as u32,
                        });
                    } else {
                        count.undecidable += 1;
                    }
                };
            match operator {
                WordOperator::Deletion => {
                    for (i, deleted) in tokens.iter().enumerate() {
                        // A deleted quote could pair the quotes around it anew.
                        if self.view.is_layout(deleted.kind) {
                            continue;
                        }
                        let i = i as isize;
                        consider(self, i as usize, 0, [at(i - 1), at(i + 1), None, None]);
                    }
                }
                WordOperator::Insertion => {
                    for i in 0..=n {
                        let i = i as isize;
                        for d in 0..self.insertable.len() {
                            let inserted = self.insertable[d].clone();
                            consider(
                                self,
                                i as usize,
                                d,
                                [at(i - 1), Some(&inserted), at(i), None],
                            );
                        }
                    }
                }
                WordOperator::Substitution => {
                    for (i, replaced) in tokens.iter().enumerate() {
                        if self.view.is_layout(replaced.kind) {
                            continue;
                        }
                        for d in 0..self.insertable.len() {
                            if self.insertable[d].kind == replaced.kind {
                                continue;
                            }
                            let put = self.insertable[d].clone();
                            let i = i as isize;
                            consider(
                                self,
                                i as usize,
                                d,
                                [at(i - 1), Some(&put), at(i + 1), None],
                            );
                        }
                    }
                }
                WordOperator::Transposition => {
                    for i in 0..n.saturating_sub(1) {
                        let (b, c) = (&tokens[i], &tokens[i + 1]);
                        if self.view.is_layout(b.kind)
                            || self.view.is_layout(c.kind)
                            || b.kind == c.kind
                        {
                            continue;
                        }
                        let i = i as isize;
                        consider(
                            self,
                            i as usize,
                            0,
                            [at(i - 1), Some(c), Some(b), at(i + 2)],
                        );
                    }
                }
            }
        }
        decided.into_kept()
    }

    /// A mutant that moves a layout token or a GLUE'd one changes line structure as well; its
    /// junctions are left undecided.
    fn touches_no_layout(&self, around: &[Option<&Token>]) -> bool {
        around
            .iter()
            .flatten()
            .all(|t| !self.view.is_layout(t.kind) && !t.glued)
    }

    /// The mutants of one operator, at most `budget`, spread evenly over its decidable
    /// candidates; a candidate whose text turns out to be readable across its junction (see
    /// `Readings::reach_across`) gives way to the next one in its share, and is counted.
    pub fn emit(
        &mut self,
        operator: WordOperator,
        positives: &[Positive],
        candidates: &[Candidate],
        budget: usize,
        count: &mut OperatorCount,
    ) -> Vec<Negative> {
        let picks = evenly(candidates.len(), budget);
        let mut out = Vec::new();
        for (k, &start) in picks.iter().enumerate() {
            let end = picks.get(k + 1).copied().unwrap_or(candidates.len());
            for &candidate in &candidates[start..end] {
                match self.build(operator, positives, candidate) {
                    Some(negative) => {
                        out.push(negative);
                        break;
                    }
                    None => count.undecidable += 1,
                }
            }
        }
        count.emitted = out.len() as u64;
        out
    }

    /// The mutant's tokens and text, and its oracle: the first junction that is poisoned
    /// whatever way the parser reads it.
    fn build(
        &mut self,
        operator: WordOperator,
        positives: &[Positive],
        candidate: Candidate,
    ) -> Option<Negative> {
        let positive = &positives[candidate.word as usize];
        let i = candidate.position as usize;
        let mut tokens = positive.tokens.clone();
        // The range of the mutant's tokens around the change, one before to one after.
        let (first, last) = match operator {
            WordOperator::Deletion => {
                tokens.remove(i);
                (i as isize - 1, i as isize)
            }
            WordOperator::Insertion => {
                tokens.insert(i, self.insertable[candidate.token as usize].clone());
                (i as isize - 1, i as isize + 1)
            }
            WordOperator::Substitution => {
                tokens[i] = self.insertable[candidate.token as usize].clone();
                (i as isize - 1, i as isize + 1)
            }
            WordOperator::Transposition => {
                tokens.swap(i, i + 1);
                (i as isize - 1, i as isize + 2)
            }
        };
        let at = |k: isize| (k >= 0).then(|| tokens.get(k as usize)).flatten();
        let rendered = render(self.grammar, &tokens);
        let span = |k: isize| {
            (k >= 0)
                .then(|| rendered.spans.get(k as usize).copied())
                .flatten()
        };
        let mut junction = None;
        for left in first..last {
            let (l, r) = (at(left), at(left + 1));
            if self.pairs.poisoned(self.kind(l), self.kind(r))
                && self.readings.junction_poisoned(self.pairs, l, r)
                && !self.readings.reach_across(
                    &rendered.text,
                    span(left),
                    Some((&positive.text, &positive.open)),
                )
            {
                junction = Some(left);
                break;
            }
        }
        let left = junction?;
        let (l, r) = (at(left), at(left + 1));
        let (token_offset, reject_by) = match r {
            Some(_) => rendered.spans[(left + 1) as usize],
            None => (rendered.text.len(), rendered.text.len()),
        };
        Some(Negative {
            operator: operator.name(),
            source: positive.source.clone(),
            relies_on: format!(
                "pair ({}, {})",
                self.view.name(self.grammar, self.kind(l)),
                self.view.name(self.grammar, self.kind(r))
            ),
            text: rendered.text,
            token_offset,
            reject_by,
        })
    }
}
