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
}
