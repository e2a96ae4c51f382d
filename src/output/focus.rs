//! The FOCUS 1.2 export (issue 15): `focus.csv`, the simulated charges of each strategy's
//! median replication as a bill that FinOps tools read like a real one.
//!
//! One row per strategy x pool x consumer (a workload's jobs of one team, or a service) x
//! charge period x cost line, from the unit's [`UnitCharges`] (see `model::charges`): each
//! pool-period's cost is split at its cost per paid GPU-hour over the consumers' busy
//! GPU-hours, and what idle paid capacity cost is a row of its own with no sub-account (for a
//! reservation: its Unused row), whatever `idle_cost` says for `teams.csv`. How each fleetsim
//! cost maps to FOCUS (and why "Compute") is in docs/finops.md; the mapping follows the note
//! the issue cites:
//! - on-demand: Usage, Standard; spot: Usage, Dynamic (list price: the on-demand price of the
//!   GPU type);
//! - reserved: a Recurring Purchase row per month of the term (BilledCost = the month's fee,
//!   EffectiveCost 0) and Committed Usage rows, Used per consumer and Unused for the rest
//!   (BilledCost 0, EffectiveCost the amortised share);
//! - on-prem: a One-Time Purchase row for the capital (cash view, EffectiveCost 0), Usage
//!   rows of its depreciation (BilledCost 0), and Usage rows of energy (kWh) and operations.
//!
//! So the sum of EffectiveCost is the replication's `total_cost` and the sum of BilledCost its
//! `total_cost_cash`.

use crate::records::{
    ChargePeriod, Consumer, Decimal, FocusRow, FocusUnits, PeriodCharge, UnitCharges,
};
use crate::scenario::{Config, OnPrem, Pool, PoolKind, Reserved};

/// Unit of GPU quantities (PricingUnit, ConsumedUnit, CommitmentDiscountUnit), in FOCUS's
/// UnitFormat ("GB-Hours").
pub const GPU_HOURS: &str = "GPU-Hours";

/// Idle GPU-hours below this share of the paid ones are rounding, not idle capacity.
const IDLE_ROUNDING: f64 = 1e-9;

/// Hands every row of `focus.csv` to `emit`, strategy by strategy in the scenario's order
/// (rows are written as they come: an export of many days is not held in memory).
pub fn each_row(config: &Config, focus: &FocusUnits, emit: &mut dyn FnMut(FocusRow)) {
    for unit in &focus.units {
        let charges = unit
            .charges
            .as_ref()
            .expect("the FOCUS units are simulated with charges");
        assert_eq!(charges.period, focus.period, "one charge period");
        let strategy = &config.strategies[unit.strategy];
        for (sp, &p) in strategy.pools.iter().enumerate() {
            let export = Export {
                config,
                strategy: &strategy.name,
                replication: unit.replication,
                pool: &config.pools[p],
                charges,
            };
            export.pool_rows(&charges.pools[sp], emit);
        }
    }
}

/// Every row of `focus.csv`, in memory (for tests and small exports).
pub fn rows(config: &Config, focus: &FocusUnits) -> Vec<FocusRow> {
    let mut rows = Vec::new();
    each_row(config, focus, &mut |row| rows.push(row));
    rows
}

/// Rows beyond which `--focus` is refused: a file of several gigabytes.
pub const ROWS_MAX: f64 = 1e7;

/// About how many rows `focus.csv` would have with charge periods `period`: per strategy pool
/// and period, a row per consumer plus one of idle capacity, times the lines of the pool type
/// (three on-prem).
pub fn rows_estimate(config: &Config, period: ChargePeriod) -> f64 {
    let periods = match period {
        ChargePeriod::Day => config.horizon_h / 24.0,
        ChargePeriod::Month => config.calendar.months() as f64,
    };
    let consumers = (config.workloads.len() + config.services.len() + 1) as f64;
    let lines: f64 = config
        .strategies
        .iter()
        .flat_map(|s| s.pools.iter())
        .map(|&p| match config.pools[p].kind {
            PoolKind::OnPrem(_) => 3.0,
            _ => 1.0,
        })
        .sum();
    periods * consumers * lines
}

/// Whether `currency` is what FOCUS's BillingCurrency takes: an ISO 4217 code (three capital
/// letters).
pub fn is_iso_currency(currency: &str) -> bool {
    currency.len() == 3 && currency.bytes().all(|b| b.is_ascii_uppercase())
}

/// What is sold per GPU-hour: the kind of the row and its prices.
#[derive(Debug, Clone, Copy)]
struct Rate {
    /// Per GPU-hour (per kWh for energy).
    contracted: f64,
    list: f64,
}

/// One charge before it becomes a row: what varies between the rows of a pool.
struct Charge<'a> {
    kind: &'static str,
    category: &'static str,
    frequency: &'static str,
    pricing_category: &'static str,
    description: String,
    /// `[start, end)`, hours since the scenario's start.
    period_h: (f64, f64),
    quantity: f64,
    unit: &'static str,
    consumed: Option<f64>,
    rate: Rate,
    billed: f64,
    effective: f64,
    consumer: Option<Consumer>,
    service: Service,
    sku_id: String,
    sku_price_id: String,
    sku_meter: &'static str,
    resource_id: String,
    resource_type: &'static str,
    commitment: Option<Commitment<'a>>,
}

/// The commitment a row is tied to.
struct Commitment<'a> {
    id: &'a str,
    name: &'a str,
    /// None on the purchase.
    status: Option<&'static str>,
    quantity: f64,
}

/// ServiceName, ServiceCategory, ServiceSubcategory.
#[derive(Debug, Clone, Copy)]
enum Service {
    CloudGpus,
    OnPremGpus,
    Power,
    Operations,
}

impl Service {
    fn names(self) -> (&'static str, &'static str, &'static str) {
        match self {
            // Raw GPU nodes are compute, as cloud providers list GPU instances; "AI and
            // Machine Learning" is for managed ML platforms (docs/finops.md).
            Service::CloudGpus => ("GPU Virtual Machines", "Compute", "Virtual Machines"),
            Service::OnPremGpus => ("On-Prem GPU Nodes", "Compute", "Other (Compute)"),
            Service::Power => ("Data Center Power", "Other", "Other (Other)"),
            Service::Operations => (
                "Data Center Operations",
                "Management and Governance",
                "Support",
            ),
        }
    }
}

/// One pool of one strategy's exported unit.
struct Export<'a> {
    config: &'a Config,
    strategy: &'a str,
    replication: u32,
    pool: &'a Pool,
    charges: &'a UnitCharges,
}

impl Export<'_> {
    fn gpu(&self) -> &str {
        &self.config.gpu_types[self.pool.gpu]
    }

    /// "8xH100": the node as a product.
    fn node(&self) -> String {
        format!("{}x{}", self.pool.gpus_per_node, self.gpu())
    }

    /// The product (the same whatever the pricing category): provider and node.
    fn sku(&self) -> String {
        format!("{}/{}", self.pool.provider, self.node())
    }

    /// The pool's nodes as a resource: unique across strategies and scenarios.
    fn resource_id(&self) -> String {
        format!("{}/{}/{}", self.config.name, self.strategy, self.pool.name)
    }

    /// The public on-demand price per GPU-hour of the pool's GPU type: an on-demand pool of
    /// that type from the same provider, else the first such pool of the scenario.
    fn on_demand_list(&self) -> Option<f64> {
        let on_demand = |same_provider: bool| {
            self.config.pools.iter().find_map(|p| match &p.kind {
                PoolKind::OnDemand(e)
                    if p.gpu == self.pool.gpu
                        && (!same_provider || p.provider == self.pool.provider) =>
                {
                    Some(e.price_per_gpu_h)
                }
                _ => None,
            })
        };
        on_demand(true).or_else(|| on_demand(false))
    }

    fn pool_rows(&self, periods: &[PeriodCharge], rows: &mut dyn FnMut(FocusRow)) {
        match &self.pool.kind {
            PoolKind::OnDemand(_) | PoolKind::Spot(..) => self.elastic(periods, rows),
            PoolKind::Reserved(reserved) => self.reserved(reserved, periods, rows),
            PoolKind::OnPrem(on_prem) => self.on_prem(on_prem, periods, rows),
        }
    }

    fn period_h(&self, p: usize) -> (f64, f64) {
        (self.charges.starts_h[p], self.charges.starts_h[p + 1])
    }

    fn elastic(&self, periods: &[PeriodCharge], rows: &mut dyn FnMut(FocusRow)) {
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
            let contracted = cost / charge.gpu_hours_paid;
            let rate = Rate {
                contracted,
                list: if spot {
                    self.on_demand_list().unwrap_or(contracted)
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
    fn split(&self, charge: &PeriodCharge, mut emit: impl FnMut(Option<Consumer>, f64, f64)) {
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

    fn reserved(
        &self,
        reserved: &Reserved,
        periods: &[PeriodCharge],
        rows: &mut dyn FnMut(FocusRow),
    ) {
        let calendar = &self.config.calendar;
        let id = format!("{}/reservation", self.resource_id());
        let name = format!(
            "{} reservation: {} x {} for {} months",
            self.pool.name,
            reserved.nodes,
            self.node(),
            reserved.term_months
        );
        let list = self.on_demand_list().unwrap_or(reserved.price_per_gpu_h);
        let sku_reservation = format!("{}/reservation-{}m", self.sku(), reserved.term_months);
        // The fee of each month of the term, as a Recurring purchase covering that month.
        for m in 0..calendar.months() {
            let (from_h, to_h) = (calendar.month_starts_h[m], calendar.month_starts_h[m + 1]);
            let in_month = |p: &usize| {
                let (start, _) = self.period_h(*p);
                start >= from_h && start < to_h
            };
            let (mut fee, mut committed) = (0.0, 0.0);
            for p in (0..periods.len()).filter(in_month) {
                fee += periods[p].cost_reserved;
                committed += periods[p].gpu_hours_paid;
            }
            if committed <= 0.0 {
                continue;
            }
            let rate = Rate {
                contracted: fee / committed,
                list: fee / committed,
            };
            rows(self.row(Charge {
                kind: "reserved_purchase",
                category: "Purchase",
                frequency: "Recurring",
                pricing_category: "Standard",
                description: format!("Reservation fee for the month, {name}"),
                period_h: (from_h, to_h),
                quantity: committed,
                unit: GPU_HOURS,
                consumed: None,
                rate,
                billed: fee,
                effective: 0.0,
                consumer: None,
                service: Service::CloudGpus,
                sku_id: sku_reservation.clone(),
                sku_price_id: format!("{}/reservation-fee", self.pool.name),
                sku_meter: "Reservation GPU Hours",
                resource_id: id.clone(),
                resource_type: "Reservation",
                commitment: Some(Commitment {
                    id: &id,
                    name: &name,
                    status: None,
                    quantity: committed,
                }),
            }));
        }
        for (p, charge) in periods.iter().enumerate() {
            if charge.gpu_hours_paid <= 0.0 {
                continue;
            }
            let rate = Rate {
                contracted: charge.cost_reserved / charge.gpu_hours_paid,
                list,
            };
            self.split(charge, |consumer, quantity, busy| {
                let used = consumer.is_some();
                let (kind, status, description, consumed, resource_id, resource_type) = if used {
                    (
                        "reserved_used",
                        "Used",
                        format!(
                            "{} GPU-hours covered by the reservation, pool {}",
                            self.node(),
                            self.pool.name
                        ),
                        Some(busy),
                        self.resource_id(),
                        "GPU Node Pool",
                    )
                } else {
                    (
                        "reserved_unused",
                        "Unused",
                        format!("Unused reserved GPU-hours, pool {}", self.pool.name),
                        None,
                        id.clone(),
                        "Reservation",
                    )
                };
                rows(self.row(Charge {
                    kind,
                    category: "Usage",
                    frequency: "Usage-Based",
                    pricing_category: "Committed",
                    description,
                    period_h: self.period_h(p),
                    quantity,
                    unit: GPU_HOURS,
                    consumed,
                    rate,
                    billed: 0.0,
                    effective: quantity * rate.contracted,
                    consumer,
                    service: Service::CloudGpus,
                    sku_id: if used {
                        self.sku()
                    } else {
                        sku_reservation.clone()
                    },
                    // A price-list entry has one SKU: the node's for used hours, the
                    // reservation's (that of its fee) for unused ones.
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
                    resource_id,
                    resource_type,
                    commitment: Some(Commitment {
                        id: &id,
                        name: &name,
                        status: Some(status),
                        quantity,
                    }),
                }));
            });
        }
    }

    fn on_prem(&self, on_prem: &OnPrem, periods: &[PeriodCharge], rows: &mut dyn FnMut(FocusRow)) {
        let node = self.node();
        for (p, charge) in periods.iter().enumerate() {
            if charge.cost_capital_cash > 0.0 {
                let nodes = f64::from(on_prem.nodes);
                let rate = Rate {
                    contracted: charge.cost_capital_cash / nodes,
                    list: charge.cost_capital_cash / nodes,
                };
                rows(self.row(Charge {
                    kind: "capital_purchase",
                    category: "Purchase",
                    frequency: "One-Time",
                    pricing_category: "Standard",
                    description: format!(
                        "Purchase of {} {node} nodes (capital), pool {}",
                        on_prem.nodes, self.pool.name
                    ),
                    period_h: self.period_h(p),
                    quantity: nodes,
                    unit: "Nodes",
                    consumed: None,
                    rate,
                    billed: charge.cost_capital_cash,
                    effective: 0.0,
                    consumer: None,
                    service: Service::OnPremGpus,
                    sku_id: self.sku(),
                    sku_price_id: format!("{}/purchase", self.pool.name),
                    sku_meter: "Node Purchase",
                    resource_id: self.resource_id(),
                    resource_type: "GPU Node Pool",
                    commitment: None,
                }));
            }
            if charge.gpu_hours_paid <= 0.0 {
                continue;
            }
            let paid = charge.gpu_hours_paid;
            // Three lines, each shared out by GPU-hours: depreciation (BilledCost 0: the cash
            // went out with the purchase), energy (in kWh), operations.
            let depreciation = charge.cost_capital / paid;
            if charge.cost_capital > 0.0 {
                let rate = Rate {
                    contracted: depreciation,
                    list: self.on_demand_list().unwrap_or(depreciation),
                };
                self.split(charge, |consumer, quantity, busy| {
                    let idle = if consumer.is_none() { "idle " } else { "" };
                    rows(self.row(Charge {
                        kind: "capital_amortised",
                        category: "Usage",
                        frequency: "Usage-Based",
                        pricing_category: "Standard",
                        description: format!(
                            "Depreciation of {idle}{node} GPU-hours over {} months, pool {}",
                            on_prem.amortization_months, self.pool.name
                        ),
                        period_h: self.period_h(p),
                        quantity,
                        unit: GPU_HOURS,
                        consumed: Some(busy),
                        rate,
                        billed: 0.0,
                        effective: quantity * rate.contracted,
                        consumer,
                        service: Service::OnPremGpus,
                        sku_id: self.sku(),
                        sku_price_id: format!(
                            "{}/depreciation-{}m",
                            self.pool.name, on_prem.amortization_months
                        ),
                        sku_meter: "GPU Hours",
                        resource_id: self.resource_id(),
                        resource_type: "GPU Node Pool",
                        commitment: None,
                    }));
                });
            }
            if charge.cost_energy > 0.0 && charge.energy_kwh > 0.0 {
                let tariff = charge.cost_energy / charge.energy_kwh;
                let rate = Rate {
                    contracted: tariff,
                    list: tariff,
                };
                let kwh_per_gpu_h = charge.energy_kwh / paid;
                self.split(charge, |consumer, quantity, _| {
                    let kwh = quantity * kwh_per_gpu_h;
                    let idle = if consumer.is_none() { "idle " } else { "" };
                    rows(self.row(Charge {
                        kind: "energy",
                        category: "Usage",
                        frequency: "Usage-Based",
                        pricing_category: "Standard",
                        description: format!(
                            "Electricity (PUE {}) for {idle}GPU-hours, pool {}",
                            on_prem.pue, self.pool.name
                        ),
                        period_h: self.period_h(p),
                        quantity: kwh,
                        unit: "kWh",
                        consumed: Some(kwh),
                        rate,
                        billed: kwh * tariff,
                        effective: kwh * tariff,
                        consumer,
                        service: Service::Power,
                        sku_id: format!("{}/power", self.pool.provider),
                        sku_price_id: format!("{}/power", self.pool.name),
                        sku_meter: "Energy",
                        resource_id: self.resource_id(),
                        resource_type: "GPU Node Pool",
                        commitment: None,
                    }));
                });
            }
            if charge.cost_operations > 0.0 {
                let per_gpu_h = charge.cost_operations / paid;
                let rate = Rate {
                    contracted: per_gpu_h,
                    list: per_gpu_h,
                };
                self.split(charge, |consumer, quantity, busy| {
                    let idle = if consumer.is_none() { "idle " } else { "" };
                    rows(self.row(Charge {
                        kind: "operations",
                        category: "Usage",
                        frequency: "Recurring",
                        pricing_category: "Standard",
                        description: format!(
                            "Operations (staff, support, space) for {idle}GPU-hours, pool {}",
                            self.pool.name
                        ),
                        period_h: self.period_h(p),
                        quantity,
                        unit: GPU_HOURS,
                        consumed: Some(busy),
                        rate,
                        billed: quantity * per_gpu_h,
                        effective: quantity * per_gpu_h,
                        consumer,
                        service: Service::Operations,
                        sku_id: format!("{}/operations", self.pool.provider),
                        sku_price_id: format!("{}/operations", self.pool.name),
                        sku_meter: "GPU Hours",
                        resource_id: self.resource_id(),
                        resource_type: "GPU Node Pool",
                        commitment: None,
                    }));
                });
            }
        }
    }

    /// The whole row of a charge.
    fn row(&self, charge: Charge<'_>) -> FocusRow {
        let config = self.config;
        let calendar = &config.calendar;
        let (start_h, end_h) = charge.period_h;
        let month = calendar.month_of(start_h);
        let (service_name, service_category, service_subcategory) = charge.service.names();
        let (team, workload, service) = match charge.consumer {
            Some(Consumer::Jobs { workload, team }) => (
                Some(config.teams[team].clone()),
                Some(config.workloads[workload].name.clone()),
                None,
            ),
            Some(Consumer::Service(si)) => (
                Some(config.services[si].team.clone()),
                None,
                Some(config.services[si].name.clone()),
            ),
            None => (None, None, None),
        };
        let gpu_node = matches!(charge.service, Service::CloudGpus | Service::OnPremGpus);
        let sku_price_details = gpu_node.then(|| {
            serde_json::json!({
                "GpuCount": self.pool.gpus_per_node,
                "InstanceType": self.node(),
            })
            .to_string()
        });
        let tags = serde_json::json!({
            "fleetsim/pool": self.pool.name,
            "fleetsim/pool-type": self.pool.type_name(),
            "fleetsim/gpu": self.gpu(),
        })
        .to_string();
        let provider = &self.pool.provider;
        let commitment = charge.commitment.as_ref();
        let list_cost = charge.quantity * charge.rate.list;
        let contracted_cost = charge.quantity * charge.rate.contracted;
        FocusRow {
            billed_cost: Decimal(charge.billed),
            billing_account_id: format!("{}/{}", config.name, self.strategy),
            billing_account_name: format!("{} ({}, simulated)", self.strategy, config.name),
            billing_currency: config.currency.clone(),
            billing_period_end: calendar.utc_label(calendar.month_starts_h[month + 1]),
            billing_period_start: calendar.utc_label(calendar.month_starts_h[month]),
            charge_category: charge.category.to_string(),
            charge_class: None,
            charge_description: charge.description,
            charge_frequency: charge.frequency.to_string(),
            charge_period_end: calendar.utc_label(end_h),
            charge_period_start: calendar.utc_label(start_h),
            commitment_discount_category: commitment.map(|_| "Usage".to_string()),
            commitment_discount_id: commitment.map(|c| c.id.to_string()),
            commitment_discount_name: commitment.map(|c| c.name.to_string()),
            commitment_discount_quantity: commitment.map(|c| Decimal(c.quantity)),
            commitment_discount_status: commitment.and_then(|c| c.status.map(String::from)),
            commitment_discount_type: commitment.map(|_| "Reservation".to_string()),
            commitment_discount_unit: commitment.map(|_| GPU_HOURS.to_string()),
            consumed_quantity: charge.consumed.map(Decimal),
            consumed_unit: charge.consumed.map(|_| charge.unit.to_string()),
            contracted_cost: Decimal(contracted_cost),
            contracted_unit_price: Decimal(charge.rate.contracted),
            effective_cost: Decimal(charge.effective),
            invoice_id: None,
            invoice_issuer_name: provider.clone(),
            list_cost: Decimal(list_cost),
            list_unit_price: Decimal(charge.rate.list),
            pricing_category: charge.pricing_category.to_string(),
            pricing_currency: config.currency.clone(),
            pricing_currency_contracted_unit_price: Decimal(charge.rate.contracted),
            pricing_currency_effective_cost: Decimal(charge.effective),
            pricing_currency_list_unit_price: Decimal(charge.rate.list),
            pricing_quantity: Decimal(charge.quantity),
            pricing_unit: charge.unit.to_string(),
            provider_name: provider.clone(),
            publisher_name: provider.clone(),
            region_id: self.pool.region.clone(),
            region_name: self.pool.region.clone(),
            resource_id: charge.resource_id,
            resource_name: self.pool.name.clone(),
            resource_type: charge.resource_type.to_string(),
            service_category: service_category.to_string(),
            service_name: service_name.to_string(),
            service_subcategory: service_subcategory.to_string(),
            sku_id: charge.sku_id,
            sku_meter: charge.sku_meter.to_string(),
            sku_price_details,
            sku_price_id: charge.sku_price_id,
            sub_account_id: team.clone(),
            sub_account_name: team,
            tags,
            x_fleetsim_scenario: config.name.clone(),
            x_fleetsim_strategy: self.strategy.to_string(),
            x_fleetsim_replication: self.replication,
            x_fleetsim_pool: self.pool.name.clone(),
            x_fleetsim_workload: workload,
            x_fleetsim_service: service,
            x_fleetsim_cost_kind: charge.kind.to_string(),
        }
    }
}
