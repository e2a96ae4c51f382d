//! How a job's work advances during one run on one pool, with checkpoints.
//!
//! A run is restore (after an interruption), then cycles of `every_h` useful work followed by a
//! `write_h` checkpoint, then the last piece of work (no checkpoint at completion). The plan is
//! computed once when the run starts, so checkpoints cost no events: an interruption works out
//! from the elapsed time how much was saved, lost and spent on checkpoints.

/// One run's timeline, hours of wall time on the pool it runs on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunPlan {
    /// Restoring from the last checkpoint before work resumes (0 on a first start).
    pub restore_h: f64,
    /// Useful work left, on this pool.
    pub work_h: f64,
    /// Useful work between checkpoints; infinite when none are written.
    pub every_h: f64,
    /// Time to write one checkpoint.
    pub write_h: f64,
}

/// What an interrupted run leaves behind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interrupted {
    /// Useful work secured by completed checkpoints, hours on this pool.
    pub saved_work_h: f64,
    /// Work since the last completed checkpoint plus any checkpoint being written, hours.
    pub lost_h: f64,
    /// Restore time plus completed checkpoint writes, hours.
    pub checkpoint_h: f64,
}

impl RunPlan {
    /// Checkpoints written during an uninterrupted run: one after every `every_h` of work,
    /// except at completion.
    pub fn writes(&self) -> u64 {
        if !self.every_h.is_finite() || self.work_h <= 0.0 {
            return 0;
        }
        ceil_u64(self.work_h / self.every_h).saturating_sub(1)
    }

    /// Wall time of the run if nothing interrupts it.
    pub fn total_h(&self) -> f64 {
        self.restore_h + self.work_h + self.writes() as f64 * self.write_h
    }

    /// Restore and checkpoint time of an uninterrupted run.
    pub fn checkpoint_h(&self) -> f64 {
        self.restore_h + self.writes() as f64 * self.write_h
    }

    /// The state after `elapsed_h` hours, when the run is cut short.
    pub fn interrupted_after(&self, elapsed_h: f64) -> Interrupted {
        let elapsed_h = elapsed_h.max(0.0);
        if elapsed_h <= self.restore_h {
            return Interrupted {
                saved_work_h: 0.0,
                lost_h: 0.0,
                checkpoint_h: elapsed_h,
            };
        }
        let after_restore_h = elapsed_h - self.restore_h;
        let cycle_h = self.every_h + self.write_h;
        let cycles = if cycle_h.is_finite() {
            ((after_restore_h / cycle_h).floor() as u64).min(self.writes())
        } else {
            0
        };
        if cycles == 0 {
            // Nothing saved; also keeps 0 x infinity (no checkpoints) out of the sums.
            return Interrupted {
                saved_work_h: 0.0,
                lost_h: after_restore_h,
                checkpoint_h: self.restore_h,
            };
        }
        Interrupted {
            saved_work_h: cycles as f64 * self.every_h,
            lost_h: (after_restore_h - cycles as f64 * cycle_h).max(0.0),
            checkpoint_h: self.restore_h + cycles as f64 * self.write_h,
        }
    }
}

/// `x.ceil() as u64` for every `x` (NaN and negatives give 0, as the cast does), without a
/// call: the default x86-64 target has no rounding instruction, so `f64::ceil` is a call to
/// libm on every run planned.
fn ceil_u64(x: f64) -> u64 {
    let whole = x as u64;
    if (whole as f64) < x {
        whole.saturating_add(1)
    } else {
        whole
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: RunPlan = RunPlan {
        restore_h: 0.5,
        work_h: 10.0,
        every_h: 3.0,
        write_h: 0.25,
    };

    #[test]
    fn uninterrupted_run_writes_a_checkpoint_after_each_full_interval() {
        // 10 h of work in pieces 3 + 3 + 3 + 1: three checkpoints.
        assert_eq!(PLAN.writes(), 3);
        assert_eq!(PLAN.total_h(), 0.5 + 10.0 + 0.75);
        assert_eq!(
            RunPlan {
                work_h: 9.0,
                ..PLAN
            }
            .writes(),
            2
        );
        assert_eq!(
            RunPlan {
                every_h: f64::INFINITY,
                ..PLAN
            }
            .writes(),
            0
        );
        assert_eq!(
            RunPlan {
                work_h: 0.0,
                ..PLAN
            }
            .writes(),
            0
        );
    }

    #[test]
    fn ceil_u64_is_std_ceil_cast_at_every_edge() {
        let edges = [
            f64::NAN,
            f64::NEG_INFINITY,
            -0.5,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            0.5,
            1.0,
            1.0 + f64::EPSILON,
            2.0 - f64::EPSILON,
            3.999_999_999,
            4_503_599_627_370_495.5,      // 2^52 - 0.5: the last halves
            9_007_199_254_740_992.0,      // 2^53: every larger f64 is whole
            18_446_744_073_709_549_568.0, // the largest f64 below 2^64
            18_446_744_073_709_551_616.0, // 2^64: saturates
            1e30,
            f64::MAX,
            f64::INFINITY,
        ];
        for x in edges {
            assert_eq!(ceil_u64(x), x.ceil() as u64, "{x}");
        }
    }

    proptest::proptest! {
        #[test]
        fn ceil_u64_is_std_ceil_cast(bits in proptest::prelude::any::<u64>()) {
            let x = f64::from_bits(bits);
            proptest::prop_assert_eq!(ceil_u64(x), x.ceil() as u64, "{}", x);
        }

        #[test]
        fn ceil_u64_is_std_ceil_cast_on_ratios_of_run_lengths(x in 0.0f64..1e6) {
            proptest::prop_assert_eq!(ceil_u64(x), x.ceil() as u64, "{}", x);
        }
    }

    #[test]
    fn interruption_loses_work_since_the_last_checkpoint() {
        // During restore: nothing saved or lost, restore time spent.
        assert_eq!(
            PLAN.interrupted_after(0.2),
            Interrupted {
                saved_work_h: 0.0,
                lost_h: 0.0,
                checkpoint_h: 0.2
            }
        );
        // 0.5 restore + 3.25 first cycle + 1.0 into the second: one checkpoint saved.
        assert_eq!(
            PLAN.interrupted_after(4.75),
            Interrupted {
                saved_work_h: 3.0,
                lost_h: 1.0,
                checkpoint_h: 0.75
            }
        );
        // While writing the second checkpoint (0.1 into it): the write is lost with the work.
        let during_write = PLAN.interrupted_after(0.5 + 3.25 + 3.1);
        assert_eq!(during_write.saved_work_h, 3.0);
        assert!((during_write.lost_h - 3.1).abs() < 1e-12);
        // In the last piece, after all three checkpoints.
        let last = PLAN.interrupted_after(0.5 + 3.0 * 3.25 + 0.5);
        assert_eq!(last.saved_work_h, 9.0);
        assert!((last.lost_h - 0.5).abs() < 1e-12);
        assert_eq!(last.checkpoint_h, 0.5 + 0.75);
    }

    #[test]
    fn without_checkpoints_everything_is_lost() {
        let plan = RunPlan {
            restore_h: 0.0,
            work_h: 10.0,
            every_h: f64::INFINITY,
            write_h: 0.0,
        };
        assert_eq!(
            plan.interrupted_after(7.0),
            Interrupted {
                saved_work_h: 0.0,
                lost_h: 7.0,
                checkpoint_h: 0.0
            }
        );
    }
}
