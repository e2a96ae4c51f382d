//! A job's data: its checkpoints stored where it last ran, its dataset and
//! checkpoint moved between sites, and what both cost.
//!
//! A job's dataset starts at the strategy's *home* site (that of its first pool with a site).
//! When a run begins on a pool of another site that has no copy of the dataset yet, the
//! dataset moves there: `dataset_gb x (egress of the pool it leaves + ingress of the pool it
//! enters)`; copies stay, so returning costs nothing. A run that restarts from a checkpoint on
//! a pool of another site than the last run's moves the checkpoint too. Checkpoints are stored
//! from the job's first start until `keep_checkpoints_h` after it ends, at the storage price of
//! the pool of its last run, per GB and calendar month. These costs are the job's: they go to
//! its workload and team directly, not through the pools' rates.

use super::*;

impl<'c> FleetSim<'c> {
    /// The sites holding a new job's dataset: the strategy's home site.
    pub(super) fn home_sites(&self) -> u64 {
        self.home_site.map_or(0, |site| 1 << site)
    }

    /// At the start of a run on pool `sp`: moves the dataset and the checkpoint there if they
    /// are elsewhere, and moves the checkpoint's storage to this pool.
    // Inline: most workloads have no data to move, and every run asks.
    #[inline]
    pub(super) fn data_at_run_start(&mut self, slot: u32, sp: usize, now_h: f64) {
        let job = &self.jobs[slot as usize];
        let workload = &self.config.workloads[job.workload as usize];
        if workload.dataset_gb != 0.0 || workload.checkpoint_gb != 0.0 {
            self.move_data(slot, sp, now_h);
        }
    }

    fn move_data(&mut self, slot: u32, sp: usize, now_h: f64) {
        let job = &self.jobs[slot as usize];
        let workload = &self.config.workloads[job.workload as usize];
        let (dataset_gb, checkpoint_gb) = (workload.dataset_gb, workload.checkpoint_gb);
        let to = &self.pools[sp].pool.storage;
        let mut moved = 0.0;
        if let Some(site) = to.site {
            // The dataset, from the pool it was last used on (else the home pool).
            if dataset_gb > 0.0 && job.data_sites & (1 << site) == 0 {
                let from = match job.last_pool {
                    NO_POOL => self.home_pool,
                    last => Some(last as usize),
                };
                moved += self.transfer(slot, from, sp, dataset_gb, now_h);
                self.jobs[slot as usize].data_sites |= 1 << site;
            }
            // The checkpoint, when restarting from it on another site.
            let job = &self.jobs[slot as usize];
            if checkpoint_gb > 0.0 && job.needs_restore && job.last_pool != NO_POOL {
                let last_pool = job.last_pool as usize;
                if self.pools[last_pool].pool.storage.site != Some(site) {
                    moved += self.transfer(slot, Some(last_pool), sp, checkpoint_gb, now_h);
                }
            }
        }
        if moved > 0.0 {
            self.charge_job(slot, now_h, moved);
        }
        // Only a job that writes checkpoints stores them.
        let job = &self.jobs[slot as usize];
        let writes = self.strategy.checkpointing
            && self.config.workloads[job.workload as usize]
                .checkpoint_of(job.spec)
                .is_some();
        if checkpoint_gb > 0.0 && writes {
            self.store_checkpoint_until(slot, now_h);
            self.jobs[slot as usize].storage_pool = sp as u16;
        }
    }

    /// What moving `gb` of the job's data from pool `from` (none: it is already everywhere)
    /// to pool `to` at `at_h` costs: egress where it leaves, ingress where it arrives, nothing
    /// within a site.
    fn transfer(&mut self, slot: u32, from: Option<usize>, to: usize, gb: f64, at_h: f64) -> f64 {
        let Some(from) = from else {
            return 0.0;
        };
        let (a, b) = (&self.pools[from].pool.storage, &self.pools[to].pool.storage);
        if a.site == b.site {
            return 0.0;
        }
        let prices = (a.egress_per_gb, b.ingress_per_gb);
        if let Some(ledger) = self.charges.as_mut() {
            let consumer = self.jobs[slot as usize].consumer();
            ledger.transfer(consumer, (from, to), gb, prices, at_h);
        }
        gb * (prices.0 + prices.1)
    }

    /// Bills the job's checkpoint storage up to `to_h` at the pool it is stored on, and moves
    /// the storage's start to `to_h`.
    pub(super) fn store_checkpoint_until(&mut self, slot: u32, to_h: f64) {
        let job = &self.jobs[slot as usize];
        let gb = self.config.workloads[job.workload as usize].checkpoint_gb;
        let (from_h, sp) = (job.storage_from_h, job.storage_pool);
        let (w, team) = (job.workload as usize, job.team as usize);
        let to_h = to_h.min(self.config.horizon_h);
        self.jobs[slot as usize].storage_from_h = to_h;
        if sp == NO_POOL || from_h.is_nan() || to_h <= from_h || gb == 0.0 {
            return;
        }
        let price = self.pools[sp as usize].pool.storage.storage_per_gb_month;
        if price == 0.0 {
            return;
        }
        let calendar = &self.config.calendar;
        let mut cost = 0.0;
        let months = &mut self.months;
        calendar.split_by_month(from_h, to_h, |m, hours| {
            let month_cost = gb * price * hours / calendar.month_h(m);
            months[m].cost_storage += month_cost;
            cost += month_cost;
        });
        self.accounts.count(w, team, |c| c.cost_direct += cost);
        self.jobs[slot as usize].cost += cost;
        if let Some(ledger) = self.charges.as_mut() {
            let consumer = self.jobs[slot as usize].consumer();
            ledger.store(consumer, sp as usize, (from_h, to_h), gb, price, calendar);
        }
    }

    /// A job that ended at `end_h`: its checkpoints are kept `keep_checkpoints_h` more.
    #[inline]
    pub(super) fn data_at_job_end(&mut self, slot: u32, end_h: f64) {
        let sp = self.jobs[slot as usize].storage_pool;
        if sp == NO_POOL {
            return;
        }
        let keep_h = self.pools[sp as usize].pool.storage.keep_checkpoints_h;
        self.store_checkpoint_until(slot, end_h + keep_h);
    }

    /// Books a data transfer of the job (network, in the month of `at_h`).
    fn charge_job(&mut self, slot: u32, at_h: f64, cost: f64) {
        let job = &self.jobs[slot as usize];
        let m = self.month_of(at_h);
        self.months[m].cost_network += cost;
        let (w, team) = (job.workload as usize, job.team as usize);
        self.accounts.count(w, team, |c| c.cost_direct += cost);
        self.jobs[slot as usize].cost += cost;
    }
}
