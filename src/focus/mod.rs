//! The FOCUS 1.2 export: `focus.csv`, the simulated charges of each strategy's
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
//!   GPU type); both at the price of each moment when prices change (`usage.rs`);
//! - reserved: a One-Time Purchase row for what is paid up front and a Recurring Purchase row
//!   per month for the rest (BilledCost as paid, EffectiveCost 0), and Committed Usage rows,
//!   Used per consumer and Unused for the rest (BilledCost 0, EffectiveCost the amortised
//!   share) (`owned.rs`);
//! - on-prem: a One-Time Purchase row for the capital (cash view, EffectiveCost 0), Usage
//!   rows of its depreciation (BilledCost 0), Usage rows of energy (kWh) and operations; a sale
//!   is a Credit row of the cash it brings and a Usage row writing off the book value
//!   (`owned.rs`);
//! - checkpoint storage (Storage) and data moved between sites (Networking), per consumer
//!   (`usage.rs`).
//!
//! So the sum of EffectiveCost is the replication's `total_cost` and the sum of BilledCost its
//! `total_cost_cash`.

mod owned;
mod usage;

use crate::records::{
    ChargePeriod, Consumer, Decimal, FocusRow, FocusUnits, PeriodCharge, UnitCharges,
};
use crate::scenario::{Config, Pool, PoolKind};

/// Unit of GPU quantities (PricingUnit, ConsumedUnit, CommitmentDiscountUnit), in FOCUS's
/// UnitFormat ("GB-Hours").
pub const GPU_HOURS: &str = "GPU-Hours";

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
/// (three on-prem), and per workload up to three of data (storage, egress, ingress) where
/// the pool charges for data.
pub fn rows_estimate(config: &Config, period: ChargePeriod) -> f64 {
    let periods = match period {
        ChargePeriod::Day => config.horizon_h / 24.0,
        ChargePeriod::Month => config.calendar.months() as f64,
    };
    let consumers = (config.workloads.len() + config.services.len() + 1) as f64;
    let workloads = config.workloads.len() as f64;
    let lines: f64 = config
        .strategies
        .iter()
        .flat_map(|s| s.pools.iter())
        .map(|&p| {
            let pool = &config.pools[p];
            let gpus = match pool.kind {
                PoolKind::OnPrem(_) => 3.0,
                _ => 1.0,
            };
            let data = &pool.storage;
            let data_lines = [
                data.storage_per_gb_month,
                data.egress_per_gb,
                data.ingress_per_gb,
            ]
            .iter()
            .filter(|price| **price > 0.0)
            .count() as f64;
            gpus * consumers + data_lines * workloads
        })
        .sum();
    periods * lines
}

/// Whether `currency` is what FOCUS's BillingCurrency takes: an ISO 4217 code (three capital
/// letters).
pub fn is_iso_currency(currency: &str) -> bool {
    currency.len() == 3 && currency.bytes().all(|b| b.is_ascii_uppercase())
}

/// What is sold per unit (GPU-hour, kWh, GB, node): the row's prices.
#[derive(Debug, Clone, Copy)]
struct Rate {
    contracted: f64,
    list: f64,
}

impl Rate {
    /// One price, public and paid.
    fn one(price: f64) -> Rate {
        Rate {
            contracted: price,
            list: price,
        }
    }
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
    /// The price entry within the SKU (the pool and its line); the row prefixes the SKU.
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
#[derive(Debug, Clone, Copy, PartialEq)]
enum Service {
    CloudGpus,
    OnPremGpus,
    Power,
    Operations,
    Storage,
    Network,
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
            // fleetsim does not say what kind of store holds checkpoints.
            Service::Storage => ("Checkpoint Storage", "Storage", "Other (Storage)"),
            Service::Network => ("Data Transfer", "Networking", "Network Connectivity"),
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

    /// The public on-demand price per GPU-hour of the pool's GPU type over `[from_h, to_h)`
    /// (its mean, when prices change): an on-demand pool of that type from the same provider,
    /// else the first such pool of the scenario.
    fn on_demand_list(&self, (from_h, to_h): (f64, f64)) -> Option<f64> {
        let calendar = &self.config.calendar;
        let on_demand = |same_provider: bool| {
            self.config.pools.iter().find_map(|p| match &p.kind {
                PoolKind::OnDemand(e)
                    if p.gpu == self.pool.gpu
                        && (!same_provider || p.provider == self.pool.provider) =>
                {
                    Some(e.price.mean_over(calendar, from_h, to_h))
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
        self.data(periods, rows);
    }

    fn period_h(&self, p: usize) -> (f64, f64) {
        (self.charges.starts_h[p], self.charges.starts_h[p + 1])
    }

    /// RegionId and RegionName: the pool's `region`, else its `site`.
    fn region(&self) -> Option<String> {
        let site = self.pool.storage.site.map(|s| self.config.sites[s].clone());
        self.pool.region.clone().or(site)
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
        let region = self.region();
        // Prefixed by the SKU: one SKU per price entry across every export (FOCUS's
        // SkuPriceId-C-008-M), whatever scenarios a FinOps team loads together.
        let sku_price_id = format!("{}/{}", charge.sku_id, charge.sku_price_id);
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
            region_id: region.clone(),
            region_name: region,
            resource_id: charge.resource_id,
            resource_name: self.pool.name.clone(),
            resource_type: charge.resource_type.to_string(),
            service_category: service_category.to_string(),
            service_name: service_name.to_string(),
            service_subcategory: service_subcategory.to_string(),
            sku_id: charge.sku_id,
            sku_meter: charge.sku_meter.to_string(),
            sku_price_details,
            sku_price_id,
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
