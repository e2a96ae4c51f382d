//! Waiting jobs, in discipline order, grouped into classes of interchangeable jobs.
//!
//! Jobs of one class (same workload, same gang size, same burst and spot eligibility) fare
//! the same on every pool: if the first of them finds no capacity, so do all the others for
//! the rest of a scheduling pass (capacity only shrinks during a pass). A pass therefore merges
//! the classes in queue order and drops a whole class at its first failure, instead of walking
//! thousands of jobs that cannot start: O(placements + classes) per pass, not O(queue).
//!
//! Jobs whose request was refused by a shortfall wait for their own retry timers, which the
//! class does not share: they sit in the irregular class, visited one by one.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use crate::policies::QueueKey;

/// What makes waiting jobs interchangeable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ClassKey {
    pub workload: u16,
    pub gpus: u32,
    /// The job has waited its burst threshold: elastic pools are open to it.
    pub burst_ok: bool,
    /// Spot pools are open to it (not past its spot fallback).
    pub spot_ok: bool,
}

/// Index of the irregular class.
pub const IRREGULAR: usize = 0;

#[derive(Debug, Default)]
pub struct WaitQueue {
    /// `classes[IRREGULAR]` holds jobs with a retry timer running.
    classes: Vec<BTreeSet<QueueKey>>,
    /// The first key of each class, kept in step with `classes` (a pass reads it per step).
    fronts: Vec<Option<QueueKey>>,
    ids: BTreeMap<ClassKey, usize>,
    len: usize,
    /// During a pass: classes whose first job found no room.
    failed: Vec<bool>,
    /// During a pass: the last key handed out (every later key is larger).
    cursor: Option<QueueKey>,
}

impl WaitQueue {
    pub fn new() -> Self {
        Self {
            classes: vec![BTreeSet::new()],
            fronts: vec![None],
            failed: vec![false],
            ..Self::default()
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The class of `key`, created on first use.
    pub fn class_of(&mut self, key: ClassKey) -> usize {
        if let Some(id) = self.ids.get(&key) {
            return *id;
        }
        self.classes.push(BTreeSet::new());
        self.fronts.push(None);
        self.failed.push(false);
        let id = self.classes.len() - 1;
        self.ids.insert(key, id);
        id
    }

    pub fn insert(&mut self, class: usize, key: QueueKey) {
        let fresh = self.classes[class].insert(key);
        assert!(fresh, "job {} queued twice", key.slot);
        if self.fronts[class].is_none_or(|front| key < front) {
            self.fronts[class] = Some(key);
        }
        self.len += 1;
    }

    pub fn remove(&mut self, class: usize, key: QueueKey) {
        let found = self.classes[class].remove(&key);
        assert!(found, "job {} is not in class {class}", key.slot);
        if self.fronts[class] == Some(key) {
            self.fronts[class] = self.classes[class].first().copied();
        }
        self.len -= 1;
    }

    /// Moves a waiting job to another class (keeps its place in the order).
    pub fn move_to(&mut self, from: usize, to: usize, key: QueueKey) {
        self.remove(from, key);
        self.insert(to, key);
    }

    /// Starts a scheduling pass.
    pub fn begin_pass(&mut self) {
        self.failed.resize(self.classes.len(), false);
        self.failed.fill(false);
        self.cursor = None;
    }

    /// The next job of the pass in queue order, skipping failed classes, with its class.
    pub fn next_in_pass(&mut self) -> Option<(QueueKey, usize)> {
        let cursor = self.cursor;
        let mut best: Option<(QueueKey, usize)> = None;
        for (class, front) in self.fronts.iter().enumerate() {
            let Some(front) = *front else { continue };
            if self.failed[class] {
                continue;
            }
            // Regular classes lose their placed jobs as the pass goes (and fail as a whole), so
            // their first key is the next one; the irregular class is walked past the cursor.
            let next = if cursor.is_none_or(|c| front > c) {
                Some(front)
            } else {
                let after = cursor.expect("cursor set");
                self.classes[class]
                    .range((Bound::Excluded(after), Bound::Unbounded))
                    .next()
                    .copied()
            };
            if let Some(key) = next
                && best.is_none_or(|(b, _)| key < b)
            {
                best = Some((key, class));
            }
        }
        if let Some((key, _)) = best {
            self.cursor = Some(key);
        }
        best
    }

    /// No later job of `class` can be placed in this pass.
    pub fn fail_class(&mut self, class: usize) {
        if class != IRREGULAR {
            self.failed[class] = true;
        }
    }

    /// Capacity grew during the pass (nodes granted before a refusal): try failed classes again.
    pub fn unfail_all(&mut self) {
        self.failed.fill(false);
    }

    /// Checks internal counts (tests).
    pub fn check(&self) {
        assert_eq!(
            self.classes.iter().map(BTreeSet::len).sum::<usize>(),
            self.len
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(seq: u64) -> QueueKey {
        QueueKey {
            rank: 0,
            arrival_seq: seq,
            slot: seq as u32,
        }
    }

    #[test]
    fn a_pass_merges_classes_in_order_and_skips_failed_ones() {
        let mut queue = WaitQueue::new();
        let small = queue.class_of(ClassKey {
            workload: 0,
            gpus: 1,
            burst_ok: true,
            spot_ok: true,
        });
        let big = queue.class_of(ClassKey {
            workload: 0,
            gpus: 8,
            burst_ok: true,
            spot_ok: true,
        });
        assert_eq!(
            queue.class_of(ClassKey {
                workload: 0,
                gpus: 8,
                burst_ok: true,
                spot_ok: true
            }),
            big
        );
        for seq in [1, 3, 5] {
            queue.insert(big, key(seq));
        }
        for seq in [2, 4, 6] {
            queue.insert(small, key(seq));
        }
        queue.insert(IRREGULAR, key(0));
        queue.insert(IRREGULAR, key(7));
        queue.begin_pass();
        assert_eq!(queue.next_in_pass(), Some((key(0), IRREGULAR)));
        assert_eq!(queue.next_in_pass(), Some((key(1), big)));
        queue.fail_class(big);
        assert_eq!(queue.next_in_pass(), Some((key(2), small)));
        queue.remove(small, key(2)); // Placed.
        assert_eq!(queue.next_in_pass(), Some((key(4), small)));
        queue.remove(small, key(4));
        assert_eq!(queue.next_in_pass(), Some((key(6), small)));
        queue.fail_class(small);
        assert_eq!(queue.next_in_pass(), Some((key(7), IRREGULAR)));
        assert_eq!(queue.next_in_pass(), None);
        assert_eq!(queue.len(), 6);
        queue.check();
    }
}
