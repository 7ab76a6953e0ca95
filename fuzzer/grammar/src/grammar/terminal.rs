//! The leaves of a derivation: literal text, character classes, pool values, layout tokens.

use super::PoolId;

/// A terminal of the normalized grammar, interned once in [`super::Grammar::terminals`]; the
/// sampler makes a choice only for classes and pools, literal and layout text is fixed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Terminal {
    /// Fixed text, rendered as written.
    Literal(String),
    /// One character drawn from the class: a piece of a lowered regex terminal.
    Class(CharClass),
    /// One value of the pool; which values are allowed depends on the bound m.
    Pool(PoolId),
    /// No text of its own; steers the layout pass.
    Layout(LayoutToken),
}

/// Tokens that carry no text of their own but drive the layout pass, for
/// indentation-sensitive languages and for tokens that must touch their predecessor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LayoutToken {
    /// A line break; the next token is indented to the current level.
    Newline,
    /// One more level of indentation from the next line on.
    Indent,
    /// One level of indentation less from the next line on.
    Dedent,
    /// No separator before the next token, whatever the layout says: tree-sitter's
    /// `token.immediate`, where whitespace would change the meaning (`"abc"`, `x?.y`).
    Glue,
}

impl LayoutToken {
    /// The token a grammar spells `name` (upper case, as in `NEWLINE`); `None` for any other name,
    /// which is then an ordinary rule reference.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "NEWLINE" => Some(Self::Newline),
            "INDENT" => Some(Self::Indent),
            "DEDENT" => Some(Self::Dedent),
            "GLUE" => Some(Self::Glue),
            _ => None,
        }
    }

    /// Every layout token, for listing the reserved names in messages and checks.
    pub const ALL: [LayoutToken; 4] = [Self::Newline, Self::Indent, Self::Dedent, Self::Glue];

    /// The reserved name a grammar uses for the token, the inverse of [`LayoutToken::from_name`].
    pub fn name(self) -> &'static str {
        match self {
            Self::Newline => "NEWLINE",
            Self::Indent => "INDENT",
            Self::Dedent => "DEDENT",
            Self::Glue => "GLUE",
        }
    }
}

/// A set of characters as sorted, disjoint, inclusive ranges. A draw from the class is an
/// offset into the concatenation of its ranges, so the same offset always means the same
/// character.
///
/// A class that holds printable ASCII characters and others (`[^"\\]`, `.`, an identifier's
/// `\p{XID_Start}`) draws fresh characters from its printable ASCII ones only: drawn
/// uniformly, such a class yields a code point out of a million, nearly always a CJK or
/// unassigned one, and inputs become unreadable. The other characters still belong to it: a
/// seed's `ß` or `一月` is read, kept and replayed.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct CharClass {
    ranges: Vec<(char, char)>,
    size: u32,
    /// The offsets of the printable ASCII characters (space to `~`; failing those, the ASCII
    /// ones) when the class also holds others; empty when every draw is fine.
    preferred: Vec<u32>,
}

impl CharClass {
    /// Ranges must be sorted and disjoint, as regex-syntax produces them.
    pub fn new(ranges: Vec<(char, char)>) -> Self {
        let size = ranges.iter().map(|&(a, b)| range_len(a, b)).sum();
        let mut class = Self {
            ranges,
            size,
            preferred: Vec::new(),
        };
        let mut preferred: Vec<u32> = (' '..='~').filter_map(|c| class.offset_of(c)).collect();
        if preferred.is_empty() {
            // No printable character (a line break class `[\n\u{2028}\u{2029}]`): ASCII ones.
            preferred = ('\0'..='\x7f').filter_map(|c| class.offset_of(c)).collect();
        }
        if !preferred.is_empty() && preferred.len() < size as usize {
            class.preferred = preferred;
        }
        class
    }

    /// The offsets fresh draws choose among: the printable ASCII characters of a class that
    /// also holds others, or empty for any offset below [`Self::size`].
    pub fn preferred(&self) -> &[u32] {
        &self.preferred
    }

    /// The offset a shortest derivation uses: the first preferred character, else the first.
    pub fn first_preferred(&self) -> u32 {
        self.preferred.first().copied().unwrap_or(0)
    }

    /// Number of characters in the class; a draw is an offset below it.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// The sorted, disjoint, inclusive ranges, as given to [`CharClass::new`].
    pub fn ranges(&self) -> &[(char, char)] {
        &self.ranges
    }

    /// The character at `offset`, which must be below [`Self::size`].
    pub fn nth(&self, mut offset: u32) -> char {
        for &(a, b) in &self.ranges {
            let len = range_len(a, b);
            if offset < len {
                return step(a, offset);
            }
            offset -= len;
        }
        unreachable!("offset beyond class size")
    }

    /// Inverse of [`Self::nth`].
    pub fn offset_of(&self, c: char) -> Option<u32> {
        let mut base = 0;
        for &(a, b) in &self.ranges {
            if (a..=b).contains(&c) {
                return Some(base + range_len(a, c) - 1);
            }
            base += range_len(a, b);
        }
        None
    }
}

/// The ranges and size only: `preferred` follows from them, and grammar fingerprints hash
/// this text, so saved choice sequences keep loading.
impl std::fmt::Debug for CharClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CharClass")
            .field("ranges", &self.ranges)
            .field("size", &self.size)
            .finish()
    }
}

const SURROGATES: (u32, u32) = (0xD800, 0xDFFF);

/// Characters in `a..=b`, skipping the surrogate gap that `char` cannot hold.
fn range_len(a: char, b: char) -> u32 {
    let (a, b) = (a as u32, b as u32);
    let mut len = b - a + 1;
    if a < SURROGATES.0 && b > SURROGATES.1 {
        len -= SURROGATES.1 - SURROGATES.0 + 1;
    }
    len
}

fn step(a: char, offset: u32) -> char {
    let mut code = a as u32 + offset;
    if (a as u32) < SURROGATES.0 && code >= SURROGATES.0 {
        code += SURROGATES.1 - SURROGATES.0 + 1;
    }
    char::from_u32(code).expect("class ranges hold valid scalar values")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nth_and_offset_are_inverse_across_ranges_and_surrogates() {
        let class = CharClass::new(vec![('0', '9'), ('a', 'c'), ('\u{D7FF}', '\u{E001}')]);
        assert_eq!(class.size(), 10 + 3 + 3);
        for i in 0..class.size() {
            let c = class.nth(i);
            assert_eq!(class.offset_of(c), Some(i));
        }
        assert_eq!(class.nth(10), 'a');
        assert_eq!(class.nth(14), '\u{E000}');
        assert_eq!(class.offset_of('z'), None);
    }
}
