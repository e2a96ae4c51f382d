//! The pending events: a 4-ary min-heap on (time, scheduling order).
//!
//! Each entry carries its time and sequence number packed into one `u128`, so the heap order
//! is one integer comparison. Sequence numbers are unique, so no two entries compare equal and
//! the events leave in exactly one order, whatever the heap's shape: any correct priority queue
//! gives the same run. Four children per node halve the levels of a binary heap; popping (the
//! engine's costliest step, a fifth of a run) walks half as many levels, and the children of a
//! node sit side by side in memory.

/// One pending event.
#[derive(Clone, Copy)]
pub(super) struct Entry<E> {
    /// The time key in the high half, the sequence number in the low half.
    order: u128,
    pub(super) event: E,
}

impl<E> Entry<E> {
    pub(super) fn new(at_h: f64, seq: u64, event: E) -> Self {
        Self {
            order: (u128::from(time_key(at_h)) << 64) | u128::from(seq),
            event,
        }
    }

    /// Whether this entry leaves the queue before `other`.
    pub(super) fn is_before(&self, other: &Self) -> bool {
        self.order < other.order
    }

    /// When the event happens, hours.
    pub(super) fn at_h(&self) -> f64 {
        time_from_key((self.order >> 64) as u64)
    }
}

/// Maps a time to an unsigned key in the order of `f64::total_cmp`: the sign bit set for
/// positive numbers, all bits flipped for negative ones.
pub(super) fn time_key(at_h: f64) -> u64 {
    let bits = at_h.to_bits();
    if bits >> 63 == 0 {
        bits | (1 << 63)
    } else {
        !bits
    }
}

pub(super) fn time_from_key(key: u64) -> f64 {
    f64::from_bits(if key >> 63 == 1 {
        key & !(1 << 63)
    } else {
        !key
    })
}

const ARITY: usize = 4;

/// Entries in heap order: each one's `order` is below that of its children `ARITY * i + 1 ..`.
pub(super) struct EventHeap<E> {
    entries: Vec<Entry<E>>,
}

impl<E: Copy> EventHeap<E> {
    pub(super) fn new() -> Self {
        Self {
            entries: Vec::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The earliest entry.
    pub(super) fn peek(&self) -> Option<&Entry<E>> {
        self.entries.first()
    }

    pub(super) fn push(&mut self, entry: Entry<E>) {
        let hole = self.entries.len();
        self.entries.push(entry);
        self.sift_up(hole, entry);
    }

    /// Puts `entry` at `hole` or above it: parents later than the entry move down into the
    /// hole until its place is found.
    #[inline]
    fn sift_up(&mut self, mut hole: usize, entry: Entry<E>) {
        while hole > 0 {
            let parent = (hole - 1) / ARITY;
            if self.entries[parent].order < entry.order {
                break;
            }
            self.entries[hole] = self.entries[parent];
            hole = parent;
        }
        self.entries[hole] = entry;
    }

    /// Puts `entry` in place of the earliest entry (which must exist): it goes down from the
    /// root while a child is earlier. Cheaper than a pop then a push, and cheapest when the
    /// new entry is early itself.
    pub(super) fn replace_top(&mut self, entry: Entry<E>) {
        let len = self.entries.len();
        assert!(len > 0, "replacing the top of an empty heap");
        let mut hole = 0;
        loop {
            let first = ARITY * hole + 1;
            if first >= len {
                break;
            }
            let children = &self.entries[first..(first + ARITY).min(len)];
            let earliest = earliest(children);
            if children[earliest].order > entry.order {
                break;
            }
            self.entries[hole] = children[earliest];
            hole = first + earliest;
        }
        self.entries[hole] = entry;
    }

    /// Removes and returns the earliest entry.
    pub(super) fn pop(&mut self) -> Option<Entry<E>> {
        let last = self.entries.pop()?;
        let Some(&top) = self.entries.first() else {
            return Some(last);
        };
        // The hole left at the root goes down to the bottom, the earliest child moving up at
        // each level; then the last entry fills it, rising while its parent is later. The last
        // entry is usually late, so this compares less than stopping on the way down.
        let len = self.entries.len();
        let mut hole = 0;
        loop {
            let first = ARITY * hole + 1;
            if first >= len {
                break;
            }
            let children = &self.entries[first..(first + ARITY).min(len)];
            let earliest = earliest(children);
            self.entries[hole] = children[earliest];
            hole = first + earliest;
        }
        self.sift_up(hole, last);
        Some(top)
    }
}

/// The index of the earliest of one to `ARITY` siblings.
fn earliest<E>(siblings: &[Entry<E>]) -> usize {
    if let [a, b, c, d] = siblings {
        // All four (every level but the last): a tournament of three branch-free comparisons.
        let ab = usize::from(b.order < a.order);
        let cd = 2 + usize::from(d.order < c.order);
        let ab_order = if ab == 0 { a.order } else { b.order };
        let cd_order = if cd == 2 { c.order } else { d.order };
        return if cd_order < ab_order { cd } else { ab };
    }
    let mut earliest = 0;
    for (k, sibling) in siblings.iter().enumerate().skip(1) {
        if sibling.order < siblings[earliest].order {
            earliest = k;
        }
    }
    earliest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_keys_sort_like_total_cmp_and_round_trip() {
        let times = [
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::from_bits(1), // The smallest subnormal.
            1e-300,
            0.5,
            1.0,
            1.0 + f64::EPSILON,
            8760.0,
            1e300,
            f64::INFINITY,
        ];
        for a in times {
            assert_eq!(time_from_key(time_key(a)).to_bits(), a.to_bits());
            for b in times {
                assert_eq!(time_key(a).cmp(&time_key(b)), a.total_cmp(&b), "{a} vs {b}");
            }
        }
    }

    #[test]
    fn pops_in_time_then_sequence_order() {
        // A fixed pseudo-random sequence of pushes and pops, against a sorted list.
        let mut heap = EventHeap::new();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for seq in 0..20_000u64 {
            if next() % 5 == 0 && !reference.is_empty() {
                // Replace the earliest entry, as the engine does when a handler schedules.
                reference.sort_unstable();
                reference.remove(0);
                let at_h = next() % 50;
                heap.replace_top(Entry::new(at_h as f64, seq, seq));
                reference.push((at_h, seq));
            } else if next() % 3 == 0 {
                let popped = heap.pop().map(|e: Entry<u64>| (e.at_h() as u64, e.event));
                reference.sort_unstable();
                let expected = (!reference.is_empty()).then(|| reference.remove(0));
                assert_eq!(popped, expected);
            } else {
                // Few distinct times, so that ties are common.
                let at_h = next() % 50;
                heap.push(Entry::new(at_h as f64, seq, seq));
                reference.push((at_h, seq));
            }
            assert_eq!(heap.len(), reference.len());
        }
        reference.sort_unstable();
        for expected in reference {
            let entry = heap.pop().unwrap();
            assert_eq!((entry.at_h() as u64, entry.event), expected);
        }
        assert!(heap.pop().is_none());
    }
}
