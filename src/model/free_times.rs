//! When the nodes of one pool will have GPUs free, from the planned ends of what holds their
//! GPUs, kept up to date as jobs start and end, so that EASY backfill's reservation costs
//! O(log nodes) per query instead of a walk over every node and run of the pool.
//!
//! `model::reservation::reserve` (compiled for tests only) is the specification: it lists every node's outlook, sorts
//! and walks it. [`FreeTimes`] answers exactly what it answers (the same shadow time, nodes,
//! spare GPUs and extra GPUs, ties broken alike); a property test compares the two on random
//! pools. Each part of the index keeps a list of the nodes changed since it was last read and
//! brings them up to date when a query reads it, so a fleet that never needs a reservation
//! pays a flag per change, and a part no query reads costs no more.
//!
//! `node_local` keeps, for each number of GPUs `need` a query asked about, when every up node
//! first has `need` GPUs free (its key), ordered two ways: by node index in a min-tree (nodes
//! whose key has passed all tie at now, and ties go to the lowest index) and by (key, index) in
//! an ordered set (nodes still busy at now). `spread` keeps the pool as one bag: free GPUs by
//! the time their node is ready, and held GPUs by their planned end.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use super::node::{Node, NodeState, Taken};

/// A reservation on one pool for one blocked gang.
#[derive(Debug, Clone, PartialEq)]
pub struct Reservation {
    /// When the gang can start, hours.
    pub shadow_h: f64,
    /// `node_local`: the up nodes the gang will use, each with the GPUs that a job running past
    /// `shadow_h` may still take there (spare at `shadow_h`).
    pub spare: Vec<(u32, u32)>,
    /// New nodes (not yet requested) the gang counts on: an elastic pool must keep room for
    /// them under `max_nodes`.
    pub new_nodes: u32,
    /// `spread`: GPUs free at `shadow_h` beyond the gang's, which jobs running past it may take.
    pub extra_gpus: u64,
}

/// A time as an integer that orders as the time does (`f64::total_cmp`).
fn time_key(at_h: f64) -> u64 {
    let bits = at_h.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

fn key_time(key: u64) -> f64 {
    if key >> 63 == 1 {
        f64::from_bits(key & !(1 << 63))
    } else {
        f64::from_bits(!key)
    }
}

/// When `node` first has `need` GPUs free, ignoring now: once it is ready, and after the
/// earliest planned ends that free enough GPUs (the node keeps them in order).
fn free_from_h(node: &Node, need: u32) -> f64 {
    if node.free_gpus >= need {
        return node.ready_h;
    }
    let mut free = node.free_gpus;
    for &Taken { end_h, gpus, .. } in &node.taken {
        free += gpus;
        if free >= need {
            return node.ready_h.max(end_h);
        }
    }
    unreachable!("a node frees all its GPUs in the end")
}

/// GPUs `node` has free at `at_h`.
fn free_at(node: &Node, at_h: f64) -> u32 {
    node.free_gpus
        + node
            .taken
            .iter()
            .filter(|t| t.end_h <= at_h)
            .map(|t| t.gpus)
            .sum::<u32>()
}

/// The minimum of a value per node slot over ranges of slots, to find the lowest-numbered node
/// whose value is at most a time.
#[derive(Debug, Clone)]
struct MinTree {
    leaves: usize,
    /// `min[1]` is the root, the leaves are `min[leaves..]`; unused leaves hold infinity.
    min: Vec<f64>,
}

impl MinTree {
    fn new() -> Self {
        Self {
            leaves: 1,
            min: vec![f64::INFINITY; 2],
        }
    }

    fn set(&mut self, slot: usize, value: f64) {
        if slot >= self.leaves {
            self.grow(slot + 1);
        }
        let mut i = slot + self.leaves;
        self.min[i] = value;
        // Up to the first ancestor whose minimum stays: those above it keep theirs too.
        while i > 1 {
            i /= 2;
            let min = self.min[2 * i].min(self.min[2 * i + 1]);
            if min == self.min[i] {
                break;
            }
            self.min[i] = min;
        }
    }

    fn grow(&mut self, slots: usize) {
        let leaves = slots.next_power_of_two();
        let mut min = vec![f64::INFINITY; 2 * leaves];
        min[leaves..leaves + self.leaves].copy_from_slice(&self.min[self.leaves..]);
        for i in (1..leaves).rev() {
            min[i] = min[2 * i].min(min[2 * i + 1]);
        }
        self.leaves = leaves;
        self.min = min;
    }

    /// The lowest slot at or after `from` whose value is at most `limit`.
    fn first_at_most(&self, from: usize, limit: f64) -> Option<usize> {
        if from >= self.leaves {
            return None;
        }
        let mut i = from + self.leaves;
        // Climb to the next subtree to the right until one holds a value within the limit.
        while self.min[i] > limit {
            while i & 1 == 1 {
                if i == 1 {
                    return None;
                }
                i /= 2;
            }
            i += 1;
        }
        while i < self.leaves {
            i *= 2;
            if self.min[i] > limit {
                i += 1;
            }
        }
        Some(i - self.leaves)
    }
}

/// Nodes changed since a part of the index was last brought up to date, each once.
#[derive(Debug, Clone, Default)]
struct Dirty {
    nodes: Vec<u32>,
    marked: Vec<bool>,
}

impl Dirty {
    fn mark(&mut self, index: u32) {
        let slot = index as usize;
        if slot >= self.marked.len() {
            self.marked.resize(slot + 1, false);
        }
        if !self.marked[slot] {
            self.marked[slot] = true;
            self.nodes.push(index);
        }
    }

    /// Hands each changed node to `update`, once, and forgets them.
    fn drain(&mut self, mut update: impl FnMut(u32)) {
        for index in self.nodes.drain(..) {
            self.marked[index as usize] = false;
            update(index);
        }
    }
}

/// Every up node's key for one `need`.
#[derive(Debug, Clone)]
struct Level {
    need: u32,
    dirty: Dirty,
    /// Per node slot: its key, or NaN when the node is not up.
    key_h: Vec<f64>,
    by_node: MinTree,
    by_time: BTreeSet<(u64, u32)>,
}

impl Level {
    fn new(need: u32) -> Self {
        Self {
            need,
            dirty: Dirty::default(),
            key_h: Vec::new(),
            by_node: MinTree::new(),
            by_time: BTreeSet::new(),
        }
    }

    fn sync(&mut self, nodes: &[Node]) {
        let mut dirty = std::mem::take(&mut self.dirty);
        dirty.drain(|index| self.update(index, &nodes[index as usize]));
        self.dirty = dirty;
    }

    fn update(&mut self, index: u32, node: &Node) {
        let slot = index as usize;
        if slot >= self.key_h.len() {
            self.key_h.resize(slot + 1, f64::NAN);
        }
        let old_h = self.key_h[slot];
        let new_h = if node.state == NodeState::Up {
            free_from_h(node, self.need)
        } else {
            f64::NAN
        };
        if old_h.to_bits() == new_h.to_bits() {
            return;
        }
        if !old_h.is_nan() {
            self.by_time.remove(&(time_key(old_h), index));
        }
        if new_h.is_nan() {
            self.by_node.set(slot, f64::INFINITY);
        } else {
            self.by_time.insert((time_key(new_h), index));
            self.by_node.set(slot, new_h);
        }
        self.key_h[slot] = new_h;
    }

    /// The candidates for a gang's node in the specification's order: nodes free by now by
    /// index, then `new_nodes` new nodes, then the others by (key, index); each with the time
    /// it can give `need` GPUs (`None`: a new node).
    fn candidates(&self, now_h: f64, new_nodes: u32) -> impl Iterator<Item = (f64, Option<u32>)> {
        let mut from = 0;
        let free_now = std::iter::from_fn(move || {
            let slot = self.by_node.first_at_most(from, now_h)?;
            from = slot + 1;
            Some((now_h, Some(slot as u32)))
        });
        let fresh = std::iter::repeat_n((now_h, None), new_nodes as usize);
        let later = self
            .by_time
            .range((
                Bound::Excluded((time_key(now_h), u32::MAX)),
                Bound::Unbounded,
            ))
            .map(|&(key, index)| (key_time(key), Some(index)));
        free_now.chain(fresh).chain(later)
    }
}

/// What one node put in a [`Bag`]: its free GPUs by ready time, and its holders' GPUs by end,
/// as `(time key, GPUs)`.
type Put = (Option<(u64, u64)>, Vec<(u64, u64)>);

/// The pool as one bag of GPUs (`spread`).
#[derive(Debug, Clone, Default)]
struct Bag {
    dirty: Dirty,
    /// Free GPUs of up nodes by the time their node is ready, and their sum.
    ready: BTreeMap<u64, u64>,
    ready_total: u64,
    /// GPUs held on up nodes by their planned end.
    ends: BTreeMap<u64, u64>,
    /// Per node slot: what it put in `ready` and in `ends`.
    put: Vec<Put>,
}

impl Bag {
    fn sync(&mut self, nodes: &[Node]) {
        let mut dirty = std::mem::take(&mut self.dirty);
        dirty.drain(|index| self.update(index, &nodes[index as usize]));
        self.dirty = dirty;
    }

    fn update(&mut self, index: u32, node: &Node) {
        let slot = index as usize;
        if slot >= self.put.len() {
            self.put.resize_with(slot + 1, Default::default);
        }
        let (ready, ends) = std::mem::take(&mut self.put[slot]);
        if let Some((key, gpus)) = ready {
            take_out(&mut self.ready, key, gpus);
            self.ready_total -= gpus;
        }
        for &(key, gpus) in &ends {
            take_out(&mut self.ends, key, gpus);
        }
        let mut put = (None, ends);
        put.1.clear();
        if node.state == NodeState::Up {
            if node.free_gpus > 0 {
                let (key, gpus) = (time_key(node.ready_h), u64::from(node.free_gpus));
                *self.ready.entry(key).or_default() += gpus;
                self.ready_total += gpus;
                put.0 = Some((key, gpus));
            }
            for &Taken { end_h, gpus, .. } in &node.taken {
                let (key, gpus) = (time_key(end_h), u64::from(gpus));
                *self.ends.entry(key).or_default() += gpus;
                put.1.push((key, gpus));
            }
        }
        self.put[slot] = put;
    }

    /// The specification's `spread`: the first moment the bag holds the gang.
    fn reserve(&self, gpus: u64, new_gpus: u64, now_h: f64) -> Option<Reservation> {
        let now_key = time_key(now_h);
        let after = (Bound::Excluded(now_key), Bound::Unbounded);
        let not_ready: u64 = self.ready.range(after).map(|(_, g)| g).sum();
        let ending: u64 = self.ends.range(..=now_key).map(|(_, g)| g).sum();
        let mut free = self.ready_total - not_ready + ending + new_gpus;
        let found = |at_h: f64, free: u64| Reservation {
            shadow_h: at_h,
            spare: Vec::new(),
            new_nodes: 0,
            extra_gpus: free - gpus,
        };
        if free >= gpus {
            return Some(found(now_h, free));
        }
        let mut ready = self.ready.range(after).peekable();
        let mut ends = self.ends.range(after).peekable();
        loop {
            let key = match (ready.peek(), ends.peek()) {
                (None, None) => return None,
                (Some((r, _)), None) => **r,
                (None, Some((e, _))) => **e,
                (Some((r, _)), Some((e, _))) => (**r).min(**e),
            };
            if let Some((_, g)) = ready.next_if(|(r, _)| **r == key) {
                free += g;
            }
            if let Some((_, g)) = ends.next_if(|(e, _)| **e == key) {
                free += g;
            }
            if free >= gpus {
                return Some(found(key_time(key), free));
            }
        }
    }
}

fn take_out(map: &mut BTreeMap<u64, u64>, key: u64, gpus: u64) {
    let left = map.get_mut(&key).expect("an entry put in before");
    *left -= gpus;
    if *left == 0 {
        map.remove(&key);
    }
}

/// The index of one pool's free times, for the reservations of EASY backfill.
#[derive(Debug, Clone, Default)]
pub struct FreeTimes {
    /// One per `need` queried so far (`node_local`).
    levels: Vec<Level>,
    bag: Option<Bag>,
    chosen: Vec<(f64, Option<u32>)>,
}

impl FreeTimes {
    /// Node `index` changed (its state, free GPUs, holders or ready time).
    pub fn touch(&mut self, index: u32) {
        for level in &mut self.levels {
            level.dirty.mark(index);
        }
        if let Some(bag) = &mut self.bag {
            bag.dirty.mark(index);
        }
    }

    /// The level of `need`, up to date, built from every node on first use.
    fn level(&mut self, need: u32, nodes: &[Node]) -> usize {
        if let Some(position) = self.levels.iter().position(|l| l.need == need) {
            self.levels[position].sync(nodes);
            return position;
        }
        let mut level = Level::new(need);
        for (index, node) in nodes.iter().enumerate() {
            level.update(index as u32, node);
        }
        self.levels.push(level);
        self.levels.len() - 1
    }

    /// The specification's `node_local` reservation for a gang of `gpus`.
    pub fn node_local(
        &mut self,
        nodes: &[Node],
        up_count: u32,
        gpus_per_node: u32,
        gpus: u32,
        new_nodes_allowed: u32,
        now_h: f64,
    ) -> Option<Reservation> {
        let (whole, rest) = (gpus / gpus_per_node, gpus % gpus_per_node);
        let needed = whole + u32::from(rest > 0);
        let new_nodes = new_nodes_allowed.min(needed);
        if up_count + new_nodes < needed {
            return None;
        }
        let mut chosen = std::mem::take(&mut self.chosen);
        chosen.clear();
        let mut shadow_h = now_h;
        if whole > 0 {
            let level = self.level(gpus_per_node, nodes);
            chosen.extend(
                self.levels[level]
                    .candidates(now_h, new_nodes)
                    .take(whole as usize),
            );
            assert_eq!(
                chosen.len(),
                whole as usize,
                "enough nodes for the whole part"
            );
            shadow_h = chosen[whole as usize - 1].0;
        }
        if rest > 0 {
            let level = self.level(rest, nodes);
            let new_taken = chosen.iter().filter(|c| c.1.is_none()).count();
            let mut new_seen = 0;
            let last = self.levels[level]
                .candidates(now_h, new_nodes)
                .find(|c| match c.1 {
                    // New nodes are interchangeable: skip as many as the whole part took.
                    None => {
                        new_seen += 1;
                        new_seen > new_taken
                    }
                    Some(index) => !chosen.iter().any(|d| d.1 == Some(index)),
                })
                .expect("enough nodes for the rest");
            shadow_h = shadow_h.max(last.0);
            chosen.push(last);
        }
        let mut reservation = Reservation {
            shadow_h,
            spare: Vec::with_capacity(chosen.len()),
            new_nodes: 0,
            extra_gpus: 0,
        };
        for (i, (_, node)) in chosen.iter().enumerate() {
            let need = if i < whole as usize {
                gpus_per_node
            } else {
                rest
            };
            match node {
                Some(index) => {
                    let free = free_at(&nodes[*index as usize], shadow_h);
                    assert!(
                        free >= need,
                        "the reserved node has room at the shadow time"
                    );
                    reservation.spare.push((*index, free - need));
                }
                None => reservation.new_nodes += 1,
            }
        }
        self.chosen = chosen;
        Some(reservation)
    }

    /// The specification's `spread` reservation for a gang of `gpus`.
    pub fn spread(
        &mut self,
        nodes: &[Node],
        gpus_per_node: u32,
        gpus: u32,
        new_nodes_allowed: u32,
        now_h: f64,
    ) -> Option<Reservation> {
        if self.bag.is_none() {
            let mut bag = Bag::default();
            for (index, node) in nodes.iter().enumerate() {
                bag.update(index as u32, node);
            }
            self.bag = Some(bag);
        }
        let bag = self.bag.as_mut().expect("built above");
        bag.sync(nodes);
        let new_gpus = u64::from(new_nodes_allowed) * u64::from(gpus_per_node);
        bag.reserve(u64::from(gpus), new_gpus, now_h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_keys_order_as_times() {
        let times = [
            f64::NEG_INFINITY,
            -2.5,
            -0.0,
            0.0,
            1e-300,
            0.25,
            3.0,
            1e300,
            f64::INFINITY,
        ];
        for pair in times.windows(2) {
            assert!(time_key(pair[0]) < time_key(pair[1]), "{pair:?}");
        }
        for t in times {
            assert_eq!(key_time(time_key(t)).to_bits(), t.to_bits());
        }
    }

    #[test]
    fn the_min_tree_finds_the_first_slot_within_a_limit() {
        let mut tree = MinTree::new();
        let values = [5.0, 3.0, 9.0, 1.0, 7.0, 2.0];
        for (slot, value) in values.iter().enumerate() {
            tree.set(slot, *value);
        }
        assert_eq!(tree.first_at_most(0, 3.0), Some(1));
        assert_eq!(tree.first_at_most(2, 3.0), Some(3));
        assert_eq!(tree.first_at_most(4, 3.0), Some(5));
        assert_eq!(tree.first_at_most(6, 100.0), None);
        assert_eq!(tree.first_at_most(0, 0.5), None);
        tree.set(3, f64::INFINITY);
        assert_eq!(tree.first_at_most(2, 3.0), Some(5));
        // Growing keeps what was set.
        tree.set(40, 0.0);
        assert_eq!(tree.first_at_most(0, 3.0), Some(1));
        assert_eq!(tree.first_at_most(6, 3.0), Some(40));
        assert_eq!(tree.first_at_most(41, 1e300), None);
    }

    proptest::proptest! {
        /// After any changes, every inner entry of the tree is the minimum of its two children
        /// (a change stops climbing where an ancestor keeps its minimum), and searches answer
        /// as a scan of the values does.
        #[test]
        fn the_min_tree_answers_as_a_scan_after_any_changes(
            changes in proptest::collection::vec((0usize..70, 0u8..6), 1..120),
            // Searches are for times (finite): unused slots hold infinity.
            queries in proptest::collection::vec((0usize..72, 0u8..5), 1..20),
        ) {
            let mut tree = MinTree::new();
            let mut values: Vec<f64> = Vec::new();
            // Few distinct values, so that changes often leave a minimum as it was.
            let value = |v: u8| if v == 5 { f64::INFINITY } else { f64::from(v) };
            for (slot, v) in changes {
                tree.set(slot, value(v));
                if slot >= values.len() {
                    values.resize(slot + 1, f64::INFINITY);
                }
                values[slot] = value(v);
                for i in 1..tree.leaves {
                    proptest::prop_assert_eq!(tree.min[i], tree.min[2 * i].min(tree.min[2 * i + 1]));
                }
            }
            for (from, limit) in queries {
                let limit = value(limit);
                let scanned = (from..values.len()).find(|&slot| values[slot] <= limit);
                proptest::prop_assert_eq!(tree.first_at_most(from, limit), scanned);
            }
        }
    }
}
