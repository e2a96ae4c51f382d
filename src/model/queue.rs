//! Waiting jobs, in discipline order, grouped into classes of interchangeable jobs.
//!
//! Jobs of one class (same workload, same gang size, same burst and spot eligibility, same
//! pools blocked by retry timers) fare the same on every pool: if the first of them finds no
//! capacity, so do all the others for the rest of a scheduling pass (capacity only shrinks
//! during a pass). A pass therefore merges the classes in queue order and drops a whole class
//! at its first failure, instead of walking thousands of jobs that cannot start:
//! O(placements + classes) per pass, not O(queue). A job changes class when a timer of its
//! own runs out (burst threshold, retry after a refused request) or when it is refused.
//!
//! Each class is an ordered set (for where a job goes in) and a list linked through the job
//! slots (so the job after a given one costs one look-up, not a search of the set).

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
    /// On-demand pools are open to it (the deadline rules may keep them closed a while).
    pub od_ok: bool,
    /// Bit `sp` set: strategy pool `sp` refused the job and its retry timer still runs (or
    /// the job stays with another spot pool).
    pub blocked: u64,
    /// Bit `sp` set: the job tries strategy pool `sp` before the others.
    pub prefer: u64,
}

/// What a pass compares between waiting jobs of one class without reading the jobs
/// themselves: kept beside each job's links, which a pass reads anyway (the jobs are large and
/// scattered; in a long queue every look at one is a cache miss).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Waiting {
    /// Work left, hours on the workload's reference GPU type.
    pub work_ref_h: f64,
    /// Its next run starts by restoring a checkpoint.
    pub restores: bool,
    /// Its workload writes checkpoints (whether the strategy lets it or not: this only tells
    /// kinds of runs apart).
    pub checkpointed: bool,
    /// The GPUs it asked for. An elastic gang waits with its smallest count, so one class
    /// holds gangs that asked for different counts, and how long a run takes on a count
    /// depends on the count asked for.
    pub asked: u32,
}

#[derive(Debug, Default)]
pub struct WaitQueue {
    classes: Vec<BTreeSet<QueueKey>>,
    /// Per job slot, while it waits: its key and the slots of the jobs before and after it in
    /// its class ([`NO_SLOT`] at either end).
    links: Vec<Link>,
    /// The first key of each class, kept in step with `classes`.
    fronts: Vec<Option<QueueKey>>,
    /// The first key of each class after the cursor (its front between passes), kept in step
    /// with `classes`: a pass reads them at every step. A failed class's stays where it failed.
    heads: Vec<Option<QueueKey>>,
    ids: BTreeMap<ClassKey, usize>,
    /// Per workload, the class looked up last: the next job of a workload most often has the
    /// same key, and comparing it costs less than a look-up in `ids`. Classes are never
    /// dropped, so an entry stays true.
    recent: Vec<Option<(ClassKey, usize)>>,
    len: usize,
    /// Classes whose job found no room, or was turned away once the pass could turn away no
    /// more, in the last pass (kept until the next one begins).
    failed: Vec<bool>,
    /// Where each failed class failed: the key of the job that failed it. A job queued after
    /// the pass, behind that key, is one the pass would have skipped.
    failed_at: Vec<Option<QueueKey>>,
    /// The classes with a head that has not failed, with its place in the order as one number
    /// (`(order, class)`), so that a step of a pass compares numbers of those classes only;
    /// `live_at[class]` is where a class is in it ([`NO_SLOT`]: not there).
    live: Vec<(u128, u32)>,
    live_at: Vec<u32>,
    /// The classes with waiting jobs (a pass starts from them, not from every class ever
    /// made); `nonempty_at[class]` is where a class is in it ([`NO_SLOT`]: not there).
    nonempty: Vec<u32>,
    nonempty_at: Vec<u32>,
    /// During a pass: the last key handed out (every later key is larger).
    cursor: Option<QueueKey>,
}

/// The next jobs of a pass that are of one class (see [`WaitQueue::peek_run`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// The first of them, the pass's next job.
    pub key: QueueKey,
    pub class: usize,
    /// The place in the order of the first job of another class: the run's jobs come before.
    pub bound: u128,
}

const NO_SLOT: u32 = u32::MAX;
const NOT_NEXT: u128 = u128::MAX;

/// A key's place in the order: rank, then arrival (unique to a job, so the slot never decides).
fn order_of(key: QueueKey) -> u128 {
    let rank = (key.rank as u64) ^ (1 << 63);
    u128::from(rank) << 64 | u128::from(key.arrival_seq)
}

#[derive(Debug, Clone, Copy)]
struct Link {
    key: QueueKey,
    before: u32,
    after: u32,
    waiting: Waiting,
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

    /// The class of `key`, if one was made (tests).
    #[cfg(test)]
    pub fn class_made(&self, key: &ClassKey) -> Option<usize> {
        self.ids.get(key).copied()
    }

    /// Every waiting job with its class (tests).
    #[cfg(test)]
    pub fn members(&self) -> impl Iterator<Item = (usize, QueueKey)> + '_ {
        (self.classes.iter().enumerate())
            .flat_map(|(class, set)| set.iter().map(move |key| (class, *key)))
    }

    /// The class of `key`, created on first use.
    pub fn class_of(&mut self, key: ClassKey) -> usize {
        let w = usize::from(key.workload);
        if let Some(Some((recent, id))) = self.recent.get(w)
            && *recent == key
        {
            return *id;
        }
        let id = self.class_in_ids(key);
        if w >= self.recent.len() {
            self.recent.resize(w + 1, None);
        }
        self.recent[w] = Some((key, id));
        id
    }

    /// The class of `key` as `ids` has it, created on first use.
    fn class_in_ids(&mut self, key: ClassKey) -> usize {
        if let Some(id) = self.ids.get(&key) {
            return *id;
        }
        self.classes.push(BTreeSet::new());
        self.fronts.push(None);
        self.heads.push(None);
        self.failed.push(false);
        self.failed_at.push(None);
        self.live_at.push(NO_SLOT);
        self.nonempty_at.push(NO_SLOT);
        let id = self.classes.len() - 1;
        self.ids.insert(key, id);
        id
    }

    pub fn insert(&mut self, class: usize, key: QueueKey, waiting: Waiting) {
        let set = &mut self.classes[class];
        // Most jobs join at the end of their class (a newcomer under fifo or backfill).
        let before = match set.last() {
            Some(last) if *last < key => last.slot,
            _ => set.range(..key).next_back().map_or(NO_SLOT, |b| b.slot),
        };
        let after = match before {
            NO_SLOT => self.fronts[class].map_or(NO_SLOT, |front| front.slot),
            before => self.links[before as usize].after,
        };
        if before == NO_SLOT {
            self.fronts[class] = Some(key);
        }
        let fresh = set.insert(key);
        assert!(fresh, "job {} queued twice", key.slot);
        if set.len() == 1 {
            self.nonempty_at[class] = self.nonempty.len() as u32;
            self.nonempty.push(class as u32);
        }
        let slot = key.slot as usize;
        if slot >= self.links.len() {
            let unused = Link {
                key,
                before: NO_SLOT,
                after: NO_SLOT,
                waiting,
            };
            self.links.resize(slot + 1, unused);
        }
        self.links[slot] = Link {
            key,
            before,
            after,
            waiting,
        };
        if before != NO_SLOT {
            self.links[before as usize].after = key.slot;
        }
        if after != NO_SLOT {
            self.links[after as usize].before = key.slot;
        }
        // A job placed behind the cursor waits for the next pass.
        let ahead = self.cursor.is_none_or(|cursor| key > cursor);
        if ahead && self.heads[class].is_none_or(|head| key < head) {
            self.set_head(class, Some(key));
        }
        self.len += 1;
    }

    pub fn remove(&mut self, class: usize, key: QueueKey) {
        let found = self.classes[class].remove(&key);
        assert!(found, "job {} is not in class {class}", key.slot);
        if self.classes[class].is_empty() {
            let at = self.nonempty_at[class] as usize;
            self.nonempty.swap_remove(at);
            if let Some(&moved) = self.nonempty.get(at) {
                self.nonempty_at[moved as usize] = at as u32;
            }
            self.nonempty_at[class] = NO_SLOT;
        }
        let Link { before, after, .. } = self.links[key.slot as usize];
        if before != NO_SLOT {
            self.links[before as usize].after = after;
        }
        if after != NO_SLOT {
            self.links[after as usize].before = before;
        }
        if before == NO_SLOT {
            self.fronts[class] = self.key_of(after);
        }
        if self.heads[class] == Some(key) {
            self.set_head(class, self.key_of(after));
        }
        self.len -= 1;
    }

    fn set_head(&mut self, class: usize, head: Option<QueueKey>) {
        self.heads[class] = head;
        let order = match head {
            Some(key) if !self.failed[class] => order_of(key),
            _ => NOT_NEXT,
        };
        self.set_order(class, order);
    }

    #[inline]
    fn set_order(&mut self, class: usize, order: u128) {
        match (self.live_at[class], order) {
            (NO_SLOT, NOT_NEXT) => {}
            (NO_SLOT, order) => {
                self.live_at[class] = self.live.len() as u32;
                self.live.push((order, class as u32));
            }
            (at, NOT_NEXT) => self.leave_live(class, at),
            (at, order) => self.live[at as usize].0 = order,
        }
    }

    /// Takes `class`, at `at` in `live`, out of it.
    fn leave_live(&mut self, class: usize, at: u32) {
        self.live.swap_remove(at as usize);
        if let Some(&(_, moved)) = self.live.get(at as usize) {
            self.live_at[moved as usize] = at;
        }
        self.live_at[class] = NO_SLOT;
    }

    fn key_of(&self, slot: u32) -> Option<QueueKey> {
        (slot != NO_SLOT).then(|| self.links[slot as usize].key)
    }

    /// The key after `key`, a waiting job's, in its class.
    fn first_after(&self, key: QueueKey) -> Option<QueueKey> {
        self.key_of(self.links[key.slot as usize].after)
    }

    /// What the queue keeps of waiting job `slot` (see [`Waiting`]).
    pub fn waiting(&self, slot: u32) -> Waiting {
        self.links[slot as usize].waiting
    }

    /// Moves a waiting job to another class (it keeps its place in the order).
    pub fn move_to(&mut self, from: usize, to: usize, key: QueueKey) {
        if from != to {
            let waiting = self.waiting(key.slot);
            self.remove(from, key);
            self.insert(to, key, waiting);
        }
    }

    /// Starts a scheduling pass.
    /// Every class's head is its front: an empty class's is none already (a head is always
    /// a key of its class, or none).
    pub fn begin_pass(&mut self) {
        self.failed.fill(false);
        self.cursor = None;
        for &(_, class) in &self.live {
            self.live_at[class as usize] = NO_SLOT;
        }
        self.live.clear();
        for &class in &self.nonempty {
            let front = self.fronts[class as usize].expect("a class with jobs has a front");
            self.heads[class as usize] = Some(front);
            self.live_at[class as usize] = self.live.len() as u32;
            self.live.push((order_of(front), class));
        }
    }

    /// The next job of the pass in queue order, skipping failed classes, with its class.
    pub fn next_in_pass(&mut self) -> Option<(QueueKey, usize)> {
        let (key, class) = self.peek_in_pass()?;
        self.hand_out(class);
        Some((key, class))
    }

    /// The job [`WaitQueue::next_in_pass`] would hand out, without handing it out.
    pub fn peek_in_pass(&self) -> Option<(QueueKey, usize)> {
        let (mut order, mut class) = *self.live.first()?;
        for &(o, c) in &self.live[1..] {
            if o < order {
                (order, class) = (o, c);
            }
        }
        let class = class as usize;
        let key = self.heads[class].expect("a class with a next key has a head");
        Some((key, class))
    }

    /// Hands out the head of `class`, which must be the next job of the pass (see
    /// [`WaitQueue::peek_in_pass`]).
    pub fn hand_out(&mut self, class: usize) {
        let key = self.heads[class].expect("a class handed out has a head");
        self.hand_out_through(class, key);
    }

    /// The job [`WaitQueue::next_in_pass`] would hand out, with its class and the place in
    /// the order of the next job of any other class ([`Run::bound`]): the jobs of its class
    /// before that are the ones the pass hands out next, in a run.
    pub fn peek_run(&self) -> Option<Run> {
        let (mut first, mut second) = ((NOT_NEXT, NO_SLOT), NOT_NEXT);
        for &(order, class) in &self.live {
            if order < first.0 {
                second = first.0;
                first = (order, class);
            } else if order < second {
                second = order;
            }
        }
        let class = first.1;
        (class != NO_SLOT).then(|| Run {
            key: self.heads[class as usize].expect("a class with a next key has a head"),
            class: class as usize,
            bound: second,
        })
    }

    /// The job after waiting `key` in its class, if it comes before `bound` in the order.
    pub fn next_in_run(&self, key: QueueKey, bound: u128) -> Option<QueueKey> {
        self.first_after(key).filter(|next| order_of(*next) < bound)
    }

    /// Hands out every job of `class` up to `key`, which must be the pass's next ones (its
    /// head and those after it before any other class's next job).
    pub fn hand_out_through(&mut self, class: usize, key: QueueKey) {
        debug_assert!(
            self.cursor.is_none_or(|cursor| key > cursor),
            "handing out job {} again",
            key.slot
        );
        self.cursor = Some(key);
        // The class is live (its head is the pass's next job): only its place in `live`
        // changes. Every job of a pass comes through here, so `set_head`'s cases are skipped.
        let at = self.live_at[class];
        debug_assert!(
            at != NO_SLOT && !self.failed[class],
            "class {class} handed out is live"
        );
        let next = self.first_after(key);
        self.heads[class] = next;
        match next {
            Some(next) => self.live[at as usize].0 = order_of(next),
            None => self.leave_live(class, at),
        }
    }

    /// No later job of `class` can be placed in this pass (the job handed out last failed it).
    pub fn fail_class(&mut self, class: usize) {
        self.failed[class] = true;
        self.failed_at[class] = self.cursor;
        let at = self.live_at[class];
        if at != NO_SLOT {
            self.leave_live(class, at);
        }
    }

    /// Whether the last pass skipped `class` from before `key` on: a job of `key` queued in
    /// it since would have been skipped too.
    pub fn failed_before(&self, class: usize, key: QueueKey) -> bool {
        self.failed[class] && self.failed_at[class].is_some_and(|at| at < key)
    }

    /// Whether the last pass handed out no job at or after `key` (it would come to a job of
    /// `key` after all it decided).
    pub fn after_pass(&self, key: QueueKey) -> bool {
        self.cursor.is_none_or(|cursor| key > cursor)
    }

    /// A pass found the queue empty: it skipped no class and handed out nothing. Whether
    /// the pass before had handed out any job (it is forgotten).
    #[inline]
    pub fn forget_pass(&mut self) -> bool {
        if self.cursor.is_none() {
            return false;
        }
        self.failed.fill(false);
        self.cursor = None;
        true
    }

    /// A job of `class` queued after the last pass, `key`, was turned away where that pass
    /// could turn away no more: the pass would have skipped the rest of its class from there.
    pub fn fail_class_at(&mut self, class: usize, key: QueueKey) {
        self.failed[class] = true;
        self.failed_at[class] = Some(key);
    }

    /// Capacity grew during the pass (nodes granted before a refusal): try failed classes again.
    pub fn unfail_all(&mut self) {
        self.failed.fill(false);
        // A failed class's head stayed where it failed, maybe behind the cursor.
        let after = self.cursor.map_or(Bound::Unbounded, Bound::Excluded);
        for class in 0..self.classes.len() {
            let head = self.classes[class].range((after, Bound::Unbounded)).next();
            self.set_head(class, head.copied());
        }
    }

    /// Checks internal counts (tests).
    pub fn check(&self) {
        assert_eq!(
            self.classes.iter().map(BTreeSet::len).sum::<usize>(),
            self.len
        );
        for set in &self.classes {
            let linked: Vec<QueueKey> =
                std::iter::successors(set.first().copied(), |key| self.first_after(*key)).collect();
            assert_eq!(
                linked,
                set.iter().copied().collect::<Vec<_>>(),
                "links in order"
            );
        }
        let live = self.classes.iter().zip(&self.heads).zip(&self.failed);
        for (class, ((set, head), failed)) in live.enumerate() {
            assert_eq!(set.first(), self.fronts[class].as_ref());
            let order = head.filter(|_| !failed).map_or(NOT_NEXT, order_of);
            let at = self.live_at[class];
            match order {
                NOT_NEXT => assert_eq!(at, NO_SLOT),
                order => assert_eq!(self.live[at as usize], (order, class as u32)),
            }
            let at = self.nonempty_at[class];
            match set.is_empty() {
                true => assert_eq!(at, NO_SLOT),
                false => assert_eq!(self.nonempty[at as usize], class as u32),
            }
            if set.is_empty() {
                assert_eq!(*head, None, "an empty class has no head");
            }
            if *failed {
                continue;
            }
            let first = match self.cursor {
                None => set.first(),
                Some(cursor) => set
                    .range((Bound::Excluded(cursor), Bound::Unbounded))
                    .next(),
            };
            assert_eq!(first, head.as_ref());
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
            queue.insert(big, key(seq), Waiting::default());
        }
        for seq in [2, 4, 6] {
            queue.insert(small, key(seq), Waiting::default());
        }
        queue.insert(blocked, key(0), Waiting::default());
        queue.insert(blocked, key(7), Waiting::default());
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

    #[derive(Debug, Clone)]
    enum Op {
        Insert { class: usize, seq: u64, rank: i64 },
        Remove { nth: usize },
        Move { nth: usize, to: usize },
        BeginPass,
        Next,
        Fail,
        UnfailAll,
        Peek,
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            4 => (0usize..4, 0u64..60, -2i64..3)
                .prop_map(|(class, seq, rank)| Op::Insert { class, seq, rank }),
            1 => any::<usize>().prop_map(|nth| Op::Remove { nth }),
            1 => (any::<usize>(), 0usize..4).prop_map(|(nth, to)| Op::Move { nth, to }),
            1 => Just(Op::BeginPass),
            4 => Just(Op::Next),
            1 => Just(Op::Fail),
            1 => Just(Op::UnfailAll),
            1 => Just(Op::Peek),
        ]
    }

    proptest::proptest! {
        /// The queue hands out what a plain ordered list of (key, class) says a pass should:
        /// the smallest key after the cursor of a class that has not failed; a peek says which
        /// without handing it out.
        #[test]
        fn a_pass_walks_as_a_sorted_list_says(ops in proptest::collection::vec(op(), 1..200)) {
            let mut queue = WaitQueue::new();
            let classes: Vec<usize> = (0..4).map(|g| queue.class_of(class(g + 1, 0))).collect();
            let mut waiting: BTreeMap<QueueKey, usize> = BTreeMap::new();
            let (mut cursor, mut failed, mut last) = (None::<QueueKey>, [false; 4], None);
            let after = |cursor: Option<QueueKey>, key: &QueueKey| cursor.is_none_or(|c| *key > c);
            for op in ops {
                match op {
                    Op::Insert { class, seq, rank } => {
                        let key = QueueKey { rank, arrival_seq: seq, slot: seq as u32 };
                        if waiting.keys().all(|k| k.slot != key.slot) {
                            queue.insert(classes[class], key, Waiting { work_ref_h: seq as f64, ..Waiting::default() });
                            waiting.insert(key, class);
                        }
                    }
                    Op::Remove { nth } if !waiting.is_empty() => {
                        let (key, class) = waiting.iter().nth(nth % waiting.len()).map(|(k, c)| (*k, *c)).unwrap();
                        queue.remove(classes[class], key);
                        waiting.remove(&key);
                        last = None;
                    }
                    Op::Move { nth, to } if !waiting.is_empty() => {
                        let (key, class) = waiting.iter().nth(nth % waiting.len()).map(|(k, c)| (*k, *c)).unwrap();
                        queue.move_to(classes[class], classes[to], key);
                        waiting.insert(key, to);
                        last = None;
                    }
                    Op::BeginPass => {
                        queue.begin_pass();
                        (cursor, failed, last) = (None, [false; 4], None);
                    }
                    Op::Next => {
                        let expected = waiting.iter()
                            .find(|(k, c)| after(cursor, k) && !failed[**c])
                            .map(|(k, c)| (*k, classes[*c]));
                        proptest::prop_assert_eq!(queue.next_in_pass(), expected);
                        if let Some((key, class)) = expected {
                            cursor = Some(key);
                            last = Some(class);
                        }
                    }
                    Op::Fail => {
                        if let Some(class) = last {
                            queue.fail_class(class);
                            failed[class] = true;
                        }
                    }
                    Op::UnfailAll => {
                        queue.unfail_all();
                        failed = [false; 4];
                    }
                    Op::Peek => {
                        let expected = waiting.iter()
                            .find(|(k, c)| after(cursor, k) && !failed[**c])
                            .map(|(k, c)| (*k, classes[*c]));
                        proptest::prop_assert_eq!(queue.peek_in_pass(), expected);
                        // The run: the pass's next jobs while they are of one class.
                        let run: Vec<QueueKey> = waiting.iter()
                            .filter(|(k, c)| after(cursor, k) && !failed[**c])
                            .take_while(|(_, c)| expected.is_some_and(|(_, e)| classes[**c] == e))
                            .map(|(k, _)| *k)
                            .collect();
                        let walked: Vec<QueueKey> = match queue.peek_run() {
                            None => Vec::new(),
                            Some(r) => std::iter::successors(Some(r.key), |k| queue.next_in_run(*k, r.bound)).collect(),
                        };
                        proptest::prop_assert_eq!(&walked, &run);
                        if let (Some(r), Some(take)) = (queue.peek_run(), run.get(run.len() / 2)) {
                            queue.hand_out_through(r.class, *take);
                            cursor = Some(*take);
                            last = Some(r.class);
                        }
                        if let Some((key, _)) = expected {
                            let kept = queue.waiting(key.slot).work_ref_h;
                            proptest::prop_assert_eq!(kept, key.arrival_seq as f64, "a job's own waiting");
                        }
                    }
                    _ => {}
                }
                queue.check();
                proptest::prop_assert_eq!(queue.len(), waiting.len());
            }
        }
    }
}
