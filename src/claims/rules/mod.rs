//! One function per claim, from its [`Evidence`](super::Evidence) to a
//! [`Finding`](super::Finding). Strategy names are the roles the claim's scenario in
//! `scenarios/claims/` must define; every price, size and label comes from its `Config` (see
//! [`figures`](super::figures)) or its results.
//!
//! - [`prices`]: claims about price lists and the bills they give (1, 2, 3, 7);
//! - [`fleet`]: owning against renting (4, 5, 6, 9);
//! - [`speed`]: faster arithmetic and smaller GPUs (8, 10).

pub mod fleet;
pub mod prices;
pub mod speed;

use super::{Position, Verdict};

/// The verdict of a claim judged at every point of a sweep: it holds where every interval
/// lies in the band; it holds only under `condition` (the boundary the sweep found) where
/// some do; it cannot be decided where none does but some straddle the band's edge.
fn over_sweep(positions: &[Position], condition: Option<String>) -> Verdict {
    let inside = positions.iter().filter(|&&p| p == Position::Inside).count();
    let straddles = positions.contains(&Position::Straddles);
    if inside == positions.len() && inside > 0 {
        Verdict::Holds
    } else if inside > 0 {
        match condition {
            Some(condition) => Verdict::HoldsOnlyWhen(condition),
            None => Verdict::Undecided(format!(
                "in the claim's range at {inside} of {} points, with no single boundary",
                positions.len()
            )),
        }
    } else if straddles {
        Verdict::Undecided("the intervals straddle the edge of the claim's range".into())
    } else {
        Verdict::DoesNotHold
    }
}

/// The verdict of one figure: its position in the claim's band; outside it, the claim still
/// holds under `condition` when the boundary found one.
fn at_point(position: Position, condition: Option<String>) -> Verdict {
    match (position, condition) {
        (Position::Inside, _) => Verdict::Holds,
        (Position::Straddles, _) => {
            Verdict::Undecided("the interval straddles the edge of the claim's range".into())
        }
        (Position::Below | Position::Above, Some(condition)) => Verdict::HoldsOnlyWhen(condition),
        (Position::Below | Position::Above, None) => Verdict::DoesNotHold,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::bisect::Probe;
    use super::super::{Evidence, Point};
    use super::*;
    use crate::scenario::{Config, Override};
    use Position::*;

    /// A claim's scenario from `scenarios/claims/`, with `set` applied.
    pub fn config(id: &str, set: &[(&str, f64)]) -> Config {
        let set: Vec<Override> = set
            .iter()
            .map(|&(path, value)| Override::new(path, toml::Value::Float(value)))
            .collect();
        let path = format!("scenarios/claims/{id}.toml");
        crate::scenario::load(std::path::Path::new(&path), &set)
            .unwrap()
            .config
    }

    /// Direct runs made by a function of the swept values.
    pub struct Model<F: Fn(&[f64]) -> Point>(pub F);

    impl<F: Fn(&[f64]) -> Point> Probe for Model<F> {
        fn run(&self, values: &[f64]) -> Result<Point, String> {
            Ok((self.0)(values))
        }
        fn replications(&self) -> u32 {
            20
        }
    }

    /// The finding of `rule` on points made by `model` at `xs` of the one swept field `swept`,
    /// with `model` as the direct runs.
    pub fn judge<F: Fn(&[f64]) -> Point>(
        rule: super::super::Rule,
        config: &Config,
        swept: &str,
        xs: &[f64],
        model: F,
    ) -> super::super::Finding {
        let values: Vec<Vec<f64>> = xs.iter().map(|&x| vec![x]).collect();
        judge_at(rule, config, &[swept], &values, model)
    }

    /// [`judge`] of a sweep over several fields, at each of `values`.
    pub fn judge_at<F: Fn(&[f64]) -> Point>(
        rule: super::super::Rule,
        config: &Config,
        swept: &[&str],
        values: &[Vec<f64>],
        model: F,
    ) -> super::super::Finding {
        let points: Vec<Point> = values.iter().map(|v| model(v)).collect();
        let swept: Vec<String> = swept.iter().map(|s| s.to_string()).collect();
        let probe = Model(model);
        rule(&Evidence {
            config,
            swept: &swept,
            points: &points,
            probe: &probe,
        })
        .unwrap()
    }

    #[test]
    fn a_sweep_holds_only_where_its_intervals_are_in_the_band() {
        assert_eq!(over_sweep(&[Inside, Inside], None), Verdict::Holds);
        assert_eq!(
            over_sweep(&[Below, Inside], Some("x > 3".into())),
            Verdict::HoldsOnlyWhen("x > 3".into())
        );
        assert!(matches!(
            over_sweep(&[Below, Inside], None),
            Verdict::Undecided(_)
        ));
        assert!(matches!(
            over_sweep(&[Below, Straddles], None),
            Verdict::Undecided(_)
        ));
        assert_eq!(over_sweep(&[Below, Above], None), Verdict::DoesNotHold);
        assert_eq!(over_sweep(&[], None), Verdict::DoesNotHold);
    }

    #[test]
    fn one_figure_holds_inside_the_band_only() {
        assert_eq!(at_point(Inside, None), Verdict::Holds);
        assert_eq!(at_point(Below, None), Verdict::DoesNotHold);
        assert_eq!(
            at_point(Below, Some("x".into())),
            Verdict::HoldsOnlyWhen("x".into())
        );
        assert!(matches!(at_point(Straddles, None), Verdict::Undecided(_)));
    }
}
