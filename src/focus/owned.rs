//! Rows of owned and committed capacity: a reservation's purchase (up front, month by month)
//! and its Used and Unused hours; on-prem nodes' purchase, depreciation, energy, operations
//! and sale.

use super::{Charge, Commitment, Export, GPU_HOURS, Rate, Service};
use crate::records::{FocusRow, PeriodCharge};
use crate::scenario::{OnPrem, Reserved};

/// What every row of one reservation shares.
struct Reservation {
    id: String,
    name: String,
    sku: String,
}

impl Export<'_> {
    fn reservation(&self, reserved: &Reserved) -> Reservation {
        Reservation {
            id: format!("{}/reservation", self.resource_id()),
            name: format!(
                "{} reservation: {} x {} for {} months",
                self.pool.name,
                reserved.nodes,
                self.node(),
                reserved.term_months
            ),
            sku: format!("{}/reservation-{}m", self.sku(), reserved.term_months),
        }
    }

    pub(super) fn reserved(
        &self,
        reserved: &Reserved,
        periods: &[PeriodCharge],
        rows: &mut dyn FnMut(FocusRow),
    ) {
        let r = self.reservation(reserved);
        self.reservation_purchases(reserved, &r, periods, rows);
        for (p, charge) in periods.iter().enumerate() {
            if charge.gpu_hours_paid <= 0.0 {
                continue;
            }
            let period_h = self.period_h(p);
            let list = self.on_demand_list(period_h).unwrap_or_else(|| {
                reserved
                    .list_price
                    .mean_over(&self.config.calendar, period_h.0, period_h.1)
            });
            let rate = Rate {
                contracted: charge.cost_reserved / charge.gpu_hours_paid,
                list,
            };
            self.split(charge, |consumer, quantity, busy| {
                let used = consumer.is_some();
                let (kind, status, description) = if used {
                    let what = format!("{} GPU-hours covered by the reservation", self.node());
                    (
                        "reserved_used",
                        "Used",
                        format!("{what}, pool {}", self.pool.name),
                    )
                } else {
                    let what = "Unused reserved GPU-hours";
                    (
                        "reserved_unused",
                        "Unused",
                        format!("{what}, pool {}", self.pool.name),
                    )
                };
                rows(self.row(Charge {
                    kind,
                    category: "Usage",
                    frequency: "Usage-Based",
                    pricing_category: "Committed",
                    description,
                    period_h,
                    quantity,
                    unit: GPU_HOURS,
                    consumed: used.then_some(busy),
                    rate,
                    billed: 0.0,
                    effective: quantity * rate.contracted,
                    consumer,
                    service: Service::CloudGpus,
                    // A price-list entry has one SKU: the node's for used hours, the
                    // reservation's (that of its fee) for unused ones.
                    sku_id: if used { self.sku() } else { r.sku.clone() },
                    sku_price_id: if used {
                        format!("{}/reserved", self.pool.name)
                    } else {
                        format!("{}/reservation-fee", self.pool.name)
                    },
                    sku_meter: if used {
                        "GPU Hours"
                    } else {
                        "Reservation GPU Hours"
                    },
                    resource_id: if used {
                        self.resource_id()
                    } else {
                        r.id.clone()
                    },
                    resource_type: if used { "GPU Node Pool" } else { "Reservation" },
                    commitment: Some(Commitment {
                        id: &r.id,
                        name: &r.name,
                        status: Some(status),
                        quantity,
                    }),
                }));
            });
        }
    }

    /// The reservation's cash: a One-Time row of what is paid up front (for the whole term's
    /// GPU-hours) and a Recurring row per month for the monthly fee. EffectiveCost is 0 on
    /// both: the cost is on the Used and Unused rows.
    fn reservation_purchases(
        &self,
        reserved: &Reserved,
        r: &Reservation,
        periods: &[PeriodCharge],
        rows: &mut dyn FnMut(FocusRow),
    ) {
        let calendar = &self.config.calendar;
        let purchase = |frequency, description: String, period_h, quantity: f64, paid: f64| {
            self.row(Charge {
                kind: "reserved_purchase",
                category: "Purchase",
                frequency,
                pricing_category: "Standard",
                description,
                period_h,
                quantity,
                unit: GPU_HOURS,
                consumed: None,
                rate: Rate::one(paid / quantity),
                billed: paid,
                effective: 0.0,
                consumer: None,
                service: Service::CloudGpus,
                sku_id: r.sku.clone(),
                sku_price_id: format!("{}/reservation-fee", self.pool.name),
                sku_meter: "Reservation GPU Hours",
                resource_id: r.id.clone(),
                resource_type: "Reservation",
                commitment: Some(Commitment {
                    id: &r.id,
                    name: &r.name,
                    status: None,
                    quantity,
                }),
            })
        };
        if let Some(p) = periods.iter().position(|c| c.cost_reserved_upfront > 0.0) {
            let start = i64::from(reserved.start_month);
            let term_h =
                calendar.hours_between_months(start, start + i64::from(reserved.term_months));
            let gpus = f64::from(reserved.nodes) * f64::from(self.pool.gpus_per_node);
            let description = format!("Upfront payment for the whole term, {}", r.name);
            let upfront = periods[p].cost_reserved_upfront;
            rows(purchase(
                "One-Time",
                description,
                self.period_h(p),
                gpus * term_h,
                upfront,
            ));
        }
        for m in 0..calendar.months() {
            let (from_h, to_h) = (calendar.month_starts_h[m], calendar.month_starts_h[m + 1]);
            let (mut fee, mut committed) = (0.0, 0.0);
            for (p, charge) in periods.iter().enumerate() {
                let (start, _) = self.period_h(p);
                if start >= from_h && start < to_h {
                    fee += charge.cost_reserved_monthly;
                    committed += charge.gpu_hours_paid;
                }
            }
            if fee > 0.0 && committed > 0.0 {
                let description = format!("Reservation fee for the month, {}", r.name);
                rows(purchase(
                    "Recurring",
                    description,
                    (from_h, to_h),
                    committed,
                    fee,
                ));
            }
        }
    }

    pub(super) fn on_prem(
        &self,
        on_prem: &OnPrem,
        periods: &[PeriodCharge],
        rows: &mut dyn FnMut(FocusRow),
    ) {
        for (p, charge) in periods.iter().enumerate() {
            self.on_prem_lump_sums(on_prem, p, charge, rows);
            if charge.gpu_hours_paid <= 0.0 {
                continue;
            }
            let paid = charge.gpu_hours_paid;
            let period_h = self.period_h(p);
            // Three lines, each shared out by GPU-hours: depreciation (BilledCost 0: the cash
            // went out with the purchase), energy (in kWh), operations.
            let base = |kind, frequency, description: String, quantity, rate: Rate| Charge {
                kind,
                category: "Usage",
                frequency,
                pricing_category: "Standard",
                description,
                period_h,
                quantity,
                unit: GPU_HOURS,
                consumed: Some(quantity),
                rate,
                billed: quantity * rate.contracted,
                effective: quantity * rate.contracted,
                consumer: None,
                service: Service::OnPremGpus,
                sku_id: self.sku(),
                sku_price_id: format!("{}/{kind}", self.pool.name),
                sku_meter: "GPU Hours",
                resource_id: self.resource_id(),
                resource_type: "GPU Node Pool",
                commitment: None,
            };
            if charge.cost_capital > 0.0 {
                let depreciation = charge.cost_capital / paid;
                let rate = Rate {
                    contracted: depreciation,
                    list: self.on_demand_list(period_h).unwrap_or(depreciation),
                };
                self.split(charge, |consumer, quantity, busy| {
                    let idle = if consumer.is_none() { "idle " } else { "" };
                    let months = on_prem.amortization_months;
                    let what = format!("Depreciation of {idle}{} GPU-hours", self.node());
                    let description =
                        format!("{what} over {months} months, pool {}", self.pool.name);
                    rows(self.row(Charge {
                        consumed: Some(busy),
                        billed: 0.0,
                        consumer,
                        sku_price_id: format!("{}/depreciation-{months}m", self.pool.name),
                        ..base(
                            "capital_amortised",
                            "Usage-Based",
                            description,
                            quantity,
                            rate,
                        )
                    }));
                });
            }
            if charge.cost_energy > 0.0 && charge.energy_kwh > 0.0 {
                let tariff = charge.cost_energy / charge.energy_kwh;
                let kwh_per_gpu_h = charge.energy_kwh / paid;
                self.split(charge, |consumer, quantity, _| {
                    let kwh = quantity * kwh_per_gpu_h;
                    let idle = if consumer.is_none() { "idle " } else { "" };
                    let pue = on_prem.pue;
                    let description = format!(
                        "Electricity (PUE {pue}) for {idle}GPU-hours, pool {}",
                        self.pool.name
                    );
                    rows(self.row(Charge {
                        unit: "kWh",
                        consumer,
                        service: Service::Power,
                        sku_id: format!("{}/power", self.pool.provider),
                        sku_price_id: format!("{}/power", self.pool.name),
                        sku_meter: "Energy",
                        ..base("energy", "Usage-Based", description, kwh, Rate::one(tariff))
                    }));
                });
            }
            if charge.cost_operations > 0.0 {
                let per_gpu_h = charge.cost_operations / paid;
                self.split(charge, |consumer, quantity, busy| {
                    let idle = if consumer.is_none() { "idle " } else { "" };
                    let description = format!(
                        "Operations (staff, support, space) for {idle}GPU-hours, pool {}",
                        self.pool.name
                    );
                    rows(self.row(Charge {
                        consumed: Some(busy),
                        consumer,
                        service: Service::Operations,
                        sku_id: format!("{}/operations", self.pool.provider),
                        ..base(
                            "operations",
                            "Recurring",
                            description,
                            quantity,
                            Rate::one(per_gpu_h),
                        )
                    }));
                });
            }
        }
    }

    /// The nodes' purchase (cash out, a Purchase row with EffectiveCost 0: the depreciation
    /// rows carry the cost) and their sale: a Credit row of the cash it brings (a credit's
    /// EffectiveCost is its BilledCost) and a Usage row writing off the book value (BilledCost
    /// 0), so the amortised view books the loss (or gain) and the cash view the cash.
    fn on_prem_lump_sums(
        &self,
        on_prem: &OnPrem,
        p: usize,
        charge: &PeriodCharge,
        rows: &mut dyn FnMut(FocusRow),
    ) {
        let nodes = f64::from(on_prem.nodes);
        let node = self.node();
        let lump = |kind, category, description: String, quantity: f64, billed, effective| Charge {
            kind,
            category,
            frequency: "One-Time",
            pricing_category: "Standard",
            description,
            period_h: self.period_h(p),
            quantity,
            unit: "Nodes",
            consumed: (category == "Usage").then_some(quantity),
            rate: Rate::one(billed_or(billed, effective) / quantity),
            billed,
            effective,
            consumer: None,
            service: Service::OnPremGpus,
            sku_id: self.sku(),
            sku_price_id: format!("{}/{kind}", self.pool.name),
            sku_meter: "Nodes",
            resource_id: self.resource_id(),
            resource_type: "GPU Node Pool",
            commitment: None,
        };
        let pool = &self.pool.name;
        if charge.cost_capital_cash > 0.0 {
            let description = format!(
                "Purchase of {} {node} nodes (capital), pool {pool}",
                on_prem.nodes
            );
            let cash = charge.cost_capital_cash;
            rows(self.row(lump(
                "capital_purchase",
                "Purchase",
                description,
                nodes,
                cash,
                0.0,
            )));
        }
        if charge.sale_cash_in > 0.0 {
            // Nodes handed back: a negative quantity at the price each fetches.
            let description = format!("Sale of {} {node} nodes, pool {pool}", on_prem.nodes);
            let cash = -charge.sale_cash_in;
            rows(self.row(lump("resale", "Credit", description, -nodes, cash, cash)));
        }
        if charge.sale_book_value > 0.0 {
            let description = format!(
                "Book value of {} {node} nodes written off at their sale, pool {pool}",
                on_prem.nodes
            );
            let book = charge.sale_book_value;
            rows(self.row(lump("write_off", "Usage", description, nodes, 0.0, book)));
        }
    }
}

/// The amount a lump sum's unit price comes from: the cash when there is some, else the cost.
fn billed_or(billed: f64, effective: f64) -> f64 {
    if billed != 0.0 { billed } else { effective }
}
