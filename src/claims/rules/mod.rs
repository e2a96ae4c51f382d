//! One function per claim, from the points of its sweep to a [`Finding`](super::Finding).
//! Strategy names are those of the claim's scenario in `scenarios/claims/`.
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

/// The verdict of one figure: its position in the claim's band.
fn at_point(position: Position) -> Verdict {
    match position {
        Position::Inside => Verdict::Holds,
        Position::Below | Position::Above => Verdict::DoesNotHold,
        Position::Straddles => {
            Verdict::Undecided("the interval straddles the edge of the claim's range".into())
        }
    }
}

/// The point whose first parameter is `x` (the scenario's own value), else the middle one.
fn point_at(points: &[super::Point], x: f64) -> Result<&super::Point, String> {
    points
        .iter()
        .find(|p| (p.x() - x).abs() < 1e-9)
        .or_else(|| points.get(points.len() / 2))
        .ok_or_else(|| "the sweep has no points".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use Position::*;

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
        assert_eq!(at_point(Inside), Verdict::Holds);
        assert_eq!(at_point(Below), Verdict::DoesNotHold);
        assert!(matches!(at_point(Straddles), Verdict::Undecided(_)));
    }
}
