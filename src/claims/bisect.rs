//! Boundaries by direct runs: where a claim's figure crosses the edge of its range is found
//! by running the claim's scenario again at the middle of the bracket the sweep's points give,
//! halving it until it is as narrow as the rule asks. Interpolating between sweep points
//! would put a straight line through curves that are not straight (a payback month against a
//! price is a hyperbola).

use super::Point;

/// More halvings than this would ask for a precision finer than `f64` gives.
const STEPS_MAX: u32 = 60;

/// Direct runs of a claim's scenario.
pub trait Probe {
    /// The scenario with its swept fields at `values` (in the sweep's order; fields left out
    /// keep the scenario's own value), run at [`Probe::replications`].
    fn run(&self, values: &[f64]) -> Result<Point, String>;
    /// Replications of every run (and of the sweep's points it is compared with).
    fn replications(&self) -> u32;
}

/// A boundary bracketed by two runs on either side of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Boundary {
    /// The bracket's ends, in the order of the sweep's values, and their points.
    pub from: (f64, Point),
    pub to: (f64, Point),
    /// Direct runs made to narrow it (0: two sweep points were already close enough).
    pub runs: u32,
    pub replications: u32,
}

impl Boundary {
    /// The bracket's middle.
    pub fn x(&self) -> f64 {
        (self.from.0 + self.to.0) / 2.0
    }

    /// Half the bracket's width: the boundary is `x() ± precision()`.
    pub fn precision(&self) -> f64 {
        (self.to.0 - self.from.0).abs() / 2.0
    }

    /// `3.67 EUR/GPU-h ± 0.01`.
    pub fn value(&self, digits: usize, unit: &str) -> String {
        format!(
            "{:.digits$}{unit} ± {:.digits$}",
            self.x(),
            self.precision()
        )
    }

    /// How it was found, for the page.
    pub fn how(&self) -> String {
        let runs = match self.runs {
            1 => "1 direct run".to_string(),
            n => format!("{n} direct runs"),
        };
        format!(
            "found by bisection with {} replications per run, {runs}",
            self.replications
        )
    }
}

/// How a rule bisects: the side of the edge a point lies on (negative below, else above),
/// the precision asked for, whether the swept field takes whole numbers only, and the values
/// of the sweep's other fields.
pub struct Search<'a> {
    pub side: &'a dyn Fn(&Point) -> Result<f64, String>,
    pub precision: f64,
    pub integer: bool,
    pub rest: &'a [f64],
}

/// The first pair of neighbouring points (in the order given) on either side of the edge.
pub fn bracket<'p>(
    points: &[&'p Point],
    side: &dyn Fn(&Point) -> Result<f64, String>,
) -> Result<Option<(&'p Point, &'p Point)>, String> {
    let mut sides = Vec::with_capacity(points.len());
    for p in points {
        sides.push(side(p)?);
    }
    Ok((1..points.len())
        .find(|&i| (sides[i - 1] < 0.0) != (sides[i] < 0.0))
        .map(|i| (points[i - 1], points[i])))
}

/// Narrows the bracket `(from, to)` by direct runs at its middle until its half-width is at
/// most `search.precision` (whole numbers: until its ends are neighbours).
pub fn bisect(
    probe: &dyn Probe,
    from: &Point,
    to: &Point,
    search: &Search<'_>,
) -> Result<Boundary, String> {
    let mut from = (from.x(), from.clone());
    let mut to = (to.x(), to.clone());
    let from_below = (search.side)(&from.1)? < 0.0;
    let mut runs = 0;
    for _ in 0..STEPS_MAX {
        let done = if search.integer {
            (to.0 - from.0).abs() <= 1.0
        } else {
            (to.0 - from.0).abs() / 2.0 <= search.precision
        };
        if done {
            break;
        }
        let middle = (from.0 + to.0) / 2.0;
        let middle = if search.integer {
            middle.round()
        } else {
            middle
        };
        let mut values = vec![middle];
        values.extend_from_slice(search.rest);
        let point = probe.run(&values)?;
        runs += 1;
        if ((search.side)(&point)? < 0.0) == from_below {
            from = (middle, point);
        } else {
            to = (middle, point);
        }
    }
    Ok(Boundary {
        from,
        to,
        runs,
        replications: probe.replications(),
    })
}

/// The boundary in `points` (in the order given) if two neighbours lie on either side of the
/// edge, narrowed by direct runs.
pub fn boundary(
    probe: &dyn Probe,
    points: &[&Point],
    search: &Search<'_>,
) -> Result<Option<Boundary>, String> {
    match bracket(points, search.side)? {
        Some((from, to)) => bisect(probe, from, to, search).map(Some),
        None => Ok(None),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::estimate::tests::point;
    use super::*;
    use crate::records::metric;
    use std::cell::Cell;

    /// A probe whose runs give `f(x)` as the `total_cost` of strategy `s`, exactly.
    pub struct FnProbe<F: Fn(f64) -> f64> {
        pub f: F,
        pub runs: Cell<u32>,
    }

    impl<F: Fn(f64) -> f64> FnProbe<F> {
        pub fn new(f: F) -> Self {
            FnProbe {
                f,
                runs: Cell::new(0),
            }
        }
    }

    impl<F: Fn(f64) -> f64> Probe for FnProbe<F> {
        fn run(&self, values: &[f64]) -> Result<Point, String> {
            self.runs.set(self.runs.get() + 1);
            let y = (self.f)(values[0]);
            Ok(point(values, &[("s", metric::TOTAL_COST, y, y, y)]))
        }
        fn replications(&self) -> u32 {
            30
        }
    }

    fn cost(p: &Point) -> Result<f64, String> {
        p.stat("s", metric::TOTAL_COST).map(|e| e.mean)
    }

    #[test]
    fn bisection_finds_where_a_hyperbola_crosses_not_where_a_chord_does() {
        // Payback months 86.4 / price: 24 months at 3.6, where the chord from 3.0 (28.8) to
        // 4.5 (19.2) would say 3.75.
        let probe = FnProbe::new(|price: f64| 86.4 / price);
        let (a, b) = (probe.run(&[3.0]).unwrap(), probe.run(&[4.5]).unwrap());
        let side = |p: &Point| cost(p).map(|months| 24.0 - months);
        let search = Search {
            side: &side,
            precision: 0.01,
            integer: false,
            rest: &[],
        };
        let found = boundary(&probe, &[&a, &b], &search).unwrap().unwrap();
        assert!(
            (found.x() - 3.6).abs() <= found.precision(),
            "{}",
            found.x()
        );
        assert!(found.precision() <= 0.01);
        // 1.5 halved to at most 0.02: 7 runs.
        assert_eq!(found.runs, 7);
        assert_eq!(
            found.value(2, " EUR"),
            format!("{:.2} EUR ± 0.01", found.x())
        );
        assert!(
            found
                .how()
                .starts_with("found by bisection with 30 replications per run")
        );
    }

    #[test]
    fn whole_numbers_stop_at_neighbours_and_no_bracket_is_none() {
        // Fleet sizes: from 7 nodes up the cost is below 10.
        let probe = FnProbe::new(|nodes: f64| if nodes >= 7.0 { 5.0 } else { 20.0 });
        let (a, b) = (probe.run(&[4.0]).unwrap(), probe.run(&[12.0]).unwrap());
        let side = |p: &Point| cost(p).map(|c| 10.0 - c);
        let search = Search {
            side: &side,
            precision: 0.0,
            integer: true,
            rest: &[],
        };
        let found = boundary(&probe, &[&a, &b], &search).unwrap().unwrap();
        assert_eq!((found.from.0, found.to.0), (6.0, 7.0));
        let c = probe.run(&[20.0]).unwrap();
        assert_eq!(boundary(&probe, &[&b, &c], &search).unwrap(), None);
    }
}
