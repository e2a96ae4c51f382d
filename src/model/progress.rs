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
        ((self.work_h / self.every_h).ceil() as u64).saturating_sub(1)
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
