//! The candidates: a point is one level of each varied parameter. Small spaces are
//! enumerated; larger ones are searched coordinate by coordinate from several starts.

use toml::Value;

/// The varied parameters, each with its values in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Space {
    pub paths: Vec<String>,
    pub levels: Vec<Vec<Value>>,
}

/// A candidate point: an index into each parameter's levels.
pub type Point = Vec<usize>;

/// Spaces up to this many points are enumerated by `--search auto`.
pub const GRID_MAX: usize = 200;

impl Space {
    /// Points in the whole grid (saturating).
    pub fn size(&self) -> usize {
        self.levels
            .iter()
            .try_fold(1usize, |n, l| n.checked_mul(l.len()))
            .unwrap_or(usize::MAX)
    }

    /// Every point, the first parameter varying slowest (as `sweep` orders its grid).
    pub fn all(&self) -> Vec<Point> {
        let mut points = vec![Vec::new()];
        for levels in &self.levels {
            points = points
                .into_iter()
                .flat_map(|p| {
                    (0..levels.len()).map(move |i| {
                        let mut q = p.clone();
                        q.push(i);
                        q
                    })
                })
                .collect();
        }
        points
    }

    /// The points one level away along one parameter.
    pub fn neighbours(&self, point: &[usize]) -> Vec<Point> {
        let mut near = Vec::new();
        for (j, levels) in self.levels.iter().enumerate() {
            if point[j] > 0 {
                let mut q = point.to_vec();
                q[j] -= 1;
                near.push(q);
            }
            if point[j] + 1 < levels.len() {
                let mut q = point.to_vec();
                q[j] += 1;
                near.push(q);
            }
        }
        near
    }

    /// The middle level of every parameter.
    pub fn centre(&self) -> Point {
        self.levels.iter().map(|l| (l.len() - 1) / 2).collect()
    }

    /// The point at unit coordinates `u` (each in [0, 1)): a level of each parameter.
    pub fn at_unit(&self, u: &[f64]) -> Point {
        self.levels
            .iter()
            .zip(u)
            .map(|(levels, &x)| ((x * levels.len() as f64) as usize).min(levels.len() - 1))
            .collect()
    }

    /// `path=value` of every parameter at `point`, as `--set` takes them.
    pub fn assignments(&self, point: &[usize]) -> Vec<(String, Value)> {
        self.paths
            .iter()
            .zip(&self.levels)
            .zip(point)
            .map(|((path, levels), &i)| (path.clone(), levels[i].clone()))
            .collect()
    }
}

/// How a screened point compares: points that meet every constraint by their means first,
/// by objective; then the others, by how far they miss.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// Sum of each constraint's excess over its tolerance (or its limit), where positive.
    pub violation: f64,
    pub objective: f64,
}

impl Score {
    /// A point that could not be simulated (not a valid scenario).
    pub const INVALID: Score = Score {
        violation: f64::INFINITY,
        objective: f64::INFINITY,
    };

    fn better_than(self, other: Score) -> bool {
        let key = |s: Score| (s.violation > 0.0, s.violation, s.objective);
        let (a, b) = (key(self), key(other));
        (a.0, a.1, a.2)
            .partial_cmp(&(b.0, b.1, b.2))
            .is_some_and(|o| o.is_lt())
    }
}

/// Scores a batch of points, in order.
pub type ScoreFn<'a, E> = dyn FnMut(&[Point]) -> Result<Vec<Score>, E> + 'a;

/// Coordinate search: from each start, move to the best of the neighbours while one scores
/// better than where it stands. `score` is asked for the points not yet scored, a batch at a
/// time, and may fail. Returns every point scored, in the order first asked: the candidates
/// the selection then decides among. Deterministic for given starts and scores.
pub fn coordinate_search<E>(
    space: &Space,
    starts: &[Point],
    score: &mut ScoreFn<'_, E>,
) -> Result<Vec<Point>, E> {
    let mut visited: Vec<Point> = Vec::new();
    let mut scores: Vec<Score> = Vec::new();
    let mut ask = |points: Vec<Point>, visited: &mut Vec<Point>, scores: &mut Vec<Score>| {
        let new: Vec<Point> = points
            .iter()
            .filter(|p| !visited.contains(p))
            .cloned()
            .fold(Vec::new(), |mut acc, p| {
                if !acc.contains(&p) {
                    acc.push(p);
                }
                acc
            });
        if !new.is_empty() {
            let got = score(&new)?;
            visited.extend(new);
            scores.extend(got);
        }
        Ok(points
            .iter()
            .map(|p| scores[visited.iter().position(|v| v == p).expect("scored")])
            .collect::<Vec<Score>>())
    };
    for start in starts {
        let mut here = start.clone();
        let mut here_score = ask(vec![here.clone()], &mut visited, &mut scores)?[0];
        // Each move strictly improves the score, so this ends; the bound is a guard.
        for _ in 0..space.size().min(10_000) {
            let near = space.neighbours(&here);
            let near_scores = ask(near.clone(), &mut visited, &mut scores)?;
            let best = (0..near.len()).fold(None, |best: Option<usize>, i| match best {
                Some(b) if !near_scores[i].better_than(near_scores[b]) => Some(b),
                _ => Some(i),
            });
            match best {
                Some(b) if near_scores[b].better_than(here_score) => {
                    here = near[b].clone();
                    here_score = near_scores[b];
                }
                _ => break,
            }
        }
    }
    Ok(visited)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space(sizes: &[usize]) -> Space {
        Space {
            paths: (0..sizes.len()).map(|j| format!("p{j}")).collect(),
            levels: sizes
                .iter()
                .map(|&n| (0..n as i64).map(Value::Integer).collect())
                .collect(),
        }
    }

    #[test]
    fn the_grid_varies_the_first_parameter_slowest() {
        let s = space(&[2, 3]);
        assert_eq!(s.size(), 6);
        assert_eq!(
            s.all(),
            vec![
                vec![0, 0],
                vec![0, 1],
                vec![0, 2],
                vec![1, 0],
                vec![1, 1],
                vec![1, 2]
            ]
        );
        assert_eq!(
            s.neighbours(&[0, 1]),
            vec![vec![1, 1], vec![0, 0], vec![0, 2]]
        );
        assert_eq!(s.centre(), vec![0, 1]);
        assert_eq!(s.at_unit(&[0.99, 0.0]), vec![1, 0]);
    }

    #[test]
    fn coordinate_search_finds_a_convex_minimum_under_a_constraint() {
        // Objective (x - 7)^2 + (y - 2)^2 on a 20 x 20 grid, feasible only where x + y >= 12:
        // the constrained minimum is at (8, 4)? No: minimise over x + y >= 12, integer points:
        // (7, 5), (8, 4), (9, 3), (10, 2) ... (x-7)^2 + (y-2)^2 is 9, 5, 5, 9: (8, 4) and
        // (9, 3) tie at 5; the search must end on one of them and score fewer than all 400.
        let s = space(&[20, 20]);
        let mut scored = 0;
        let mut score = |points: &[Point]| -> Result<Vec<Score>, ()> {
            scored += points.len();
            Ok(points
                .iter()
                .map(|p| {
                    let (x, y) = (p[0] as f64, p[1] as f64);
                    Score {
                        violation: (12.0 - x - y).max(0.0),
                        objective: (x - 7.0).powi(2) + (y - 2.0).powi(2),
                    }
                })
                .collect())
        };
        let visited = coordinate_search(&s, &[s.centre(), vec![0, 19]], &mut score).unwrap();
        assert!(visited.contains(&vec![8, 4]) || visited.contains(&vec![9, 3]));
        assert!(scored < 100, "scored {scored} of 400");
        assert_eq!(scored, visited.len(), "no point is scored twice");
    }
}
