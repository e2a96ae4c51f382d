//! The specification of EASY backfill's reservation: when, and on which GPUs, the first job
//! that cannot start will start, from the planned ends of the jobs running on a pool. It walks
//! every node and run of the pool, so the model uses [`super::free_times`] instead, which keeps
//! the same answer up to date as jobs start and end; the tests compare the two.
//!
//! The scheduler is assumed to know every running job's remaining run time exactly (its
//! planned run: restore, work and checkpoint writes, as if users gave perfect time limits),
//! and nothing of the future: no preemption, failure, repair or end of a reserved term is
//! foreseen. Nodes under repair are left out; an elastic pool under `max_nodes` may count on
//! the nodes it may still request (as free from now).
//!
//! With `node_local` placement the reservation holds particular nodes (as Slurm's backfill
//! does): `whole` nodes for the multiples of a node and one node for the rest. A job that would
//! still run at the shadow time may take GPUs of those nodes only as far as they are spare
//! then. With `spread` placement the pool is one bag of GPUs and only a count is held: the
//! GPUs free at the shadow time beyond the gang's (EASY's "extra" processors).

use crate::scenario::Placement;

/// What a node offers a blocked gang over time.
#[derive(Debug, Clone, Copy)]
pub struct NodeOutlook {
    pub node: u32,
    /// GPUs free now (usable once the node is ready).
    pub free_gpus: u32,
    /// When the node is ready (now, unless it is being provisioned), hours.
    pub ready_h: f64,
    /// This node's run ends, `(end_h, GPUs)`, at `ends[first..first + count]` of the list
    /// given with it.
    pub first: usize,
    pub count: usize,
}

pub use super::free_times::Reservation;

/// The earliest reservation for a gang of `gpus` on a pool of `gpus_per_node`-GPU nodes, or
/// None if its nodes (plus `new_nodes_allowed` new ones) can never hold it.
/// `ends` holds every running job's pieces, `(end_h, GPUs on that node)`, sorted or not.
pub fn reserve(
    gpus: u32,
    gpus_per_node: u32,
    placement: Placement,
    nodes: &[NodeOutlook],
    ends: &mut [(f64, u32)],
    new_nodes_allowed: u32,
    now_h: f64,
) -> Option<Reservation> {
    for node in nodes {
        ends[node.first..node.first + node.count].sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    match placement {
        Placement::NodeLocal => {
            node_local(gpus, gpus_per_node, nodes, ends, new_nodes_allowed, now_h)
        }
        Placement::Spread => spread(gpus, gpus_per_node, nodes, ends, new_nodes_allowed, now_h),
    }
}

/// When `node` first has `need` GPUs free.
fn free_from_h(node: &NodeOutlook, ends: &[(f64, u32)], need: u32, now_h: f64) -> f64 {
    let mut free = node.free_gpus;
    let mut at_h = node.ready_h.max(now_h);
    for &(end_h, gpus) in &ends[node.first..node.first + node.count] {
        if free >= need {
            break;
        }
        free += gpus;
        at_h = at_h.max(end_h);
    }
    assert!(free >= need, "a node frees all its GPUs in the end");
    at_h
}

/// GPUs `node` has free at `at_h`.
fn free_at(node: &NodeOutlook, ends: &[(f64, u32)], at_h: f64) -> u32 {
    node.free_gpus
        + ends[node.first..node.first + node.count]
            .iter()
            .filter(|(end_h, _)| *end_h <= at_h)
            .map(|(_, gpus)| gpus)
            .sum::<u32>()
}

/// A candidate for the gang: an up node (`Some`) or a new one (`None`), with the time it can
/// give what is asked of it.
type Candidate = (f64, Option<u32>);

fn by_time(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    // Earliest first; up nodes before new ones; then by node index, so ties are deterministic.
    a.0.total_cmp(&b.0)
        .then(a.1.is_none().cmp(&b.1.is_none()))
        .then(a.1.cmp(&b.1))
}

fn node_local(
    gpus: u32,
    per_node: u32,
    nodes: &[NodeOutlook],
    ends: &[(f64, u32)],
    new_nodes_allowed: u32,
    now_h: f64,
) -> Option<Reservation> {
    let (whole, rest) = ((gpus / per_node) as usize, gpus % per_node);
    let needed = whole + usize::from(rest > 0);
    let new_nodes = (new_nodes_allowed as usize).min(needed);
    if nodes.len() + new_nodes < needed {
        return None;
    }
    let candidates = |need: u32| -> Vec<Candidate> {
        let mut list: Vec<Candidate> = nodes
            .iter()
            .map(|n| (free_from_h(n, ends, need, now_h), Some(n.node)))
            .chain(std::iter::repeat_n((now_h, None), new_nodes))
            .collect();
        list.sort_by(by_time);
        list
    };
    // The gang starts once `whole` nodes are empty and one more has `rest` free.
    let full = candidates(per_node);
    let mut shadow_h = if whole > 0 { full[whole - 1].0 } else { now_h };
    let mut chosen: Vec<Candidate> = full[..whole].to_vec();
    if rest > 0 {
        let partial = candidates(rest);
        let taken = |c: &Candidate| c.1.is_some() && chosen.iter().any(|d| d.1 == c.1);
        let new_taken = chosen.iter().filter(|c| c.1.is_none()).count();
        let mut new_seen = 0;
        let last = partial
            .iter()
            .filter(|c| {
                // New nodes are interchangeable: skip as many as the whole part took.
                if c.1.is_none() {
                    new_seen += 1;
                    return new_seen > new_taken;
                }
                !taken(c)
            })
            .copied()
            .next()
            .expect("enough nodes for the rest");
        shadow_h = shadow_h.max(last.0);
        chosen.push(last);
    }
    let mut reservation = Reservation {
        shadow_h,
        spare: Vec::new(),
        new_nodes: 0,
        extra_gpus: 0,
    };
    for (i, (_, node)) in chosen.iter().enumerate() {
        let need = if i < whole { per_node } else { rest };
        match node {
            Some(index) => {
                let outlook = nodes
                    .iter()
                    .find(|n| n.node == *index)
                    .expect("listed node");
                let free = free_at(outlook, ends, shadow_h);
                assert!(
                    free >= need,
                    "the reserved node has room at the shadow time"
                );
                reservation.spare.push((*index, free - need));
            }
            None => reservation.new_nodes += 1,
        }
    }
    Some(reservation)
}

fn spread(
    gpus: u32,
    per_node: u32,
    nodes: &[NodeOutlook],
    ends: &[(f64, u32)],
    new_nodes_allowed: u32,
    now_h: f64,
) -> Option<Reservation> {
    // Every moment GPUs become free: ready nodes now, provisioning ones when ready, run ends.
    let mut events: Vec<(f64, u64)> = Vec::new();
    for node in nodes {
        events.push((node.ready_h.max(now_h), u64::from(node.free_gpus)));
        for &(end_h, gpus) in &ends[node.first..node.first + node.count] {
            events.push((end_h.max(now_h), u64::from(gpus)));
        }
    }
    events.push((now_h, u64::from(new_nodes_allowed) * u64::from(per_node)));
    events.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut free = 0u64;
    let mut i = 0;
    while i < events.len() {
        let at_h = events[i].0;
        while i < events.len() && events[i].0 == at_h {
            free += events[i].1;
            i += 1;
        }
        if free >= u64::from(gpus) {
            return Some(Reservation {
                shadow_h: at_h,
                spare: Vec::new(),
                new_nodes: 0,
                extra_gpus: free - u64::from(gpus),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nodes of 8 GPUs from `(free now, [(end_h, GPUs)])`, all ready.
    fn pool(spec: &[(u32, &[(f64, u32)])]) -> (Vec<NodeOutlook>, Vec<(f64, u32)>) {
        let mut nodes = Vec::new();
        let mut ends = Vec::new();
        for (index, (free, runs)) in spec.iter().enumerate() {
            nodes.push(NodeOutlook {
                node: index as u32,
                free_gpus: *free,
                ready_h: 0.0,
                first: ends.len(),
                count: runs.len(),
            });
            ends.extend_from_slice(runs);
        }
        (nodes, ends)
    }

    #[test]
    fn a_one_node_job_waits_for_the_first_node_with_room() {
        // Node 0: 2 free, jobs of 3 and 3 GPUs end at 5 h and 2 h. Node 1: 0 free, one 8-GPU
        // job until 4 h. A 4-GPU job: node 0 has 5 free at 2 h; node 1 has 8 at 4 h.
        let (nodes, mut ends) = pool(&[(2, &[(5.0, 3), (2.0, 3)]), (0, &[(4.0, 8)])]);
        let r = reserve(4, 8, Placement::NodeLocal, &nodes, &mut ends, 0, 1.0).unwrap();
        assert_eq!(r.shadow_h, 2.0);
        // At 2 h node 0 has 5 free; the gang needs 4: one spare.
        assert_eq!(r.spare, vec![(0, 1)]);
        assert_eq!(r.new_nodes, 0);
    }

    #[test]
    fn a_wide_gang_waits_for_whole_nodes_and_one_for_the_rest() {
        // 20 GPUs = 2 whole nodes + 4. Nodes empty at 3, 6, 9 h; node 3 has 4 free at 1 h
        // (of 8: a 4-GPU job runs until 12 h).
        let (nodes, mut ends) = pool(&[
            (0, &[(3.0, 8)]),
            (0, &[(6.0, 8)]),
            (0, &[(9.0, 8)]),
            (0, &[(1.0, 4), (12.0, 4)]),
        ]);
        let r = reserve(20, 8, Placement::NodeLocal, &nodes, &mut ends, 0, 0.0).unwrap();
        // Whole nodes 0 and 1 at 6 h; the rest on node 3 (4 free from 1 h).
        assert_eq!(r.shadow_h, 6.0);
        assert_eq!(r.spare, vec![(0, 0), (1, 0), (3, 0)]);
        // 24 GPUs cannot: three whole nodes, the third empty only at 12 h... node 2 at 9 h.
        let r = reserve(24, 8, Placement::NodeLocal, &nodes, &mut ends, 0, 0.0).unwrap();
        assert_eq!(r.shadow_h, 9.0);
        // More nodes than the pool has: never.
        assert!(reserve(40, 8, Placement::NodeLocal, &nodes, &mut ends, 0, 0.0).is_none());
        // Unless the pool may still request a node.
        let r = reserve(40, 8, Placement::NodeLocal, &nodes, &mut ends, 1, 0.0).unwrap();
        assert_eq!((r.shadow_h, r.new_nodes), (12.0, 1));
    }

    #[test]
    fn spread_counts_gpus_of_the_whole_pool() {
        // 3 free now; 2 more at 1 h, 8 at 4 h. A 12-GPU gang: 13 at 4 h, one extra.
        let (nodes, mut ends) = pool(&[(3, &[(1.0, 2), (7.0, 3)]), (0, &[(4.0, 8)])]);
        let r = reserve(12, 8, Placement::Spread, &nodes, &mut ends, 0, 0.0).unwrap();
        assert_eq!((r.shadow_h, r.extra_gpus), (4.0, 1));
        assert!(reserve(17, 8, Placement::Spread, &nodes, &mut ends, 0, 0.0).is_none());
    }

    #[test]
    fn a_provisioning_node_counts_from_when_it_is_ready() {
        let mut nodes = vec![NodeOutlook {
            node: 0,
            free_gpus: 8,
            ready_h: 0.5,
            first: 0,
            count: 0,
        }];
        let r = reserve(8, 8, Placement::NodeLocal, &nodes, &mut [], 0, 0.1).unwrap();
        assert_eq!(r.shadow_h, 0.5);
        nodes[0].ready_h = 0.0;
        let r = reserve(8, 8, Placement::NodeLocal, &nodes, &mut [], 0, 0.1).unwrap();
        assert_eq!(r.shadow_h, 0.1);
    }
}
