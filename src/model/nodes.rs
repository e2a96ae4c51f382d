//! The nodes of one pool and which of their GPUs are free.
//!
//! Up nodes are kept in buckets by their number of free GPUs, so a gang finds its GPUs in
//! O(GPUs per node) steps whatever the pool's size. Placing a gang is two steps: [`NodeSet::plan`]
//! says where it would go (and how many new nodes an elastic pool would need), without
//! changing anything; [`NodeSet::commit`] takes the GPUs. Each holder of GPUs comes with its
//! planned end, so that [`NodeSet::reserve`] finds EASY backfill's reservation from an index
//! kept up to date ([`super::free_times`]) instead of walking the pool.

use super::free_times::{FreeTimes, Reservation};
pub use super::node::{Node, NodeState, Taken};
use crate::scenario::Placement;

/// All node slots of a pool, with the up ones indexed by free GPUs.
#[derive(Debug, Clone)]
pub struct NodeSet {
    pub gpus_per_node: u32,
    pub placement: Placement,
    /// Bumped at every change of the nodes or of their free GPUs: equal counts, equal pool.
    pub changes: u64,
    /// Bumped whenever the pool may have more room than before (GPUs given back, a node up,
    /// a node gone from under `max_nodes`); taking GPUs leaves it, as room only shrinks then.
    pub room_grew: u64,
    /// `grew_to[k]`: bumped whenever a node comes to have `k` free GPUs or more from fewer (or
    /// the pool's room grows for every gang: a node up, or one gone from under `max_nodes`),
    /// for `k` in `1..=gpus_per_node`. See [`NodeSet::room_for`].
    grew_to: Vec<u64>,
    pub nodes: Vec<Node>,
    /// Slots of absent nodes that may be reused (elastic pools).
    vacant: Vec<u32>,
    /// `by_free[k]`: up nodes with exactly `k` free GPUs (k >= 1), by index.
    by_free: Vec<NodeBits>,
    /// All up nodes.
    up: Vec<u32>,
    /// Free GPUs over all up nodes.
    pub free_gpus: u64,
    /// When nodes will have GPUs free: built on the first reservation asked of this pool.
    free_times: Option<Box<FreeTimes>>,
    /// The latest `ready_h` any node was given: from then on every node is ready.
    ready_by_h: f64,
}

const NOWHERE: u32 = u32::MAX;

/// A set of node indices, iterated in increasing order: a bit per node, and a summary bit per
/// 64 nodes, so that finding the first member skips empty stretches of a large pool.
#[derive(Debug, Clone, Default)]
pub struct NodeBits {
    words: Vec<u64>,
    /// Bit `w` set: `words[w]` is not zero.
    summary: Vec<u64>,
    /// Members.
    len: u32,
}

impl NodeBits {
    pub fn insert(&mut self, index: u32) {
        let (w, b) = (index as usize / 64, index % 64);
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
            self.summary.resize(self.words.len().div_ceil(64), 0);
        }
        self.len += u32::from(self.words[w] & 1 << b == 0);
        self.words[w] |= 1 << b;
        self.summary[w / 64] |= 1 << (w % 64);
    }

    pub fn remove(&mut self, index: u32) {
        let (w, b) = (index as usize / 64, index % 64);
        self.len -= u32::from(self.words[w] & 1 << b != 0);
        self.words[w] &= !(1 << b);
        if self.words[w] == 0 {
            self.summary[w / 64] &= !(1 << (w % 64));
        }
    }

    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn contains(&self, index: u32) -> bool {
        let w = index as usize / 64;
        w < self.words.len() && self.words[w] & (1 << (index % 64)) != 0
    }

    /// The first member at or after `from`: the rest of its word, then the summary's next
    /// non-empty word.
    pub fn first_from(&self, from: u32) -> Option<u32> {
        let w = from as usize / 64;
        let word = *self.words.get(w)? & (u64::MAX << (from % 64));
        if word != 0 {
            return Some(w as u32 * 64 + word.trailing_zeros());
        }
        let next = w + 1;
        let mut s = next / 64;
        let mut summary = *self.summary.get(s)? & u64::MAX << (next % 64);
        loop {
            if summary != 0 {
                let w = s * 64 + summary.trailing_zeros() as usize;
                return Some(w as u32 * 64 + self.words[w].trailing_zeros());
            }
            s += 1;
            summary = *self.summary.get(s)?;
        }
    }

    /// Members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        bits(&self.summary).flat_map(move |w| {
            bits(std::slice::from_ref(&self.words[w as usize])).map(move |b| w * 64 + b)
        })
    }
}

/// The positions of the set bits of `words`, in increasing order.
fn bits(words: &[u64]) -> impl Iterator<Item = u32> + '_ {
    words.iter().enumerate().flat_map(|(w, &word)| {
        let mut rest = word;
        std::iter::from_fn(move || {
            if rest == 0 {
                return None;
            }
            let b = rest.trailing_zeros();
            rest &= rest - 1;
            Some(w as u32 * 64 + b)
        })
    })
}

/// Where a gang would go (see [`NodeSet::plan`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GangPlan {
    /// `(node, GPUs)` on up nodes.
    pub pieces: Vec<(u32, u32)>,
    /// GPUs on each new node an elastic pool would have to request.
    pub new_nodes: Vec<u32>,
}

impl GangPlan {
    pub fn clear(&mut self) {
        self.pieces.clear();
        self.new_nodes.clear();
    }
    /// Nodes the gang spans.
    pub fn nodes(&self) -> usize {
        self.pieces.len() + self.new_nodes.len()
    }
}

impl NodeSet {
    pub fn new(gpus_per_node: u32, placement: Placement) -> Self {
        assert!(gpus_per_node > 0, "a node has GPUs");
        Self {
            gpus_per_node,
            placement,
            changes: 0,
            room_grew: 0,
            grew_to: vec![0; gpus_per_node as usize + 1],
            nodes: Vec::new(),
            vacant: Vec::new(),
            by_free: vec![NodeBits::default(); gpus_per_node as usize + 1],
            up: Vec::new(),
            free_gpus: 0,
            free_times: None,
            ready_by_h: 0.0,
        }
    }

    /// Up nodes (working or being provisioned).
    pub fn up_nodes(&self) -> &[u32] {
        &self.up
    }

    pub fn up_count(&self) -> u32 {
        self.up.len() as u32
    }

    /// Adds an absent node (a fresh slot or a vacant one) and returns its index. It stays
    /// absent until [`NodeSet::bring_up`].
    pub fn add_slot(&mut self) -> u32 {
        if let Some(index) = self.vacant.pop() {
            let node = &mut self.nodes[index as usize];
            node.life = node.life.wrapping_add(1);
            return index;
        }
        self.nodes.push(Node {
            state: NodeState::Absent,
            free_gpus: 0,
            life: 0,
            idle_epoch: 0,
            requested_h: 0.0,
            ready_h: 0.0,
            taken: Vec::new(),
            up_pos: NOWHERE,
        });
        self.nodes.len() as u32 - 1
    }

    /// Makes a node up with all its GPUs free.
    pub fn bring_up(&mut self, index: u32) {
        let node = &mut self.nodes[index as usize];
        assert!(node.state != NodeState::Up, "node {index} is already up");
        assert!(
            node.taken.is_empty(),
            "node {index} comes up with jobs on it"
        );
        node.state = NodeState::Up;
        node.free_gpus = self.gpus_per_node;
        self.changes += 1;
        self.room_grew += 1;
        self.grew_for_every_gang();
        let node = &mut self.nodes[index as usize];
        node.up_pos = self.up.len() as u32;
        self.up.push(index);
        self.free_gpus += u64::from(self.gpus_per_node);
        self.insert_bucket(index);
        self.touch(index);
    }

    /// The pool's room grew for gangs of every size.
    fn grew_for_every_gang(&mut self) {
        for grew in &mut self.grew_to {
            *grew += 1;
        }
    }

    /// A count that stays the same while the pool gets no room a gang of `gpus` could use:
    /// under `node_local`, a node with at least the gang's rest on one node free (`gpus` modulo
    /// the node, if any) or a whole free node (if the gang has whole nodes); under `spread`,
    /// any GPU given back. It only counts up, so sums of it over pools compare too.
    pub fn room_for(&self, gpus: u32) -> u64 {
        let per_node = self.gpus_per_node;
        match self.placement {
            Placement::Spread => self.room_grew,
            Placement::NodeLocal => {
                let (whole, rest) = (gpus / per_node, gpus % per_node);
                let mut count = 0;
                if whole > 0 {
                    count += self.grew_to[per_node as usize];
                }
                if rest > 0 {
                    count += self.grew_to[rest as usize];
                }
                count
            }
        }
    }

    /// A node's outlook changed: the index of free times must look at it again.
    fn touch(&mut self, index: u32) {
        if let Some(free_times) = &mut self.free_times {
            free_times.touch(index);
        }
    }

    /// Sets when an elastic node was requested and when it is ready.
    pub fn set_times(&mut self, index: u32, requested_h: f64, ready_h: f64) {
        let node = &mut self.nodes[index as usize];
        node.requested_h = requested_h;
        node.ready_h = ready_h;
        self.ready_by_h = self.ready_by_h.max(ready_h);
        self.touch(index);
    }

    /// EASY backfill's reservation on this pool for a blocked gang of `gpus` (see
    /// `model::reservation`, the tests' specification, for what it means), or None if its nodes plus
    /// `new_nodes_allowed` new ones can never hold it.
    pub fn reserve(
        &mut self,
        gpus: u32,
        new_nodes_allowed: u32,
        now_h: f64,
    ) -> Option<Reservation> {
        let up_count = self.up_count();
        let free_times = self.free_times.get_or_insert_with(Box::default);
        match self.placement {
            Placement::NodeLocal => free_times.node_local(
                &self.nodes,
                up_count,
                self.gpus_per_node,
                gpus,
                new_nodes_allowed,
                now_h,
            ),
            Placement::Spread => free_times.spread(
                &self.nodes,
                self.gpus_per_node,
                gpus,
                new_nodes_allowed,
                now_h,
            ),
        }
    }

    /// Takes a node out of service (failed, or absent). Its jobs must have been moved off.
    pub fn take_down(&mut self, index: u32, state: NodeState) {
        assert!(state != NodeState::Up, "taking a node down to up");
        let node = &self.nodes[index as usize];
        assert!(node.state == NodeState::Up, "node {index} is not up");
        assert!(node.taken.is_empty(), "node {index} still has jobs");
        assert!(
            node.free_gpus == self.gpus_per_node,
            "node {index} still has GPUs in use"
        );
        let up_pos = node.up_pos as usize;
        self.remove_bucket(index);
        self.up.swap_remove(up_pos);
        if let Some(moved) = self.up.get(up_pos) {
            self.nodes[*moved as usize].up_pos = up_pos as u32;
        }
        self.free_gpus -= u64::from(self.gpus_per_node);
        self.changes += 1;
        self.room_grew += 1;
        self.grew_for_every_gang();
        let node = &mut self.nodes[index as usize];
        node.up_pos = NOWHERE;
        node.free_gpus = 0;
        node.state = state;
        if state == NodeState::Absent {
            self.vacant.push(index);
        }
        self.touch(index);
    }

    /// Where a gang of `gpus` GPUs would go now: pieces on up nodes and, for what they
    /// cannot hold, GPUs on new nodes still to be requested. `spare` limits the listed nodes
    /// to that many of their free GPUs (a reservation's holds); other nodes are unrestricted.
    ///
    /// `NodeLocal`: whole empty nodes for each multiple of a node, then the rest on one node,
    /// the fullest that fits (best fit keeps nodes whole for later gangs and lets idle elastic
    /// nodes drain). `Spread`: whole empty nodes while a node's worth is needed, then the
    /// fullest partial node that fits the rest, else the fullest partial nodes from the
    /// largest. Among equally free nodes, the lowest-numbered first.
    pub fn plan(&self, gpus: u32, spare: &[(u32, u32)], plan: &mut GangPlan) {
        plan.clear();
        match self.placement {
            Placement::NodeLocal => self.plan_node_local(gpus, spare, plan),
            Placement::Spread => self.plan_spread(gpus, spare, plan),
        }
        debug_assert_eq!(
            plan.pieces.iter().map(|p| p.1).sum::<u32>() + plan.new_nodes.iter().sum::<u32>(),
            gpus
        );
    }

    /// When and on how many nodes a gang of `gpus` that needs no new node would start, where
    /// that is known without [`NodeSet::plan`]: node-local placement gives it one node per
    /// node's worth of GPUs (and one for the rest), and once every node is ready it starts now.
    pub fn start_unplanned(&self, gpus: u32, now_h: f64) -> Option<(f64, usize)> {
        (self.placement == Placement::NodeLocal && self.ready_by_h <= now_h)
            .then(|| (now_h, gpus.div_ceil(self.gpus_per_node) as usize))
    }

    /// How many new nodes [`NodeSet::plan`] would ask for a gang of `gpus` with no GPUs held,
    /// counted from the buckets alone (so a pool that has no room says so in O(GPUs per node)).
    pub fn new_nodes_needed(&self, gpus: u32) -> u32 {
        let per_node = self.gpus_per_node;
        match self.placement {
            Placement::NodeLocal => {
                let (whole, rest) = (gpus / per_node, gpus % per_node);
                let empty = self.by_free[per_node as usize].len();
                let rest_fits = rest == 0
                    || empty > whole
                    || (rest..per_node).any(|free| !self.by_free[free as usize].is_empty());
                whole.saturating_sub(empty) + u32::from(!rest_fits)
            }
            Placement::Spread => {
                let short = u64::from(gpus).saturating_sub(self.free_gpus);
                short.div_ceil(u64::from(per_node)) as u32
            }
        }
    }

    /// Free GPUs of `node` a gang may take under `spare`.
    fn usable(&self, index: u32, spare: &[(u32, u32)]) -> u32 {
        let free = self.nodes[index as usize].free_gpus;
        spare
            .iter()
            .find(|(node, _)| *node == index)
            .map_or(free, |(_, spare)| free.min(*spare))
    }

    /// The first node (by index) of bucket `free` not yet in `plan` with at least `need`
    /// usable GPUs.
    fn pick(&self, free: u32, need: u32, spare: &[(u32, u32)], plan: &GangPlan) -> Option<u32> {
        let bucket = &self.by_free[free as usize];
        // Most buckets of a busy pool are empty: no search through their summary words.
        if bucket.is_empty() {
            return None;
        }
        let mut next = bucket.first_from(0);
        while let Some(node) = next {
            if !plan.pieces.iter().any(|(p, _)| *p == node) && self.usable(node, spare) >= need {
                return Some(node);
            }
            next = bucket.first_from(node + 1);
        }
        None
    }

    /// [`Self::pick`] for the loops over buckets, which ask up to one per GPU count of a node:
    /// an empty bucket is told without a call. (`pick` keeps its own test for the single ask
    /// for a whole node: inline there too, it gave the M/M/c 0.2 % more instructions.)
    #[inline]
    fn pick_any(&self, free: u32, need: u32, spare: &[(u32, u32)], plan: &GangPlan) -> Option<u32> {
        if self.by_free[free as usize].is_empty() {
            return None;
        }
        self.pick(free, need, spare, plan)
    }

    fn plan_node_local(&self, gpus: u32, spare: &[(u32, u32)], plan: &mut GangPlan) {
        let per_node = self.gpus_per_node;
        for _ in 0..gpus / per_node {
            match self.pick(per_node, per_node, spare, plan) {
                Some(node) => plan.pieces.push((node, per_node)),
                None => plan.new_nodes.push(per_node),
            }
        }
        let rest = gpus % per_node;
        if rest > 0 {
            match (rest..=per_node).find_map(|free| self.pick_any(free, rest, spare, plan)) {
                Some(node) => plan.pieces.push((node, rest)),
                None => plan.new_nodes.push(rest),
            }
        }
    }

    fn plan_spread(&self, gpus: u32, spare: &[(u32, u32)], plan: &mut GangPlan) {
        let per_node = self.gpus_per_node;
        let mut need = gpus;
        while need > 0 {
            let whole = need >= per_node;
            // A whole empty node, else the fullest partial ones from the largest; for a rest
            // smaller than a node, the fullest node that fits it, else the largest partial.
            let found = if whole {
                (1..=per_node)
                    .rev()
                    .find_map(|k| self.pick_any(k, 1, spare, plan))
            } else {
                (need..=per_node)
                    .find_map(|k| self.pick_any(k, need, spare, plan))
                    .or_else(|| {
                        (1..need)
                            .rev()
                            .find_map(|k| self.pick_any(k, 1, spare, plan))
                    })
            };
            let Some(node) = found else { break };
            let take = need.min(self.usable(node, spare));
            plan.pieces.push((node, take));
            need -= take;
        }
        while need > 0 {
            let take = need.min(per_node);
            plan.new_nodes.push(take);
            need -= take;
        }
    }

    /// Gives job `job`, planned to end at `end_h`, the GPUs of `plan`: its pieces, and its new
    /// nodes on `new_indexes` (just brought up, in order). Appends `(node, gpus)` to `alloc`.
    pub fn commit(
        &mut self,
        plan: &GangPlan,
        new_indexes: &[u32],
        job: u32,
        end_h: f64,
        alloc: &mut Vec<(u32, u32)>,
    ) {
        assert_eq!(
            new_indexes.len(),
            plan.new_nodes.len(),
            "one new node per planned new node"
        );
        let new = new_indexes
            .iter()
            .copied()
            .zip(plan.new_nodes.iter().copied());
        for (index, take) in plan.pieces.iter().copied().chain(new) {
            self.take_gpus(index, take, job, end_h);
            alloc.push((index, take));
        }
    }

    fn take_gpus(&mut self, index: u32, take: u32, job: u32, end_h: f64) {
        let node = &self.nodes[index as usize];
        assert!(
            node.state == NodeState::Up,
            "taking GPUs of node {index} that is not up"
        );
        assert!(
            take <= node.free_gpus,
            "taking more GPUs than node {index} has free"
        );
        self.remove_bucket(index);
        let node = &mut self.nodes[index as usize];
        node.free_gpus -= take;
        node.idle_epoch = node.idle_epoch.wrapping_add(1);
        let at = node.taken.partition_point(|t| t.end_h <= end_h);
        let taken = Taken {
            holder: job,
            gpus: take,
            end_h,
        };
        node.taken.insert(at, taken);
        self.free_gpus -= u64::from(take);
        self.changes += 1;
        self.insert_bucket(index);
        self.touch(index);
    }

    /// The fullest up node with at least `gpus` free GPUs (lowest-numbered among equally
    /// free ones), for what must run on one node whatever the placement (a service replica).
    pub fn best_fit(&self, gpus: u32) -> Option<u32> {
        (gpus.max(1)..=self.gpus_per_node)
            .find_map(|free| self.by_free[free as usize].first_from(0))
    }

    /// Takes `gpus` free GPUs of node `index` for `holder` (a service's replica or hold:
    /// no planned end).
    pub fn take(&mut self, index: u32, gpus: u32, holder: u32) {
        self.take_gpus(index, gpus, holder, f64::INFINITY);
    }

    /// Plans and commits a gang that fits the up nodes now (tests).
    pub fn allocate(&mut self, gpus: u32, job: u32, alloc: &mut Vec<(u32, u32)>) {
        let mut plan = GangPlan::default();
        self.plan(gpus, &[], &mut plan);
        assert!(plan.new_nodes.is_empty(), "the gang fits the up nodes");
        self.commit(&plan, &[], job, f64::INFINITY, alloc);
    }

    /// Gives back the GPUs of `job` on `node`. Returns true when the node became idle.
    pub fn release(&mut self, index: u32, gpus: u32, job: u32) -> bool {
        let node = &mut self.nodes[index as usize];
        assert!(
            node.state == NodeState::Up,
            "releasing GPUs on node {index} that is not up"
        );
        let pos = node
            .taken
            .iter()
            .position(|t| t.holder == job)
            .expect("job is on the node");
        // Most often the job is the node's only holder: a pop moves nothing.
        let held = if pos + 1 == node.taken.len() {
            node.taken.pop().expect("job is on the node").gpus
        } else {
            node.taken.remove(pos).gpus
        };
        assert_eq!(
            held, gpus,
            "job {job} releases the GPUs it took on node {index}"
        );
        self.remove_bucket(index);
        let node = &mut self.nodes[index as usize];
        node.free_gpus += gpus;
        assert!(
            node.free_gpus <= self.gpus_per_node,
            "node {index} has too many free GPUs"
        );
        self.free_gpus += u64::from(gpus);
        self.changes += 1;
        self.room_grew += 1;
        let now_free = self.nodes[index as usize].free_gpus;
        for grew in &mut self.grew_to[(now_free - gpus + 1) as usize..=now_free as usize] {
            *grew += 1;
        }
        self.insert_bucket(index);
        self.touch(index);
        self.nodes[index as usize].free_gpus == self.gpus_per_node
    }

    fn insert_bucket(&mut self, index: u32) {
        let free = self.nodes[index as usize].free_gpus as usize;
        if free > 0 {
            self.by_free[free].insert(index);
        }
    }

    /// Before a node's free GPUs change (or it goes down): out of its bucket.
    fn remove_bucket(&mut self, index: u32) {
        let node = &self.nodes[index as usize];
        if node.state == NodeState::Up && node.free_gpus > 0 {
            self.by_free[node.free_gpus as usize].remove(index);
        }
    }

    /// Checks the indexes against the nodes (tests and debug builds).
    pub fn check(&self) {
        let mut free = 0;
        for (index, node) in self.nodes.iter().enumerate() {
            assert!(
                node.taken.is_sorted_by(|a, b| a.end_h <= b.end_h),
                "ends in order"
            );
            if node.state == NodeState::Up {
                let held: u32 = node.taken.iter().map(|t| t.gpus).sum();
                assert_eq!(
                    held + node.free_gpus,
                    self.gpus_per_node,
                    "node {index}'s GPUs"
                );
                free += u64::from(node.free_gpus);
                assert_eq!(self.up[node.up_pos as usize], index as u32);
                for (free, bucket) in self.by_free.iter().enumerate() {
                    assert_eq!(
                        bucket.contains(index as u32),
                        free > 0 && free == node.free_gpus as usize,
                        "node {index} in bucket {free}"
                    );
                }
            }
        }
        assert_eq!(free, self.free_gpus);
        for bucket in &self.by_free {
            assert_eq!(bucket.len() as usize, bucket.iter().count());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::reservation::{self, NodeOutlook};
    use proptest::prelude::*;

    /// What the specification answers for `set` now: its up nodes and their holders' ends.
    fn specified(
        set: &NodeSet,
        gpus: u32,
        new_nodes_allowed: u32,
        now_h: f64,
    ) -> Option<Reservation> {
        let (mut outlook, mut ends) = (Vec::new(), Vec::new());
        for &index in set.up_nodes() {
            let node = &set.nodes[index as usize];
            outlook.push(NodeOutlook {
                node: index,
                free_gpus: node.free_gpus,
                ready_h: node.ready_h,
                first: ends.len(),
                count: node.taken.len(),
            });
            ends.extend(node.taken.iter().map(|t| (t.end_h, t.gpus)));
        }
        reservation::reserve(
            gpus,
            set.gpus_per_node,
            set.placement,
            &outlook,
            &mut ends,
            new_nodes_allowed,
            now_h,
        )
    }

    #[derive(Debug, Clone)]
    enum Op {
        /// A node comes up, ready at a time (elastic nodes being provisioned).
        Up { ready_h: f64 },
        /// Some up node (the n-th, modulo) loses its holders and goes down.
        Down { nth: usize },
        /// Some up node takes GPUs for a holder planned to end at a time (infinite: a service).
        Take { nth: usize, gpus: u32, end_h: f64 },
        /// Some holder of some node gives its GPUs back.
        Release { nth: usize, which: usize },
        Query {
            gpus: u32,
            new_nodes_allowed: u32,
            now_h: f64,
        },
    }

    /// Times on a coarse grid, so that ties (between nodes, ends and now) are common.
    fn time() -> impl Strategy<Value = f64> {
        prop_oneof![
            8 => (0u32..24).prop_map(|t| f64::from(t) * 0.5),
            1 => Just(f64::INFINITY),
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            2 => (0u32..8).prop_map(|t| Op::Up { ready_h: f64::from(t) * 0.5 }),
            1 => any::<usize>().prop_map(|nth| Op::Down { nth }),
            6 => (any::<usize>(), 1u32..=8, time())
                .prop_map(|(nth, gpus, end_h)| Op::Take { nth, gpus, end_h }),
            3 => (any::<usize>(), any::<usize>()).prop_map(|(nth, which)| Op::Release { nth, which }),
            3 => (1u32..40, 0u32..4, (0u32..16).prop_map(|t| f64::from(t) * 0.5)).prop_map(
                |(gpus, new_nodes_allowed, now_h)| Op::Query { gpus, new_nodes_allowed, now_h }
            ),
        ]
    }

    fn release_all(set: &mut NodeSet, index: u32) {
        while let Some(&taken) = set.nodes[index as usize].taken.last() {
            set.release(index, taken.gpus, taken.holder);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Whatever happened to the pool, the index answers every query as the
        /// specification does, bit for bit.
        #[test]
        fn the_index_answers_as_the_specification(
            per_node in prop_oneof![Just(1u32), Just(2), Just(4), Just(8)],
            spread in any::<bool>(),
            ops in proptest::collection::vec(op(), 1..120),
        ) {
            let placement = if spread { Placement::Spread } else { Placement::NodeLocal };
            let mut set = NodeSet::new(per_node, placement);
            let mut holder = 0;
            for op in ops {
                if let Op::Query { gpus, new_nodes_allowed, now_h } = op {
                    let expected = specified(&set, gpus, new_nodes_allowed, now_h);
                    let found = set.reserve(gpus, new_nodes_allowed, now_h);
                    prop_assert_eq!(
                        format!("{found:?}"), format!("{expected:?}"),
                        "{} GPUs, {} new nodes allowed, at {} h", gpus, new_nodes_allowed, now_h
                    );
                }
                apply(&mut set, &op, &mut holder);
                set.check();
            }
        }

        /// Whatever happened to a node-local pool, when and on how many nodes a gang with room
        /// starts, where the model reads it without a plan, is what a plan says.
        #[test]
        fn a_start_read_without_a_plan_is_what_a_plan_says(
            per_node in prop_oneof![Just(1u32), Just(2), Just(4), Just(8)],
            ops in proptest::collection::vec(op(), 1..120),
        ) {
            let mut set = NodeSet::new(per_node, Placement::NodeLocal);
            let mut holder = 0;
            for op in ops {
                if let Op::Query { gpus, now_h, .. } = op {
                    let mut plan = GangPlan::default();
                    set.plan(gpus, &[], &mut plan);
                    if let (true, Some((start_h, nodes))) =
                        (plan.new_nodes.is_empty(), set.start_unplanned(gpus, now_h))
                    {
                        let ready_h = plan.pieces.iter().map(|(n, _)| set.nodes[*n as usize].ready_h);
                        prop_assert_eq!(start_h, ready_h.fold(now_h, f64::max));
                        prop_assert_eq!(nodes, plan.nodes());
                    }
                }
                apply(&mut set, &op, &mut holder);
            }
        }
    }

    /// Applies an operation of the property tests to the pool (a query changes nothing).
    fn apply(set: &mut NodeSet, op: &Op, holder: &mut u32) {
        let up: Vec<u32> = set.up_nodes().to_vec();
        match *op {
            Op::Up { ready_h } => {
                let index = set.add_slot();
                set.bring_up(index);
                set.set_times(index, 0.0, ready_h);
            }
            Op::Down { nth } if !up.is_empty() => {
                let index = up[nth % up.len()];
                release_all(set, index);
                set.take_down(index, NodeState::Down);
            }
            Op::Take { nth, gpus, end_h } if !up.is_empty() => {
                let index = up[nth % up.len()];
                let gpus = gpus.min(set.nodes[index as usize].free_gpus);
                if gpus > 0 {
                    let plan = GangPlan {
                        pieces: vec![(index, gpus)],
                        new_nodes: vec![],
                    };
                    *holder += 1;
                    set.commit(&plan, &[], *holder, end_h, &mut Vec::new());
                }
            }
            Op::Release { nth, which } if !up.is_empty() => {
                let index = up[nth % up.len()];
                let node = &set.nodes[index as usize];
                if !node.taken.is_empty() {
                    let taken = node.taken[which % node.taken.len()];
                    set.release(index, taken.gpus, taken.holder);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn node_bits_find_the_first_member_from_anywhere() {
        // Members spread over several words and summary words, with long empty stretches.
        let members = [0u32, 1, 63, 64, 200, 4095, 4096, 4160, 9000, 70_000];
        let mut bits = NodeBits::default();
        for m in members {
            bits.insert(m);
        }
        bits.insert(5);
        bits.remove(5);
        assert_eq!(bits.len(), members.len() as u32);
        assert_eq!(bits.iter().collect::<Vec<_>>(), members);
        for from in 0..70_010 {
            let expected = members.iter().copied().find(|m| *m >= from);
            assert_eq!(bits.first_from(from), expected, "from {from}");
        }
    }

    fn pool(nodes: u32, per_node: u32) -> NodeSet {
        pool_placed(nodes, per_node, Placement::NodeLocal)
    }

    fn pool_placed(nodes: u32, per_node: u32, placement: Placement) -> NodeSet {
        let mut set = NodeSet::new(per_node, placement);
        for _ in 0..nodes {
            let index = set.add_slot();
            set.bring_up(index);
        }
        set
    }

    #[test]
    fn room_for_a_gang_grows_only_with_room_it_could_use() {
        // One 8-GPU node, all taken by jobs of 5, 2 and 1 GPUs (slots 1, 2, 3).
        let mut set = pool(1, 8);
        let mut alloc = vec![];
        for (slot, gpus) in [(1, 5), (2, 2), (3, 1)] {
            set.allocate(gpus, slot, &mut alloc);
        }
        let counts = |set: &NodeSet| [1, 3, 4, 8, 12].map(|gpus| set.room_for(gpus));
        let start = counts(&set);
        // 0 -> 1 free: only a 1-GPU gang could use it.
        set.release(0, 1, 3);
        let one = counts(&set);
        assert_eq!(
            [0, 1, 2, 3, 4].map(|i| one[i] != start[i]),
            [true, false, false, false, false]
        );
        // 1 -> 3 free: new room for a gang of 3 only (1 had room already; 4, 8 and 12, a
        // whole node and a rest of 4, still have none).
        set.release(0, 2, 2);
        let three = counts(&set);
        assert_eq!(
            [0, 1, 2, 3, 4].map(|i| three[i] != one[i]),
            [false, true, false, false, false]
        );
        // 3 -> 8 free: new room for 4, 8 and 12.
        set.release(0, 5, 1);
        let eight = counts(&set);
        assert_eq!(
            [0, 1, 2, 3, 4].map(|i| eight[i] != three[i]),
            [false, false, true, true, true]
        );
        set.check();
        // Spread counts any GPU given back.
        let mut spread = pool_placed(1, 8, Placement::Spread);
        spread.allocate(8, 1, &mut alloc);
        let taken = spread.room_for(4);
        spread.release(0, 8, 1);
        assert_ne!(spread.room_for(4), taken);
    }

    #[test]
    fn small_jobs_pack_onto_partly_used_nodes() {
        let mut set = pool(3, 8);
        let mut alloc = vec![];
        set.allocate(3, 0, &mut alloc);
        let first = alloc[0].0;
        alloc.clear();
        set.allocate(4, 1, &mut alloc);
        assert_eq!(
            alloc,
            vec![(first, 4)],
            "best fit reuses the partly used node"
        );
        assert_eq!(set.free_gpus, 24 - 7);
        set.check();
    }

    #[test]
    fn gangs_take_whole_nodes_then_the_best_fitting_rest() {
        let mut set = pool(4, 8);
        let mut alloc = vec![];
        set.allocate(6, 0, &mut alloc); // Leaves a node with 2 free.
        alloc.clear();
        set.allocate(18, 1, &mut alloc);
        let sizes: Vec<u32> = alloc.iter().map(|(_, gpus)| *gpus).collect();
        assert_eq!(sizes, vec![8, 8, 2]);
        assert_eq!(set.free_gpus, 32 - 24);
        set.check();
        // Freeing returns GPUs and reports idle nodes.
        let idle: Vec<bool> = alloc
            .iter()
            .map(|(node, gpus)| set.release(*node, *gpus, 1))
            .collect();
        assert_eq!(idle, vec![true, true, false]);
        set.check();
    }

    #[test]
    fn spread_gangs_span_fragments_when_no_node_is_whole() {
        let mut set = pool_placed(2, 4, Placement::Spread);
        let mut alloc = vec![];
        set.allocate(2, 0, &mut alloc);
        let first = alloc[0].0;
        alloc.clear();
        // Best fit puts the second pair on the same node: one full, one empty.
        set.allocate(2, 1, &mut alloc);
        assert_eq!(alloc, vec![(first, 2)]);
        let other = 1 - first;
        alloc.clear();
        set.allocate(1, 2, &mut alloc);
        assert_eq!(alloc, vec![(other, 1)]);
        // 3 free on one node: a 3-GPU gang fits; then 1 GPU on each... spread takes pieces.
        let mut plan = GangPlan::default();
        set.plan(4, &[], &mut plan);
        assert_eq!(plan.pieces, vec![(other, 3)]);
        assert_eq!(plan.new_nodes, vec![1], "the missing GPU on a new node");
        set.check();
    }

    #[test]
    fn node_local_keeps_a_small_job_on_one_node() {
        // Two 4-GPU nodes with 2 free each: a 4-GPU job does not fit (spread would split it).
        let mut set = pool(2, 4);
        let mut alloc = vec![];
        set.allocate(2, 0, &mut alloc);
        let first = alloc[0].0;
        alloc.clear();
        let mut plan = GangPlan::default();
        set.plan(2, &[], &mut plan);
        assert_eq!(
            plan.pieces,
            vec![(first, 2)],
            "best fit: the partly used node"
        );
        // Take 2 on the other node instead, by holding the first.
        set.plan(2, &[(first, 0)], &mut plan);
        let second = 1 - first;
        assert_eq!(plan.pieces, vec![(second, 2)]);
        set.commit(&plan, &[], 1, f64::INFINITY, &mut alloc);
        set.plan(4, &[], &mut plan);
        assert!(plan.pieces.is_empty());
        assert_eq!(plan.new_nodes, vec![4], "one new node for the whole job");
        let mut spread = pool_placed(2, 4, Placement::Spread);
        spread.allocate(2, 0, &mut alloc);
        spread.plan(2, &[(first, 0)], &mut plan);
        spread.commit(&plan, &[], 1, f64::INFINITY, &mut alloc);
        spread.plan(4, &[], &mut plan);
        assert_eq!(plan.pieces.len(), 2, "spread splits it 2 + 2");
        set.check();
    }

    #[test]
    fn node_local_gangs_take_whole_nodes_and_one_node_for_the_rest() {
        // 4 nodes of 8; node a has 5 free, b has 3 free, c and d are empty. A 12-GPU gang:
        // one whole node (the last empty one) plus 4 on the fullest node that fits (a: 5).
        let mut set = pool(4, 8);
        let mut alloc = vec![];
        set.allocate(3, 0, &mut alloc);
        let a = alloc[0].0;
        alloc.clear();
        let mut plan = GangPlan::default();
        set.plan(5, &[(a, 0)], &mut plan);
        set.commit(&plan, &[], 1, f64::INFINITY, &mut alloc);
        let b = alloc[0].0;
        assert_ne!(a, b);
        set.plan(12, &[], &mut plan);
        assert_eq!(plan.pieces.len(), 2);
        assert_eq!(plan.pieces[0].1, 8);
        assert_eq!(plan.pieces[1], (a, 4));
        // 20 GPUs: two whole nodes and 4 on a; 24 needs a new node.
        set.plan(20, &[], &mut plan);
        assert_eq!((plan.pieces.len(), plan.new_nodes.len()), (3, 0));
        set.plan(24, &[], &mut plan);
        assert_eq!(plan.new_nodes, vec![8]);
        // Held: the empty nodes are spare for nothing, so 8 GPUs go to a new node.
        let holds: Vec<(u32, u32)> = set.by_free[8].iter().map(|n| (n, 0)).collect();
        set.plan(8, &holds, &mut plan);
        assert_eq!((plan.pieces.len(), plan.new_nodes.clone()), (0, vec![8]));
        set.check();
    }

    #[test]
    fn nodes_go_down_and_slots_are_reused() {
        let mut set = pool(2, 1);
        set.take_down(0, NodeState::Absent);
        assert_eq!(set.up_count(), 1);
        assert_eq!(set.free_gpus, 1);
        let life = set.nodes[0].life;
        let again = set.add_slot();
        assert_eq!(again, 0);
        assert_eq!(set.nodes[0].life, life + 1);
        set.bring_up(again);
        set.check();
        set.take_down(1, NodeState::Down);
        set.bring_up(1);
        set.check();
        assert_eq!(set.free_gpus, 2);
    }
}
