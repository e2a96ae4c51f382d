//! `--shard K/N`: which points each of N shards runs, balanced by estimated cost.
//!
//! K counts from 1 (`1/4` to `4/4`), as people count shards; Slurm's `--array=1-N` gives it
//! directly, Kubernetes' 0-based `JOB_COMPLETION_INDEX` needs a `+ 1`. The partition depends
//! only on the points' estimated costs and N, so every shard computes the same one.

/// One shard of a sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: u32,
    pub count: u32,
}

/// More shards than this is a typo.
pub const SHARDS_MAX: u32 = 100_000;

impl Shard {
    pub const ACCEPTED: &str =
        "K/N with 1 <= K <= N (K counts from 1: the shards of 4 are 1/4, 2/4, 3/4 and 4/4)";

    pub fn parse(text: &str) -> Result<Self, String> {
        let (k, n) = text
            .split_once('/')
            .ok_or_else(|| format!("`{text}` is not {}", Self::ACCEPTED))?;
        let number = |s: &str| s.trim().parse::<u32>().ok();
        let (Some(index), Some(count)) = (number(k), number(n)) else {
            return Err(format!("`{text}` is not {}", Self::ACCEPTED));
        };
        if count == 0 || count > SHARDS_MAX {
            return Err(format!("`{text}`: N must be between 1 and {SHARDS_MAX}"));
        }
        if index == 0 {
            return Err(format!(
                "`{text}`: K counts from 1; the shards of {count} are 1/{count} to {count}/{count}"
            ));
        }
        if index > count {
            return Err(format!(
                "`{text}`: K must not exceed N; the shards of {count} are 1/{count} to {count}/{count}"
            ));
        }
        Ok(Self { index, count })
    }

    /// `K/N`.
    pub fn label(self) -> String {
        format!("{}/{}", self.index, self.count)
    }

    /// The file a finished shard leaves in its folder.
    pub fn marker_name(self) -> String {
        format!("shard-{}-of-{}.json", self.index, self.count)
    }

    /// The file describing the invocation that ran the shard.
    pub fn invocation_name(self) -> String {
        format!("invocation-shard-{}-of-{}.json", self.index, self.count)
    }
}

/// The 0-based shard of each point: longest estimated cost first, each to the shard with the
/// least work so far (ties to the lower shard), so shards finish close together. Every point
/// is in exactly one shard; the same costs give the same partition.
pub fn partition(costs: &[f64], shards: u32) -> Vec<u32> {
    assert!(shards >= 1, "at least one shard");
    assert!(
        costs.iter().all(|c| c.is_finite() && *c >= 0.0),
        "costs are finite: {costs:?}"
    );
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| costs[b].total_cmp(&costs[a]).then(a.cmp(&b)));
    let mut load = vec![0.0f64; shards as usize];
    let mut owner = vec![0u32; costs.len()];
    for point in order {
        let lightest = (0..load.len())
            .min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b)))
            .expect("at least one shard");
        load[lightest] += costs[point];
        owner[point] = lightest as u32;
    }
    owner
}

/// The points (indices, increasing) of `shard`.
pub fn points_of(costs: &[f64], shard: Shard) -> Vec<usize> {
    partition(costs, shard.count)
        .into_iter()
        .enumerate()
        .filter(|(_, owner)| *owner + 1 == shard.index)
        .map(|(point, _)| point)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn shards_count_from_one() {
        assert_eq!(Shard::parse("1/4"), Ok(Shard { index: 1, count: 4 }));
        assert_eq!(Shard::parse("4/4").unwrap().label(), "4/4");
        for (text, message) in [
            ("0/4", "K counts from 1; the shards of 4 are 1/4 to 4/4"),
            ("5/4", "K must not exceed N"),
            ("1/0", "N must be between 1"),
            ("x", "is not K/N"),
            ("1/x", "is not K/N"),
            ("-1/4", "is not K/N"),
        ] {
            let error = Shard::parse(text).unwrap_err();
            assert!(error.contains(message), "{text}: {error}");
        }
    }

    #[test]
    fn equal_costs_go_round_robin() {
        assert_eq!(partition(&[1.0; 7], 3), [0, 1, 2, 0, 1, 2, 0]);
        assert_eq!(points_of(&[1.0; 7], Shard { index: 2, count: 3 }), [1, 4]);
        // More shards than points: some shards are empty, which is fine.
        assert_eq!(partition(&[1.0, 1.0], 3), [0, 1]);
    }

    #[test]
    fn costly_points_are_spread() {
        // Longest first: 8 -> s0, 7 -> s1, 6 -> s2, 5 -> s2 (lightest, 6), 4 -> s1 (7),
        // 3 -> s0 (8), 2 -> s0 (11, tie with s1 and s2: lowest), 1 -> s1 (11, tie with s2).
        let costs = [1.0, 8.0, 2.0, 7.0, 6.0, 5.0, 4.0, 3.0];
        assert_eq!(partition(&costs, 3), [1, 0, 0, 1, 2, 2, 1, 0]);
    }

    proptest! {
        #[test]
        fn every_point_in_exactly_one_shard(
            costs in prop::collection::vec(0.0f64..1000.0, 0..60),
            shards in 1u32..9,
        ) {
            let owner = partition(&costs, shards);
            prop_assert_eq!(owner.len(), costs.len());
            prop_assert_eq!(&owner, &partition(&costs, shards), "deterministic");
            let mut seen = vec![0; costs.len()];
            for k in 1..=shards {
                for p in points_of(&costs, Shard { index: k, count: shards }) {
                    seen[p] += 1;
                }
            }
            prop_assert!(seen.iter().all(|n| *n == 1), "{:?}", seen);
            // Greedy bound: no shard exceeds the lightest by more than the costliest point.
            let mut load = vec![0.0; shards as usize];
            for (p, s) in owner.iter().enumerate() {
                load[*s as usize] += costs[p];
            }
            let max = load.iter().cloned().fold(0.0, f64::max);
            let min = load.iter().cloned().fold(f64::INFINITY, f64::min);
            let costliest = costs.iter().cloned().fold(0.0, f64::max);
            prop_assert!(max - min <= costliest + 1e-9, "{:?}", load);
        }
    }
}
