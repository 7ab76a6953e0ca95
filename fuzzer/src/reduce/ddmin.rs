//! Delta debugging (Zeller and Hildebrandt's ddmin) over any list, and over the lines and then
//! the characters of a text.
//!
//! The text reducer knows nothing of the grammar: its candidates may lie outside it. That is
//! what a crash criterion wants (the smallest text that still crashes) and what the Bonsai
//! paper's baseline did after grammar reduction (picire after picireny). Lines go first because
//! a program is mostly removable in whole lines, and ddmin's cost grows with the number of
//! items: a few hundred lines cost far fewer tests than the thousands of characters in them.

use super::{Candidate, Criterion, Judge, ReductionError};

/// A 1-minimal sublist of `items` (keeping their order) for which `interesting` holds: removing
/// any single item of the result makes it fail. `interesting(items)` is assumed to hold and is
/// never asked.
///
/// Zeller's algorithm: split into n chunks, try each chunk alone, then each complement; on
/// success continue with what was kept (n back to 2 after a chunk, n - 1 after a complement),
/// otherwise double n until the chunks are single items. One improvement: the empty list is
/// tried first, because in hierarchical use "keep nothing" (every node at a level replaced by
/// its minimal derivation) succeeds often and settles a whole level in one test.
pub fn ddmin<T: Clone>(items: &[T], mut interesting: impl FnMut(&[T]) -> bool) -> Vec<T> {
    if items.is_empty() || interesting(&[]) {
        return Vec::new();
    }
    let mut current = items.to_vec();
    let mut n = 2usize;
    let mut scratch = Vec::with_capacity(current.len());
    while current.len() >= 2 {
        let (len, chunks) = (current.len(), n);
        let bound = |i: usize| i * len / chunks;
        let mut reduced = false;
        for i in 0..chunks {
            let chunk = &current[bound(i)..bound(i + 1)];
            if interesting(chunk) {
                current = chunk.to_vec();
                n = 2;
                reduced = true;
                break;
            }
        }
        // With two chunks each complement is the other chunk, already tried.
        if !reduced && chunks > 2 {
            for i in 0..chunks {
                scratch.clear();
                scratch.extend_from_slice(&current[..bound(i)]);
                scratch.extend_from_slice(&current[bound(i + 1)..]);
                if interesting(&scratch) {
                    std::mem::swap(&mut current, &mut scratch);
                    n = (n - 1).max(2);
                    reduced = true;
                    break;
                }
            }
        }
        if !reduced {
            if n >= len {
                break;
            }
            n = (2 * n).min(len);
        }
    }
    current
}

/// ddmin over the lines of `text` (each with its line break), then over its characters. The
/// result is 1-minimal in characters: deleting any one character breaks the criterion.
pub fn reduce_text<C: Criterion>(
    text: &str,
    judge: &mut Judge<C>,
) -> Result<String, ReductionError> {
    if !judge.holds(&Candidate::text(text)) {
        return Err(ReductionError::NotInteresting);
    }
    let text = reduce_lines(text, judge);
    Ok(reduce_chars(&text, judge))
}

/// ddmin over lines only: 1-minimal in lines. `text` must satisfy the criterion.
pub fn reduce_lines<C: Criterion>(text: &str, judge: &mut Judge<C>) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut joined = String::with_capacity(text.len());
    ddmin(&lines, |kept| {
        if judge.exhausted() {
            return false;
        }
        joined.clear();
        kept.iter().for_each(|line| joined.push_str(line));
        judge.holds(&Candidate::text(&joined))
    })
    .concat()
}

/// ddmin over characters (Unicode scalar values, so every candidate is valid UTF-8). `text`
/// must satisfy the criterion.
pub fn reduce_chars<C: Criterion>(text: &str, judge: &mut Judge<C>) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut joined = String::with_capacity(text.len());
    ddmin(&chars, |kept| {
        if judge.exhausted() {
            return false;
        }
        joined.clear();
        joined.extend(kept);
        judge.holds(&Candidate::text(&joined))
    })
    .into_iter()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_two_needed_items_among_many() {
        let items: Vec<u32> = (0..40).collect();
        let mut asked = 0;
        let kept = ddmin(&items, |c| {
            asked += 1;
            c.contains(&7) && c.contains(&31)
        });
        assert_eq!(kept, vec![7, 31]);
        // Far from the hundreds of questions that trying pairs would take.
        assert!(asked < 80, "{asked} tests");
    }

    #[test]
    fn keeps_everything_when_nothing_can_go() {
        let items = [1, 2, 3];
        assert_eq!(ddmin(&items, |c| c.len() == 3), vec![1, 2, 3]);
        assert_eq!(ddmin(&items, |_| true), Vec::<i32>::new());
        assert_eq!(ddmin::<i32>(&[], |_| unreachable!()), Vec::<i32>::new());
    }

    #[test]
    fn a_text_loses_every_character_it_does_not_need() {
        let mut judge =
            Judge::new(|c: &Candidate<'_>| ["b", ";", "q"].iter().all(|s| c.text.contains(s)));
        let text = "let a = 1;\nlet b = 2;\nlet q = a;\n";
        let reduced = reduce_text(text, &mut judge).unwrap();
        // One of each, in text order; which ';' survives depends on the splits.
        let mut kept: Vec<char> = reduced.chars().collect();
        kept.sort();
        assert_eq!(kept, [';', 'b', 'q'], "{reduced:?}");
        let mut no = Judge::new(|c: &Candidate<'_>| c.text.contains('z'));
        assert_eq!(
            reduce_text(text, &mut no),
            Err(ReductionError::NotInteresting)
        );
    }
}
