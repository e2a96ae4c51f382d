//! Waiting jobs, in discipline order, grouped into classes of interchangeable jobs.
//!
//! Jobs of one class (same workload, same gang size, same burst and spot eligibility, same
//! pools blocked by retry timers) fare the same on every pool: if the first of them finds no
//! capacity, so do all the others for the rest of a scheduling pass (capacity only shrinks
//! during a pass). A pass therefore merges the classes in queue order and drops a whole class
//! at its first failure, instead of walking thousands of jobs that cannot start:
//! O(placements + classes) per pass, not O(queue). A job changes class when a timer of its
//! own runs out (burst threshold, retry after a refused request) or when it is refused.

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
    /// On-demand pools are open to it (`deadline_aware` may keep them closed a while).
    pub od_ok: bool,
    /// Bit `sp` set: strategy pool `sp` refused the job and its retry timer still runs (or
    /// the job stays with another spot pool).
    pub blocked: u64,
    /// Bit `sp` set: the job tries strategy pool `sp` before the others.
    pub prefer: u64,
}

#[derive(Debug, Default)]
pub struct WaitQueue {
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
        Self::default()
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

    /// Moves a waiting job to another class (it keeps its place in the order).
    pub fn move_to(&mut self, from: usize, to: usize, key: QueueKey) {
        if from != to {
            self.remove(from, key);
            self.insert(to, key);
        }
    }

    /// Starts a scheduling pass.
    pub fn begin_pass(&mut self) {
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
            // A class's first key is normally past the cursor (its placed jobs left, a failure
            // drops the whole class); a job that moved in during the pass may sit before it.
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
        self.failed[class] = true;
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
        for (set, front) in self.classes.iter().zip(&self.fronts) {
            assert_eq!(set.first(), front.as_ref());
        }
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

    fn class(gpus: u32, blocked: u64) -> ClassKey {
        ClassKey {
            workload: 0,
            gpus,
            burst_ok: true,
            spot_ok: true,
            od_ok: true,
            blocked,
            prefer: 0,
        }
    }

    #[test]
    fn a_pass_merges_classes_in_order_and_skips_failed_ones() {
        let mut queue = WaitQueue::new();
        let small = queue.class_of(class(1, 0));
        let big = queue.class_of(class(8, 0));
        let blocked = queue.class_of(class(1, 0b10));
        assert_eq!(queue.class_of(class(8, 0)), big);
        for seq in [1, 3, 5] {
            queue.insert(big, key(seq));
        }
        for seq in [2, 4, 6] {
            queue.insert(small, key(seq));
        }
        queue.insert(blocked, key(0));
        queue.insert(blocked, key(7));
        queue.begin_pass();
        assert_eq!(queue.next_in_pass(), Some((key(0), blocked)));
        queue.remove(blocked, key(0)); // Placed.
        assert_eq!(queue.next_in_pass(), Some((key(1), big)));
        queue.fail_class(big);
        assert_eq!(queue.next_in_pass(), Some((key(2), small)));
        queue.move_to(small, blocked, key(2)); // Refused: now blocked, behind the cursor.
        assert_eq!(queue.next_in_pass(), Some((key(4), small)));
        queue.remove(small, key(4));
        assert_eq!(queue.next_in_pass(), Some((key(6), small)));
        queue.fail_class(small);
        assert_eq!(queue.next_in_pass(), Some((key(7), blocked)));
        assert_eq!(queue.next_in_pass(), None);
        assert_eq!(queue.len(), 6);
        queue.check();
    }
}
