//! Items waiting for the position a scan or skipped whitespace took them to.
//!
//! Almost every scan ends a few bytes ahead, so the queue is a ring of 64 buckets, one per
//! position ahead of the current one, with a bit mask of the non-empty ones: pushing is a
//! vector push and finding the next position is one rotate and one count of trailing zeros.
//! Ends further ahead (a long pool word or literal) go to a binary heap.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

const RING: usize = 64;

pub(crate) struct ScanQueue {
    buckets: Vec<Vec<(u32, u32)>>,
    /// Bit `p % 64` is set when the bucket of position `p` holds items.
    occupied: u64,
    far: BinaryHeap<Reverse<(u32, u32, u32)>>,
}

impl ScanQueue {
    pub fn new() -> Self {
        Self {
            buckets: vec![Vec::new(); RING],
            occupied: 0,
            far: BinaryHeap::new(),
        }
    }

    /// Queues the item (`dot`, `origin`) for position `end`, which lies after `now`.
    pub fn push(&mut self, now: usize, end: usize, dot: u32, origin: u32) {
        debug_assert!(end > now);
        if end - now < RING {
            self.buckets[end % RING].push((dot, origin));
            self.occupied |= 1 << (end % RING);
        } else {
            self.far.push(Reverse((end as u32, dot, origin)));
        }
    }

    /// The smallest position after `now` with queued items.
    pub fn next(&self, now: usize) -> Option<usize> {
        let near = (self.occupied != 0).then(|| {
            let rotated = self.occupied.rotate_right(((now + 1) % RING) as u32);
            now + 1 + rotated.trailing_zeros() as usize
        });
        let far = self.far.peek().map(|Reverse((p, _, _))| *p as usize);
        match (near, far) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Moves the items queued for `position` into `out`.
    pub fn take(&mut self, position: usize, out: &mut Vec<(u32, u32)>) {
        let bucket = position % RING;
        if self.occupied & (1 << bucket) != 0 {
            out.append(&mut self.buckets[bucket]);
            self.occupied &= !(1 << bucket);
        }
        while let Some(&Reverse((p, dot, origin))) = self.far.peek() {
            if p as usize != position {
                break;
            }
            self.far.pop();
            out.push((dot, origin));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_come_out_in_order_near_and_far() {
        let mut queue = ScanQueue::new();
        queue.push(0, 5, 1, 0);
        queue.push(0, 3, 2, 0);
        queue.push(0, 200, 3, 0);
        queue.push(0, 63, 4, 0);
        queue.push(0, 3, 5, 0);
        let mut order = Vec::new();
        let mut now = 0;
        let mut out = Vec::new();
        while let Some(next) = queue.next(now) {
            out.clear();
            queue.take(next, &mut out);
            order.push((next, out.clone()));
            now = next;
            if now == 63 {
                // Wrapping around the ring: 64 positions ahead of 63 is far.
                queue.push(now, 127, 6, 63);
                queue.push(now, 64, 7, 63);
            }
        }
        assert_eq!(
            order,
            [
                (3, vec![(2, 0), (5, 0)]),
                (5, vec![(1, 0)]),
                (63, vec![(4, 0)]),
                (64, vec![(7, 63)]),
                (127, vec![(6, 63)]),
                (200, vec![(3, 0)]),
            ]
        );
    }
}
