//! One node of a pool: its state, its free GPUs and what holds the others until when. The
//! data that both a pool's [`NodeSet`](super::nodes::NodeSet) and its
//! [`FreeTimes`](super::free_times::FreeTimes) index read.

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
    /// What holds GPUs here (jobs running or about to run, service replicas and holds), in
    /// order of their planned ends.
    pub taken: Vec<Taken>,
    /// Its place in its pool's list of up nodes (kept by `NodeSet`).
    pub(super) up_pos: u32,
}

/// GPUs of a node held by one job slot (or a service's), until a planned end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Taken {
    pub holder: u32,
    pub gpus: u32,
    /// Hours; infinite for service replicas and holds.
    pub end_h: f64,
}
