//! The only place that seeds random number generators.
//!
//! Every random process of a replication draws from its own stream, keyed by the scenario's
//! seed, the replication number and a purpose named after the process and the workload or pool
//! it belongs to. The strategy is never part of the key: every strategy of a scenario sees the
//! same job stream and the same environment (common random numbers), and adding a workload, pool
//! or strategy leaves the other streams untouched.

use rand::SeedableRng;

/// Named after its algorithm: the same numbers on every platform and rand release (unlike
/// `StdRng`, whose algorithm may change).
pub type SimRng = rand::rngs::ChaCha8Rng;

/// What a stream is for. Names, not indices, so that streams survive reordering of the file.
#[derive(Debug, Clone, Copy)]
pub enum Purpose<'a> {
    /// Arrival times of a workload's jobs.
    Arrivals(&'a str),
    /// Sizes (GPUs) and durations of a workload's jobs, drawn in arrival order.
    Jobs(&'a str),
    /// Lifetimes of a spot pool's nodes until individual preemption.
    Preemptions(&'a str),
    /// Times of a spot pool's reclaim waves.
    Waves(&'a str),
    /// Which nodes each reclaim wave takes (kept apart so wave times are the same for all).
    WaveVictims(&'a str),
    /// Failure times of an on-prem pool's nodes.
    Failures(&'a str),
    /// Whether each node request to a constrained pool fails.
    Shortfalls(&'a str),
    /// Random availability episodes of an elastic pool.
    Episodes(&'a str),
    /// A spot pool's capacity process: its trace offset or Markov run lengths,
    /// named by its zone when it has one (so pools of one zone move together).
    Availability(&'a str),
    /// The trace days a bootstrap replay draws for a trace workload, one per simulated day.
    TraceDays(&'a str),
    /// Whether each job of a replayed trace is dropped or copied to follow its growth.
    TraceGrowth(&'a str),
    /// A service's hourly demand variation, one draw per hour.
    ServiceDemand(&'a str),
    /// The points of a sampled sweep (`--sample random:N` or `lhs:N`), named by the method.
    /// Drawn once per sweep, never inside a replication.
    Sweep(&'a str),
}

impl Purpose<'_> {
    /// A 64-bit stream id: FNV-1a of the purpose's tag and name (stable, unlike `DefaultHasher`).
    pub fn id(self) -> u64 {
        let (tag, name) = match self {
            Purpose::Arrivals(name) => ("arrivals", name),
            Purpose::Jobs(name) => ("jobs", name),
            Purpose::Preemptions(name) => ("preemptions", name),
            Purpose::Waves(name) => ("waves", name),
            Purpose::WaveVictims(name) => ("wave-victims", name),
            Purpose::Failures(name) => ("failures", name),
            Purpose::Shortfalls(name) => ("shortfalls", name),
            Purpose::Episodes(name) => ("episodes", name),
            Purpose::Availability(name) => ("availability", name),
            Purpose::TraceDays(name) => ("trace-days", name),
            Purpose::TraceGrowth(name) => ("trace-growth", name),
            Purpose::ServiceDemand(name) => ("service-demand", name),
            Purpose::Sweep(name) => ("sweep", name),
        };
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in tag.bytes().chain([0u8]).chain(name.bytes()) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        hash
    }
}

/// The stream for `purpose` in replication `replication` of a run seeded with `seed`.
pub fn stream(seed: u64, replication: u32, purpose: Purpose<'_>) -> SimRng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..12].copy_from_slice(&replication.to_le_bytes());
    let mut rng = SimRng::from_seed(key);
    rng.set_stream(purpose.id());
    rng
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn streams_differ_by_purpose_replication_and_seed() {
        let draw = |seed, replication, purpose| stream(seed, replication, purpose).random::<u64>();
        let base = draw(1, 0, Purpose::Arrivals("a"));
        assert_eq!(base, draw(1, 0, Purpose::Arrivals("a")));
        assert_ne!(base, draw(1, 0, Purpose::Jobs("a")));
        assert_ne!(base, draw(1, 0, Purpose::Arrivals("b")));
        assert_ne!(base, draw(1, 1, Purpose::Arrivals("a")));
        assert_ne!(base, draw(2, 0, Purpose::Arrivals("a")));
    }

    #[test]
    fn tag_and_name_do_not_run_together() {
        // "jobs" + "x" must differ from a purpose whose tag and name concatenate the same way.
        assert_ne!(Purpose::Jobs("x").id(), Purpose::Arrivals("x").id());
        assert_ne!(Purpose::Waves("ab").id(), Purpose::Waves("a").id());
    }

    #[test]
    fn stream_ids_are_stable_across_releases() {
        // FNV-1a of "arrivals\0a", computed by hand once; a change here changes every result.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in b"arrivals\0a" {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        assert_eq!(Purpose::Arrivals("a").id(), hash);
    }
}
