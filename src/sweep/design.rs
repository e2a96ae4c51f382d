//! Which points a sweep visits: the full grid, or a random or Latin hypercube sample.
//!
//! Samples are drawn in the unit cube, one coordinate per parameter, from a stream of
//! [`crate::rng`] seeded by the scenario's seed (or the spec's), then mapped onto each
//! parameter's domain. The draw happens once per sweep and never touches the streams of the
//! replications, so every point still sees the same jobs.

use rand::RngExt;
use toml::Value;

use super::spec::{Domain, round_significant};
use crate::rng::{Purpose, SimRng, stream};

/// Every combination of the values, the first parameter varying slowest (like nested loops
/// in the order the parameters were given).
pub fn grid(values: &[Vec<Value>]) -> Vec<Vec<Value>> {
    let mut points: Vec<Vec<Value>> = vec![Vec::new()];
    for parameter in values {
        points = points
            .into_iter()
            .flat_map(|prefix| {
                parameter.iter().map(move |value| {
                    let mut point = prefix.clone();
                    point.push(value.clone());
                    point
                })
            })
            .collect();
    }
    points
}

/// The number of grid points, or None if it does not fit a `usize`.
pub fn grid_size(values: &[Vec<Value>]) -> Option<usize> {
    values
        .iter()
        .try_fold(1usize, |n, parameter| n.checked_mul(parameter.len()))
}

/// `samples` points drawn independently and uniformly in the unit cube of `dims` dimensions.
pub fn random_unit(samples: usize, dims: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = stream(seed, 0, Purpose::Sweep("random"));
    (0..samples)
        .map(|_| (0..dims).map(|_| rng.random::<f64>()).collect())
        .collect()
}

/// A Latin hypercube of `samples` points in the unit cube of `dims` dimensions: along every
/// dimension, each of the `samples` strata `[i/n, (i+1)/n)` holds exactly one point, placed
/// uniformly within it; the strata of different dimensions are paired by random permutations.
pub fn lhs_unit(samples: usize, dims: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = stream(seed, 0, Purpose::Sweep("lhs"));
    let mut points = vec![vec![0.0; dims]; samples];
    for d in 0..dims {
        let strata = permutation(samples, &mut rng);
        for (point, stratum) in points.iter_mut().zip(strata) {
            point[d] = (stratum as f64 + rng.random::<f64>()) / samples as f64;
        }
    }
    points
}

/// A uniformly random permutation of `0..n` (Fisher-Yates, written out so that the draw does
/// not depend on how a library shuffles).
fn permutation(n: usize, rng: &mut SimRng) -> Vec<usize> {
    let mut items: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.random_range(0..=i);
        items.swap(i, j);
    }
    items
}

/// The value of `domain` at the unit coordinate `u` in [0, 1): finite domains are cut into
/// equal strata, one per value; intervals are mapped linearly (or in the logarithm).
pub fn pick(domain: &Domain, u: f64) -> Value {
    assert!((0.0..1.0).contains(&u), "a unit coordinate: {u}");
    match domain {
        Domain::Finite(values) => {
            let i = ((u * values.len() as f64) as usize).min(values.len() - 1);
            values[i].clone()
        }
        Domain::Interval {
            start,
            end,
            log,
            integer,
        } => {
            if *integer && !*log {
                let count = end - start + 1.0;
                return Value::Integer((start + (u * count).floor()).min(*end) as i64);
            }
            let x = if *log {
                start * (end / start).powf(u)
            } else {
                start + (end - start) * u
            };
            if *integer {
                Value::Integer(x.round() as i64)
            } else {
                Value::Float(round_significant(x))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ints(list: &[i64]) -> Vec<Value> {
        list.iter().map(|n| Value::Integer(*n)).collect()
    }

    #[test]
    fn the_grid_varies_the_first_parameter_slowest() {
        let points = grid(&[ints(&[0, 1]), ints(&[7, 8, 9])]);
        assert_eq!(points.len(), 6);
        assert_eq!(points[0], ints(&[0, 7]));
        assert_eq!(points[1], ints(&[0, 8]));
        assert_eq!(points[3], ints(&[1, 7]));
        assert_eq!(grid_size(&[ints(&[0, 1]), ints(&[7, 8, 9])]), Some(6));
    }

    proptest! {
        #[test]
        fn lhs_puts_one_point_in_each_stratum(samples in 1usize..60, dims in 1usize..5, seed in any::<u64>()) {
            let points = lhs_unit(samples, dims, seed);
            prop_assert_eq!(points.len(), samples);
            for d in 0..dims {
                let mut strata: Vec<usize> = points
                    .iter()
                    .map(|p| (p[d] * samples as f64).floor() as usize)
                    .collect();
                strata.sort_unstable();
                prop_assert_eq!(strata, (0..samples).collect::<Vec<_>>(), "dimension {}", d);
                prop_assert!(points.iter().all(|p| (0.0..1.0).contains(&p[d])));
            }
            prop_assert_eq!(&points, &lhs_unit(samples, dims, seed), "same seed, same points");
        }
    }

    #[test]
    fn lhs_over_a_list_takes_each_value_once() {
        // As many samples as values: one stratum per value, so each value exactly once.
        let domain = Domain::Finite(ints(&[0, 2, 4, 6, 8]));
        let mut picked: Vec<i64> = lhs_unit(5, 1, 42)
            .iter()
            .map(|p| pick(&domain, p[0]).as_integer().unwrap())
            .collect();
        picked.sort_unstable();
        assert_eq!(picked, [0, 2, 4, 6, 8]);
    }

    #[test]
    fn lhs_over_an_interval_has_one_value_per_stratum() {
        let domain = Domain::Interval {
            start: 10.0,
            end: 20.0,
            log: false,
            integer: false,
        };
        let mut strata: Vec<usize> = lhs_unit(10, 1, 7)
            .iter()
            .map(|p| pick(&domain, p[0]).as_float().unwrap())
            .map(|x| (x - 10.0).floor() as usize)
            .collect();
        strata.sort_unstable();
        assert_eq!(strata, (0..10).collect::<Vec<_>>());
        // Log: each decade of 1..1000 gets a third of 3 samples.
        let domain = Domain::Interval {
            start: 1.0,
            end: 1000.0,
            log: true,
            integer: false,
        };
        let mut decades: Vec<i32> = lhs_unit(3, 1, 7)
            .iter()
            .map(|p| pick(&domain, p[0]).as_float().unwrap().log10().floor() as i32)
            .collect();
        decades.sort_unstable();
        assert_eq!(decades, [0, 1, 2]);
    }

    #[test]
    fn integer_intervals_give_every_whole_number_its_share() {
        let domain = Domain::Interval {
            start: 0.0,
            end: 3.0,
            log: false,
            integer: true,
        };
        let picked: Vec<i64> = [0.0, 0.24, 0.25, 0.5, 0.75, 0.999]
            .iter()
            .map(|u| pick(&domain, *u).as_integer().unwrap())
            .collect();
        assert_eq!(picked, [0, 0, 1, 2, 3, 3]);
    }

    #[test]
    fn random_samples_are_seeded() {
        let a = random_unit(4, 2, 1);
        assert_eq!(a, random_unit(4, 2, 1));
        assert_ne!(a, random_unit(4, 2, 2));
        assert_ne!(a, lhs_unit(4, 2, 1));
    }
}
