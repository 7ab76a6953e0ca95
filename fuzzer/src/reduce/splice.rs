//! Editing a choice sequence at the spans of subtrees.

use std::ops::Range;

/// One edit: the choices in `span` are replaced by `with`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Splice {
    pub span: Range<usize>,
    pub with: Vec<u32>,
}

impl Splice {
    pub fn new(span: Range<usize>, with: Vec<u32>) -> Self {
        Self { span, with }
    }
}

/// `base` with every splice applied. Splices must be sorted by position and must not overlap,
/// which holds for the spans of disjoint subtrees (nodes of one level, items of lists) listed in
/// pre-order.
pub fn apply<'s>(base: &[u32], splices: impl IntoIterator<Item = &'s Splice>, out: &mut Vec<u32>) {
    out.clear();
    let mut at = 0;
    for splice in splices {
        debug_assert!(
            splice.span.start >= at,
            "splices overlap or are out of order"
        );
        out.extend_from_slice(&base[at..splice.span.start]);
        out.extend_from_slice(&splice.with);
        at = splice.span.end;
    }
    out.extend_from_slice(&base[at..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_disjoint_splices_in_order() {
        let base = [0, 1, 2, 3, 4, 5];
        let splices = [Splice::new(1..3, vec![9]), Splice::new(4..4, vec![7, 7])];
        let mut out = Vec::new();
        apply(&base, &splices, &mut out);
        assert_eq!(out, [0, 9, 3, 7, 7, 4, 5]);
        apply(&base, &[], &mut out);
        assert_eq!(out, base);
    }
}
