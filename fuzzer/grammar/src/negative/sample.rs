//! Even samples: mutants number in the hundreds of thousands, and the first `--max` of them
//! would all come from the first word's first tokens.

/// `budget` indices spread evenly over `0..len` (all of them when there are fewer), each the
/// middle of its share, in increasing order.
pub fn evenly(len: usize, budget: usize) -> Vec<usize> {
    if len <= budget {
        return (0..len).collect();
    }
    (0..budget)
        .map(|k| ((2 * k + 1) as u128 * len as u128 / (2 * budget) as u128) as usize)
        .collect()
}

/// Splits `total` among operators that have `available` candidates each, as evenly as the
/// candidates allow: an operator with fewer gives its unused share to the others.
pub fn shares(total: usize, available: &[usize]) -> Vec<usize> {
    let mut share = vec![0usize; available.len()];
    let mut left = total;
    loop {
        let open: Vec<usize> = (0..available.len())
            .filter(|&i| share[i] < available[i])
            .collect();
        if open.is_empty() || left == 0 {
            return share;
        }
        let each = (left / open.len()).max(1);
        for i in open {
            if left == 0 {
                break;
            }
            let give = each.min(available[i] - share[i]).min(left);
            share[i] += give;
            left -= give;
        }
    }
}

/// An even sample of a stream too long to keep: every `stride`-th item, the stride doubling
/// (and every other kept item dropped) whenever more than `cap` are kept. wgsl's cdrc suite
/// has 79 million word mutants, at 12 bytes each nearly a gigabyte to keep them all; thinned,
/// the whole run peaks at 60 MB.
pub struct Thinned<T> {
    kept: Vec<T>,
    stride: u64,
    seen: u64,
    cap: usize,
}

impl<T> Thinned<T> {
    /// Keeps at most `cap` items (at least 2).
    pub fn new(cap: usize) -> Self {
        Self {
            kept: Vec::new(),
            stride: 1,
            seen: 0,
            cap: cap.max(2),
        }
    }

    /// Offers the next item of the stream.
    pub fn push(&mut self, item: T) {
        if self.seen.is_multiple_of(self.stride) {
            self.kept.push(item);
            if self.kept.len() > self.cap {
                let mut index = 0;
                self.kept.retain(|_| {
                    index += 1;
                    index % 2 == 1
                });
                self.stride *= 2;
            }
        }
        self.seen += 1;
    }

    /// The kept items, in stream order, evenly spaced.
    pub fn into_kept(self) -> Vec<T> {
        self.kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_spread_and_shares_are_passed_on() {
        assert_eq!(evenly(10, 2), vec![2, 7]);
        assert_eq!(evenly(3, 5), vec![0, 1, 2]);
        assert_eq!(shares(10, &[1, 100, 100]), vec![1, 5, 4]);
        assert_eq!(shares(7, &[0, 0]), vec![0, 0]);
    }

    #[test]
    fn thinning_keeps_an_evenly_spaced_sample() {
        let mut thinned = Thinned::new(4);
        for i in 0..20u32 {
            thinned.push(i);
        }
        assert_eq!(thinned.into_kept(), vec![0, 8, 16]);
        let mut all = Thinned::new(100);
        (0..10u32).for_each(|i| all.push(i));
        assert_eq!(all.into_kept(), (0..10).collect::<Vec<_>>());
    }
}
