//! The discrete-event engine: a clock, an event queue and the run loop.
//!
//! It knows time, order and when to stop, and nothing of jobs, GPUs or money: those belong to
//! the [`Model`] it drives. Events at the same time leave the queue in the order they were
//! scheduled, so a run is a pure function of its model and inputs.
//!
//! **Invariant:** no I/O, no clock or environment reads; time never goes back.

mod queue;

use queue::{Entry, EventHeap};

/// A simulation model: it reacts to its events and schedules new ones.
pub trait Model {
    type Event;
    fn handle(&mut self, event: Self::Event, sim: &mut Sim<Self::Event>);
}

/// Bounds on one run. Reaching `events_max` is an error, never a hang.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Events after this time are not handled, hours since start.
    pub horizon_h: f64,
    /// At most this many events are handled.
    pub events_max: u64,
}

/// Why a run ended normally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunEnd {
    /// No event was left.
    Drained,
    /// The next event lies past the horizon.
    Horizon,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EngineError {
    #[error(
        "the event budget of {events_max} events was used up at {at_h:.1} h; \
         raise `max_events` in the scenario or shorten the horizon"
    )]
    EventBudgetExhausted { events_max: u64, at_h: f64 },
}

/// The clock and the pending events.
pub struct Sim<E> {
    now_h: f64,
    seq: u64,
    queue: EventHeap<E>,
    /// The event being handled is still at the top of the heap: the earliest event its
    /// handler schedules takes its place when it returns (one sift instead of a pop and a push;
    /// a handler usually schedules something, and an arrival schedules the next one, often the
    /// new earliest).
    handling_top: bool,
    /// While handling: the earliest event scheduled so far, kept out of the heap until the
    /// handler returns (every later one is pushed at once). The heap then holds the same
    /// entries as if each had been pushed in turn, and as no two entries compare equal, the
    /// events leave in the same order; but the entry that replaces the top is the earliest,
    /// which sifts least (an arrival's next arrival, not its job's far end).
    earliest_new: Option<Entry<E>>,
    events_handled: u64,
}

impl<E: Copy> Default for Sim<E> {
    fn default() -> Self {
        Self::new()
    }
}

/// Events are small plain values (`Copy`): the heap moves them by copy.
impl<E: Copy> Sim<E> {
    pub fn new() -> Self {
        Self {
            now_h: 0.0,
            seq: 0,
            queue: EventHeap::new(),
            handling_top: false,
            earliest_new: None,
            events_handled: 0,
        }
    }

    /// The current simulated time, hours since start.
    pub fn now_h(&self) -> f64 {
        self.now_h
    }

    /// Events handled so far.
    pub fn events_handled(&self) -> u64 {
        self.events_handled
    }

    /// Events scheduled so far (the last sequence number given).
    pub fn events_scheduled(&self) -> u64 {
        self.seq
    }

    /// Events waiting in the queue.
    pub fn pending(&self) -> usize {
        self.queue.len() - usize::from(self.handling_top) + usize::from(self.earliest_new.is_some())
    }

    /// Schedules `event` at absolute time `at_h` (not before now).
    pub fn schedule_at(&mut self, at_h: f64, event: E) {
        assert!(
            at_h >= self.now_h,
            "event scheduled in the past: {at_h} < {}",
            self.now_h
        );
        assert!(!at_h.is_nan(), "event scheduled at NaN");
        self.seq += 1;
        let entry = Entry::new(at_h, self.seq, event);
        if !self.handling_top {
            self.queue.push(entry);
            return;
        }
        match self.earliest_new {
            None => self.earliest_new = Some(entry),
            Some(earliest) if entry.is_before(&earliest) => {
                self.earliest_new = Some(entry);
                self.queue.push(earliest);
            }
            Some(_) => self.queue.push(entry),
        }
    }

    /// Schedules `event` `delay_h` hours from now.
    pub fn schedule_in(&mut self, delay_h: f64, event: E) {
        self.schedule_at(self.now_h + delay_h, event);
    }

    /// Handles events in time order until the horizon, the end of events or the event budget.
    pub fn run<M: Model<Event = E>>(
        &mut self,
        model: &mut M,
        limits: Limits,
    ) -> Result<RunEnd, EngineError> {
        while self.events_handled < limits.events_max {
            let Some(next) = self.queue.peek() else {
                return Ok(RunEnd::Drained);
            };
            let at_h = next.at_h();
            if at_h > limits.horizon_h {
                return Ok(RunEnd::Horizon);
            }
            let event = next.event;
            assert!(
                at_h >= self.now_h,
                "time went back: {at_h} < {}",
                self.now_h
            );
            self.now_h = at_h;
            self.events_handled += 1;
            self.handling_top = true;
            model.handle(event, self);
            self.handling_top = false;
            match self.earliest_new.take() {
                Some(entry) => self.queue.replace_top(entry),
                None => {
                    self.queue.pop();
                }
            }
        }
        match self.queue.peek() {
            Some(next) if next.at_h() <= limits.horizon_h => {
                Err(EngineError::EventBudgetExhausted {
                    events_max: limits.events_max,
                    at_h: self.now_h,
                })
            }
            Some(_) => Ok(RunEnd::Horizon),
            None => Ok(RunEnd::Drained),
        }
    }

    /// Moves the clock to `at_h` without handling events (to close accounts at the horizon).
    pub fn advance_to(&mut self, at_h: f64) {
        assert!(
            at_h >= self.now_h,
            "time went back: {at_h} < {}",
            self.now_h
        );
        self.now_h = at_h;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records what it saw; event `n > 0` schedules `n - 1` one hour later.
    struct Countdown {
        seen: Vec<(f64, u32)>,
    }

    impl Model for Countdown {
        type Event = u32;
        fn handle(&mut self, event: u32, sim: &mut Sim<u32>) {
            self.seen.push((sim.now_h(), event));
            if event > 0 {
                sim.schedule_in(1.0, event - 1);
            }
        }
    }

    #[test]
    fn events_run_in_time_order_and_ties_in_scheduling_order() {
        let mut sim = Sim::new();
        sim.schedule_at(2.0, 100);
        sim.schedule_at(1.0, 200);
        sim.schedule_at(2.0, 300);
        sim.schedule_at(0.5, 400);
        let mut model = Countdown { seen: vec![] };
        let end = sim
            .run(
                &mut model,
                Limits {
                    horizon_h: 1.5,
                    events_max: 100,
                },
            )
            .unwrap();
        assert_eq!(end, RunEnd::Horizon);
        // 400 at 0.5 schedules 399 at 1.5; 200 at 1.0 schedules 199 at 2.0 (after 100 and 300).
        assert_eq!(model.seen, vec![(0.5, 400), (1.0, 200), (1.5, 399)]);
        let mut rest = Countdown { seen: vec![] };
        sim.run(
            &mut rest,
            Limits {
                horizon_h: 2.0,
                events_max: 100,
            },
        )
        .unwrap();
        assert_eq!(rest.seen[..3], [(2.0, 100), (2.0, 300), (2.0, 199)]);
    }

    /// Records how many events were pending while it handled each one.
    struct Pending {
        seen: Vec<usize>,
    }

    impl Model for Pending {
        type Event = u32;
        fn handle(&mut self, event: u32, sim: &mut Sim<u32>) {
            self.seen.push(sim.pending());
            if event == 1 {
                sim.schedule_in(1.0, 0);
                sim.schedule_in(2.0, 0);
            }
        }
    }

    #[test]
    fn the_event_being_handled_is_not_pending() {
        let mut sim = Sim::new();
        sim.schedule_at(0.0, 1);
        sim.schedule_at(5.0, 0);
        let mut model = Pending { seen: vec![] };
        let limits = Limits {
            horizon_h: 10.0,
            events_max: 10,
        };
        assert_eq!(sim.run(&mut model, limits), Ok(RunEnd::Drained));
        assert_eq!(model.seen, vec![1, 2, 1, 0]);
        assert_eq!(sim.pending(), 0);
    }

    #[test]
    fn drains_when_no_event_is_left() {
        let mut sim = Sim::new();
        sim.schedule_at(0.0, 3);
        let mut model = Countdown { seen: vec![] };
        let end = sim
            .run(
                &mut model,
                Limits {
                    horizon_h: 100.0,
                    events_max: 100,
                },
            )
            .unwrap();
        assert_eq!(end, RunEnd::Drained);
        assert_eq!(model.seen.len(), 4);
        assert_eq!(sim.events_handled(), 4);
    }

    #[test]
    fn event_budget_is_an_error_not_a_hang() {
        let mut sim = Sim::new();
        sim.schedule_at(0.0, u32::MAX);
        let mut model = Countdown { seen: vec![] };
        let err = sim
            .run(
                &mut model,
                Limits {
                    horizon_h: 1e9,
                    events_max: 10,
                },
            )
            .unwrap_err();
        assert_eq!(
            err,
            EngineError::EventBudgetExhausted {
                events_max: 10,
                at_h: 9.0
            }
        );
        assert!(err.to_string().contains("max_events"));
    }

    #[test]
    fn budget_reached_exactly_at_the_end_is_not_an_error() {
        let mut sim = Sim::new();
        sim.schedule_at(0.0, 9);
        let mut model = Countdown { seen: vec![] };
        let end = sim
            .run(
                &mut model,
                Limits {
                    horizon_h: 1e9,
                    events_max: 10,
                },
            )
            .unwrap();
        assert_eq!(end, RunEnd::Drained);
    }

    #[test]
    #[should_panic(expected = "event scheduled in the past")]
    fn scheduling_in_the_past_is_a_bug() {
        let mut sim = Sim::new();
        sim.advance_to(5.0);
        sim.schedule_at(4.0, 0);
    }
}
