//! Which points of a grid a chart shows when it has room for fewer parameters than vary: the
//! parameters on its axes vary, a few more make panels (one per combination of their values),
//! and the rest are held at the values of the cheapest point, which the subtitle states.

use super::input::SweepResults;

/// At most this many panels: more would be too small to read on a slide.
pub const PANELS_MAX: usize = 6;

/// How a chart cuts a grid into what it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slicing {
    /// Parameters shown as panels, in the sweep's order (the first varies slowest).
    pub panels_by: Vec<usize>,
    /// Parameters held at one level: (parameter, level). Those with one level only are here
    /// too.
    pub fixed: Vec<(usize, usize)>,
    /// The point whose values the fixed parameters take (the cheapest), if any are fixed that
    /// have more than one level.
    pub anchor: Option<usize>,
}

impl Slicing {
    /// For a chart whose axes show the parameters `shown`: the others make panels, in the
    /// sweep's order, while their combinations stay within `panels_max`; the rest are fixed.
    pub fn new(results: &SweepResults, shown: &[usize], panels_max: usize) -> Self {
        let anchor_point = results.cheapest().map_or(0, |(point, _)| point);
        let mut panels_by = Vec::new();
        let mut fixed = Vec::new();
        let mut anchor = None;
        let mut panels = 1;
        for (j, parameter) in results.parameters.iter().enumerate() {
            if shown.contains(&j) {
                continue;
            }
            let n = parameter.levels.len();
            if n == 1 {
                fixed.push((j, 0));
            } else if panels * n <= panels_max {
                panels *= n;
                panels_by.push(j);
            } else {
                fixed.push((j, parameter.level_of[anchor_point]));
                anchor = Some(anchor_point);
            }
        }
        Self {
            panels_by,
            fixed,
            anchor,
        }
    }

    /// Every combination of the panel parameters' levels, the first parameter varying slowest
    /// (one empty combination when there are no panel parameters).
    pub fn panels(&self, results: &SweepResults) -> Vec<Vec<usize>> {
        let mut combinations: Vec<Vec<usize>> = vec![Vec::new()];
        for &j in &self.panels_by {
            let n = results.parameters[j].levels.len();
            combinations = combinations
                .into_iter()
                .flat_map(|c| {
                    (0..n).map(move |level| {
                        let mut c = c.clone();
                        c.push(level);
                        c
                    })
                })
                .collect();
        }
        combinations
    }

    /// The points (positions) of the panel `combination`: those at its levels and at the
    /// fixed levels.
    pub fn points(&self, results: &SweepResults, combination: &[usize]) -> Vec<usize> {
        (0..results.n_points())
            .filter(|&point| {
                let at =
                    |&(j, level): &(usize, usize)| results.parameters[j].level_of[point] == level;
                self.panels_by
                    .iter()
                    .copied()
                    .zip(combination.iter().copied())
                    .all(|pair| at(&pair))
                    && self.fixed.iter().all(at)
            })
            .collect()
    }

    /// A panel's caption: "burst_after_wait_h = 1, queue = fifo".
    pub fn caption(&self, results: &SweepResults, combination: &[usize]) -> String {
        self.panels_by
            .iter()
            .zip(combination)
            .map(|(&j, &level)| results.parameters[j].at(level))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// What the subtitle says about the parameters the chart does not show: "horizon_months =
    /// 24 at every point; queue = fifo and discount = 0.3 as at the cheapest point
    /// (hybrid-dgx-spot, point 14)". Empty when all are shown.
    pub fn describe(&self, results: &SweepResults) -> String {
        let (single, anchored): (Vec<_>, Vec<_>) = self
            .fixed
            .iter()
            .partition(|(j, _)| results.parameters[*j].levels.len() == 1);
        let list = |fixed: &[&(usize, usize)]| {
            let items: Vec<String> = fixed
                .iter()
                .map(|(j, level)| results.parameters[*j].at(*level))
                .collect();
            join_and(&items)
        };
        let mut parts = Vec::new();
        if !single.is_empty() {
            parts.push(format!("{} at every point", list(&single)));
        }
        if !anchored.is_empty() {
            let whose = match (self.anchor, results.cheapest()) {
                (Some(point), Some((_, strategy))) => format!(
                    " ({}, point {})",
                    results.strategies[strategy], results.meta.points[point].id
                ),
                _ => String::new(),
            };
            parts.push(format!(
                "{} as at the cheapest point{whose}",
                list(&anchored)
            ));
        }
        parts.join("; ")
    }
}

/// "a", "a and b", "a, b and c".
pub fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_sentences() {
        let items = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(join_and(&items(&["a"])), "a");
        assert_eq!(join_and(&items(&["a", "b"])), "a and b");
        assert_eq!(join_and(&items(&["a", "b", "c"])), "a, b and c");
    }
}
