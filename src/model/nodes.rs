//! The nodes of one pool and which of their GPUs are free.
//!
//! Up nodes are kept in buckets by their number of free GPUs, so a gang finds its GPUs in
//! O(GPUs per node) steps whatever the pool's size: whole empty nodes for the multiples of a
//! node, then the fullest node that still fits the rest (best fit keeps nodes whole for later
//! gangs and lets idle elastic nodes drain).

/// A node's place in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeState {
    /// Not (or no longer) part of the pool: not bought yet, out of term, released.
    Absent,
    /// Working (or, for elastic nodes, being provisioned until `ready_h`).
    Up,
    /// Failed, under repair.
    Down,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub state: NodeState,
    pub free_gpus: u32,
    /// Bumped whenever the slot is given to a new node, so events about an old one go stale.
    pub life: u32,
    /// Bumped whenever a job takes GPUs here, so pending idle timeouts go stale.
    pub idle_epoch: u32,
    /// When the node was requested and when it is ready, hours (elastic nodes).
    pub requested_h: f64,
    pub ready_h: f64,
    /// Job slots running (or about to run) on this node.
    pub jobs: Vec<u32>,
    bucket_pos: u32,
    up_pos: u32,
}

/// All node slots of a pool, with the up ones indexed by free GPUs.
#[derive(Debug, Clone)]
pub struct NodeSet {
    pub gpus_per_node: u32,
    pub nodes: Vec<Node>,
    /// Slots of absent nodes that may be reused (elastic pools).
    vacant: Vec<u32>,
    /// `by_free[k]`: up nodes with exactly `k` free GPUs (k >= 1).
    by_free: Vec<Vec<u32>>,
    /// All up nodes.
    up: Vec<u32>,
    /// Free GPUs over all up nodes.
    pub free_gpus: u64,
}

const NOWHERE: u32 = u32::MAX;

impl NodeSet {
    pub fn new(gpus_per_node: u32) -> Self {
        assert!(gpus_per_node > 0, "a node has GPUs");
        Self {
            gpus_per_node,
            nodes: Vec::new(),
            vacant: Vec::new(),
            by_free: vec![Vec::new(); gpus_per_node as usize + 1],
            up: Vec::new(),
            free_gpus: 0,
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
            jobs: Vec::new(),
            bucket_pos: NOWHERE,
            up_pos: NOWHERE,
        });
        self.nodes.len() as u32 - 1
    }

    /// Makes a node up with all its GPUs free.
    pub fn bring_up(&mut self, index: u32) {
        let node = &mut self.nodes[index as usize];
        assert!(node.state != NodeState::Up, "node {index} is already up");
        assert!(
            node.jobs.is_empty(),
            "node {index} comes up with jobs on it"
        );
        node.state = NodeState::Up;
        node.free_gpus = self.gpus_per_node;
        node.up_pos = self.up.len() as u32;
        self.up.push(index);
        self.free_gpus += u64::from(self.gpus_per_node);
        self.insert_bucket(index);
    }

    /// Takes a node out of service (failed, or absent). Its jobs must have been moved off.
    pub fn take_down(&mut self, index: u32, state: NodeState) {
        assert!(state != NodeState::Up, "taking a node down to up");
        let node = &self.nodes[index as usize];
        assert!(node.state == NodeState::Up, "node {index} is not up");
        assert!(node.jobs.is_empty(), "node {index} still has jobs");
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
        let node = &mut self.nodes[index as usize];
        node.up_pos = NOWHERE;
        node.free_gpus = 0;
        node.state = state;
        if state == NodeState::Absent {
            self.vacant.push(index);
        }
    }

    /// Takes `gpus` free GPUs for job `job`, appending `(node, gpus)` pieces to `alloc`.
    /// The caller has checked that enough GPUs are free.
    pub fn allocate(&mut self, gpus: u32, job: u32, alloc: &mut Vec<(u32, u32)>) {
        assert!(
            u64::from(gpus) <= self.free_gpus,
            "allocating more GPUs than are free"
        );
        let per_node = self.gpus_per_node;
        let mut need = gpus;
        while need > 0 {
            let bucket = if need >= per_node {
                // A whole empty node, else the fullest partial ones from the largest.
                (1..=per_node)
                    .rev()
                    .find(|k| !self.by_free[*k as usize].is_empty())
            } else {
                (need..=per_node)
                    .find(|k| !self.by_free[*k as usize].is_empty())
                    .or_else(|| {
                        (1..need)
                            .rev()
                            .find(|k| !self.by_free[*k as usize].is_empty())
                    })
            }
            .expect("enough free GPUs");
            let index = *self.by_free[bucket as usize]
                .last()
                .expect("non-empty bucket");
            let take = need.min(bucket);
            self.remove_bucket(index);
            let node = &mut self.nodes[index as usize];
            node.free_gpus -= take;
            node.idle_epoch = node.idle_epoch.wrapping_add(1);
            node.jobs.push(job);
            self.free_gpus -= u64::from(take);
            self.insert_bucket(index);
            alloc.push((index, take));
            need -= take;
        }
    }

    /// Gives back the GPUs of `job` on `node`. Returns true when the node became idle.
    pub fn release(&mut self, index: u32, gpus: u32, job: u32) -> bool {
        let node = &mut self.nodes[index as usize];
        assert!(
            node.state == NodeState::Up,
            "releasing GPUs on node {index} that is not up"
        );
        let pos = node
            .jobs
            .iter()
            .position(|j| *j == job)
            .expect("job is on the node");
        node.jobs.swap_remove(pos);
        self.remove_bucket(index);
        let node = &mut self.nodes[index as usize];
        node.free_gpus += gpus;
        assert!(
            node.free_gpus <= self.gpus_per_node,
            "node {index} has too many free GPUs"
        );
        self.free_gpus += u64::from(gpus);
        self.insert_bucket(index);
        self.nodes[index as usize].free_gpus == self.gpus_per_node
    }

    fn insert_bucket(&mut self, index: u32) {
        let free = self.nodes[index as usize].free_gpus as usize;
        if free == 0 {
            self.nodes[index as usize].bucket_pos = NOWHERE;
            return;
        }
        self.nodes[index as usize].bucket_pos = self.by_free[free].len() as u32;
        self.by_free[free].push(index);
    }

    fn remove_bucket(&mut self, index: u32) {
        let node = &self.nodes[index as usize];
        if node.bucket_pos == NOWHERE {
            return;
        }
        let (free, pos) = (node.free_gpus as usize, node.bucket_pos as usize);
        let bucket = &mut self.by_free[free];
        bucket.swap_remove(pos);
        if let Some(moved) = bucket.get(pos) {
            self.nodes[*moved as usize].bucket_pos = pos as u32;
        }
        self.nodes[index as usize].bucket_pos = NOWHERE;
    }

    /// Checks the indexes against the nodes (tests and debug builds).
    pub fn check(&self) {
        let mut free = 0;
        for (index, node) in self.nodes.iter().enumerate() {
            if node.state == NodeState::Up {
                free += u64::from(node.free_gpus);
                assert_eq!(self.up[node.up_pos as usize], index as u32);
                if node.free_gpus > 0 {
                    assert_eq!(
                        self.by_free[node.free_gpus as usize][node.bucket_pos as usize],
                        index as u32
                    );
                }
            }
        }
        assert_eq!(free, self.free_gpus);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(nodes: u32, per_node: u32) -> NodeSet {
        let mut set = NodeSet::new(per_node);
        for _ in 0..nodes {
            let index = set.add_slot();
            set.bring_up(index);
        }
        set
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
    fn gangs_span_fragments_when_no_node_is_whole() {
        let mut set = pool(2, 4);
        let mut alloc = vec![];
        set.allocate(2, 0, &mut alloc);
        set.allocate(2, 1, &mut alloc);
        // Two nodes with 2 free each... or one full node and one empty, depending on best fit.
        alloc.clear();
        set.allocate(4, 2, &mut alloc);
        assert_eq!(alloc.iter().map(|(_, g)| g).sum::<u32>(), 4);
        assert_eq!(set.free_gpus, 0);
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
