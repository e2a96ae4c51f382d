//! Rows of what is paid as it is used: elastic GPU-hours (on-demand and spot) and the
//! consumers' data (checkpoint storage, data moved between sites); and the split of a
//! pool-period's GPU-hours over its consumers that every GPU line uses.

use super::{Charge, Export, GPU_HOURS, Rate, Service};
use crate::records::{Consumer, DataCharge, FocusRow, PeriodCharge};

/// Idle GPU-hours below this share of the paid ones are rounding, not idle capacity.
const IDLE_ROUNDING: f64 = 1e-9;

impl Export<'_> {
    pub(super) fn elastic(&self, periods: &[PeriodCharge], rows: &mut dyn FnMut(FocusRow)) {
        let spot = self.pool.is_spot();
        let (kind, pricing, what) = if spot {
            ("spot", "Dynamic", "Spot (interruptible)")
        } else {
            ("on_demand", "Standard", "On-demand")
        };
        for (p, charge) in periods.iter().enumerate() {
            let cost = if spot {
                charge.cost_spot
            } else {
                charge.cost_on_demand
            };
            if charge.gpu_hours_paid <= 0.0 {
                continue;
            }
            // The mean price of the period's GPU-hours (prices may change within it).
            let contracted = cost / charge.gpu_hours_paid;
            let rate = Rate {
                contracted,
                list: if spot {
                    self.on_demand_list(self.period_h(p)).unwrap_or(contracted)
                } else {
                    contracted
                },
            };
            self.split(charge, |consumer, quantity, busy| {
                let description = match consumer {
                    Some(_) => format!("{what} {} GPU-hours, pool {}", self.node(), self.pool.name),
                    None => format!(
                        "Idle {} {} GPU-hours, pool {} (paid, not used)",
                        what.to_lowercase(),
                        self.node(),
                        self.pool.name
                    ),
                };
                rows(self.row(Charge {
                    kind,
                    category: "Usage",
                    frequency: "Usage-Based",
                    pricing_category: pricing,
                    description,
                    period_h: self.period_h(p),
                    quantity,
                    unit: GPU_HOURS,
                    consumed: Some(busy),
                    rate,
                    billed: quantity * rate.contracted,
                    effective: quantity * rate.contracted,
                    consumer,
                    service: Service::CloudGpus,
                    sku_id: self.sku(),
                    sku_price_id: format!("{}/{kind}", self.pool.name),
                    sku_meter: "GPU Hours",
                    resource_id: self.resource_id(),
                    resource_type: "GPU Node Pool",
                    commitment: None,
                }));
            });
        }
    }

    /// Calls `emit(consumer, GPU-hours, busy GPU-hours)` for each consumer of a pool-period,
    /// then for its idle capacity (no consumer, no busy GPU-hours) if any.
    pub(super) fn split(
        &self,
        charge: &PeriodCharge,
        mut emit: impl FnMut(Option<Consumer>, f64, f64),
    ) {
        let busy: f64 = charge.busy.iter().map(|(_, b)| b).sum();
        for &(consumer, gpu_h) in &charge.busy {
            emit(Some(consumer), gpu_h, gpu_h);
        }
        let idle = charge.gpu_hours_paid - busy;
        assert!(
            idle >= -1e-6 * charge.gpu_hours_paid.max(1.0),
            "busy GPU-hours {busy} above paid {} on pool {}",
            charge.gpu_hours_paid,
            self.pool.name
        );
        if idle > IDLE_ROUNDING * charge.gpu_hours_paid {
            emit(None, idle, 0.0);
        }
    }

    /// Each consumer's checkpoint storage on the pool and data leaving or reaching it.
    pub(super) fn data(&self, periods: &[PeriodCharge], rows: &mut dyn FnMut(FocusRow)) {
        for (p, charge) in periods.iter().enumerate() {
            for &(consumer, data) in &charge.data {
                for line in DataLine::ALL {
                    let (quantity, cost) = line.of(&data);
                    if quantity > 0.0 {
                        rows(self.data_row(line, consumer, self.period_h(p), quantity, cost));
                    }
                }
            }
        }
    }

    fn data_row(
        &self,
        line: DataLine,
        consumer: Consumer,
        period_h: (f64, f64),
        quantity: f64,
        cost: f64,
    ) -> FocusRow {
        let (kind, unit, what, meter) = match line {
            DataLine::Storage => ("storage", "GB-Months", "Checkpoints stored", "Storage"),
            DataLine::Egress => ("egress", "GB", "Data sent to another site", "Data Out"),
            DataLine::Ingress => (
                "ingress",
                "GB",
                "Data received from another site",
                "Data In",
            ),
        };
        let service = match line {
            DataLine::Storage => Service::Storage,
            DataLine::Egress | DataLine::Ingress => Service::Network,
        };
        let (resource, resource_type) = match line {
            DataLine::Storage => ("storage", "Checkpoint Storage"),
            DataLine::Egress | DataLine::Ingress => ("network", "Network Link"),
        };
        // The pool's price per GB (per GB-month stored); `cost` is the quantity at it.
        let prices = &self.pool.storage;
        let rate = Rate::one(match line {
            DataLine::Storage => prices.storage_per_gb_month,
            DataLine::Egress => prices.egress_per_gb,
            DataLine::Ingress => prices.ingress_per_gb,
        });
        self.row(Charge {
            kind,
            category: "Usage",
            frequency: "Usage-Based",
            pricing_category: "Standard",
            description: format!("{what}, pool {}", self.pool.name),
            period_h,
            quantity,
            unit,
            consumed: Some(quantity),
            rate,
            billed: cost,
            effective: cost,
            consumer: Some(consumer),
            service,
            sku_id: format!("{}/{kind}", self.pool.provider),
            sku_price_id: format!("{}/{kind}", self.pool.name),
            sku_meter: meter,
            resource_id: format!("{}/{resource}", self.resource_id()),
            resource_type,
            commitment: None,
        })
    }
}

/// The data lines of a consumer on a pool.
#[derive(Debug, Clone, Copy)]
enum DataLine {
    Storage,
    Egress,
    Ingress,
}

impl DataLine {
    const ALL: [DataLine; 3] = [DataLine::Storage, DataLine::Egress, DataLine::Ingress];

    /// Quantity (GB-months or GB) and cost.
    fn of(self, data: &DataCharge) -> (f64, f64) {
        match self {
            DataLine::Storage => (data.storage_gb_months, data.cost_storage),
            DataLine::Egress => (data.egress_gb, data.cost_egress),
            DataLine::Ingress => (data.ingress_gb, data.cost_ingress),
        }
    }
}
