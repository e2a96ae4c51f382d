//! The FOCUS export of services, sites, storage and data transfer, worked out by hand row by row: a
//! price that changes by month, checkpoint storage and data moved between sites (their own SKUs and
//! service categories), on-prem nodes sold (a Credit of the cash and the book value written off), a
//! reservation paid partly up front, and an inference service's GPUs (its team's sub-account, its
//! name in `x_FleetsimService`). Each total is checked against the hand-worked figure and the
//! replication's own `total_cost` and `total_cost_cash`.

use std::sync::atomic::AtomicBool;

use fleetsim::focus;
use fleetsim::records::{ChargePeriod, Decimal, FocusRow};
use fleetsim::runner;

use crate::common::config;

/// January and February 2027 (744 h and 672 h). Two jobs of 16 GPUs (two nodes): `data`
/// (team product) from 1:00 on day 0 for 10 h, with a 500 GB dataset and 100 GB of
/// checkpoints; `feb` (team research) from 10:00 on 1 February for 5 h.
///
/// `hybrid`: a one-node DGX (8 GPUs, too small for either job) at site `dc`, sold when
/// February begins, and the cloud at site `aws`, 2 a GPU-hour in January and 1.5 from
/// February. `reserved`: two reserved nodes, a quarter of the year's term paid up front.
const WORKED: &str = r#"
name = "worked-money"
start = "2027-01-01"
horizon_months = 2
replications = 1
seed = 1
currency = "EUR"

[[workload]]
name = "data"
arrival_times_h = [1.0]
gpus = 16
duration_h = 10
team = "product"
dataset_gb = 500
checkpoint = { every_h = 5, write_h = 0, restart_h = 0 }
checkpoint_gb = 100

[[workload]]
name = "feb"
arrival_times_h = [754.0]
gpus = 16
duration_h = 5
team = "research"

[[pool]]
name = "dgx"
type = "on_prem"
provider = "Example IT"
site = "dc"
egress_per_gb = 0.09
gpu = "H100"
gpus_per_node = 8
nodes = 1
capex_per_node = 12000
amortization_months = 12
available_until = 1
resale_fraction = 0.5
power_kw_per_node = 0
idle_power_kw_per_node = 0
pue = 1
electricity_per_kwh = 0
opex_per_node_month = 744

[[pool]]
name = "cloud"
type = "on_demand"
provider = "AWS"
site = "aws"
ingress_per_gb = 0.01
storage_per_gb_month = 0.744
keep_checkpoints_h = 13
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 2
price_schedule = [{ from = "2027-02", price_per_gpu_h = 1.5 }]

[[pool]]
name = "ri"
type = "reserved"
provider = "AWS"
gpu = "H100"
gpus_per_node = 8
nodes = 2
price_per_gpu_h = 2
discount = 0.5
term_months = 12
upfront = "partial"
upfront_share = 0.25

[[strategy]]
name = "hybrid"
pools = ["dgx", "cloud"]

[[strategy]]
name = "reserved"
pools = ["ri"]
"#;

const DAY0: &str = "2027-01-01T00:00:00Z";
const FEB1: &str = "2027-02-01T00:00:00Z";

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// The rows of `text`'s export by day, and each strategy's (total_cost, total_cost_cash).
fn export(text: &str) -> (Vec<FocusRow>, Vec<(f64, f64)>) {
    let config = config(text);
    let stop = AtomicBool::new(false);
    let mut output = runner::run(&config, false, &|| {}, &stop).unwrap();
    runner::add_focus(&config, &mut output, ChargePeriod::Day, &stop).unwrap();
    let totals = output
        .units
        .iter()
        .map(|u| (u.row.total_cost, u.row.total_cost_cash))
        .collect();
    (focus::rows(&config, output.focus.as_ref().unwrap()), totals)
}

/// (sub-account, quantity, billed, effective) of a strategy's rows of one kind on one day.
fn of(rows: &[FocusRow], strategy: &str, kind: &str, start: &str) -> Vec<(String, f64, f64, f64)> {
    rows.iter()
        .filter(|r| {
            r.x_fleetsim_strategy == strategy
                && r.x_fleetsim_cost_kind == kind
                && r.charge_period_start == start
        })
        .map(|r| {
            (
                r.sub_account_id.clone().unwrap_or_default(),
                r.pricing_quantity.0,
                r.billed_cost.0,
                r.effective_cost.0,
            )
        })
        .collect()
}

fn assert_rows(actual: &[(String, f64, f64, f64)], expected: &[(&str, f64, f64, f64)]) {
    assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
    for (a, e) in actual.iter().zip(expected) {
        assert_eq!(a.0, e.0, "{actual:?} vs {expected:?}");
        assert!(
            close(a.1, e.1) && close(a.2, e.2) && close(a.3, e.3),
            "{actual:?} vs {expected:?}"
        );
    }
}

fn find<'a>(rows: &'a [FocusRow], strategy: &str, kind: &str) -> &'a FocusRow {
    rows.iter()
        .find(|r| r.x_fleetsim_strategy == strategy && r.x_fleetsim_cost_kind == kind)
        .unwrap_or_else(|| panic!("no {kind} row of {strategy}"))
}

/// Sums of EffectiveCost and BilledCost of a strategy.
fn sums(rows: &[FocusRow], strategy: &str) -> (f64, f64) {
    rows.iter()
        .filter(|r| r.x_fleetsim_strategy == strategy)
        .fold((0.0, 0.0), |(e, b), r| {
            (e + r.effective_cost.0, b + r.billed_cost.0)
        })
}

#[test]
fn storage_network_a_sale_and_a_monthly_price_by_hand() {
    let (rows, totals) = export(WORKED);
    // The DGX, idle in January: 12,000 paid on day 0 (Purchase), 1,000 a month of
    // depreciation (1000/31 a day over 192 GPU-hours), operations 744 a month = 24 a day.
    assert_rows(
        &of(&rows, "hybrid", "capital_purchase", DAY0),
        &[("", 1.0, 12_000.0, 0.0)],
    );
    assert_rows(
        &of(&rows, "hybrid", "capital_amortised", DAY0),
        &[("", 192.0, 0.0, 1000.0 / 31.0)],
    );
    assert_rows(
        &of(&rows, "hybrid", "operations", DAY0),
        &[("", 192.0, 24.0, 24.0)],
    );
    // Sold as February begins: 6,000 of cash back (a Credit: a node handed back at 6,000,
    // EffectiveCost = BilledCost), and the book value 12,000 - 1,000 = 11,000 written off in
    // the amortised view: a loss of 5,000 there, -6,000 in the cash view.
    assert_rows(
        &of(&rows, "hybrid", "resale", FEB1),
        &[("", -1.0, -6_000.0, -6_000.0)],
    );
    assert_rows(
        &of(&rows, "hybrid", "write_off", FEB1),
        &[("", 1.0, 0.0, 11_000.0)],
    );
    let credit = find(&rows, "hybrid", "resale");
    assert_eq!(credit.charge_category, "Credit");
    assert_eq!(credit.consumed_quantity, None);
    assert_eq!(credit.contracted_unit_price, Decimal(6000.0));
    assert_eq!(
        credit.region_id.as_deref(),
        Some("dc"),
        "the site, no region given"
    );
    assert!(of(&rows, "hybrid", "capital_amortised", FEB1).is_empty());

    // `data` bursts to the cloud (16 GPUs do not fit the DGX): two nodes x 8 GPUs x 10 h at
    // 2 = 320. Its dataset leaves the home site dc for aws: 500 GB x 0.09 of egress on the
    // DGX's bill, 500 x 0.01 of ingress on the cloud's. Its checkpoints are stored on the
    // cloud from 1:00 to 11:00 + 13 h kept = 23 h of 744: 100 GB x 23/744 GB-months at
    // 0.744 = 2.3.
    assert_rows(
        &of(&rows, "hybrid", "on_demand", DAY0),
        &[("product", 160.0, 320.0, 320.0)],
    );
    assert_rows(
        &of(&rows, "hybrid", "egress", DAY0),
        &[("product", 500.0, 45.0, 45.0)],
    );
    assert_rows(
        &of(&rows, "hybrid", "ingress", DAY0),
        &[("product", 500.0, 5.0, 5.0)],
    );
    assert_rows(
        &of(&rows, "hybrid", "storage", DAY0),
        &[("product", 100.0 * 23.0 / 744.0, 2.3, 2.3)],
    );
    let egress = find(&rows, "hybrid", "egress");
    assert_eq!(
        (
            egress.x_fleetsim_pool.as_str(),
            egress.provider_name.as_str()
        ),
        ("dgx", "Example IT")
    );
    assert_eq!(
        (
            egress.service_category.as_str(),
            egress.service_subcategory.as_str()
        ),
        ("Networking", "Network Connectivity")
    );
    assert_eq!(
        (egress.pricing_unit.as_str(), egress.list_unit_price),
        ("GB", Decimal(0.09))
    );
    assert_eq!(egress.x_fleetsim_workload.as_deref(), Some("data"));
    let storage = find(&rows, "hybrid", "storage");
    assert_eq!(
        (
            storage.service_category.as_str(),
            storage.service_subcategory.as_str()
        ),
        ("Storage", "Other (Storage)")
    );
    assert_eq!(storage.pricing_unit, "GB-Months");
    assert_eq!(storage.contracted_unit_price, Decimal(0.744));
    assert_ne!(storage.sku_id, find(&rows, "hybrid", "on_demand").sku_id);

    // `feb` in February at February's price: 80 GPU-hours at 1.5.
    assert_rows(
        &of(&rows, "hybrid", "on_demand", "2027-02-01T00:00:00Z"),
        &[("research", 80.0, 120.0, 120.0)],
    );
    let feb = rows
        .iter()
        .find(|r| r.x_fleetsim_cost_kind == "on_demand" && r.charge_period_start == FEB1)
        .unwrap();
    assert_eq!(feb.list_unit_price, Decimal(1.5));

    // In all: 1,000 + 744 + 5,000 + 320 + 45 + 5 + 2.3 + 120 amortised; 12,000 + 744 - 6,000
    // + the same cloud and data in cash. The same 7,236.3: the sale books all the capital.
    let (effective, billed) = sums(&rows, "hybrid");
    assert!(
        close(effective, 7236.3) && close(billed, 7236.3),
        "{effective} {billed}"
    );
    assert!(
        close(effective, totals[0].0) && close(billed, totals[0].1),
        "{totals:?}"
    );
}

#[test]
fn a_reservation_paid_partly_up_front_by_hand() {
    let (rows, totals) = export(WORKED);
    // 16 GPUs at 2 less 50 % = 1 a GPU-hour. Up front, a quarter of the year's term (8,760 h,
    // past the horizon too): 16 x 8,760 x 0.25 = 35,040, One-Time, on day 0. The rest month
    // by month: 0.75 x 16 x 744 = 8,928 for January, 0.75 x 16 x 672 = 8,064 for February.
    assert_rows(
        &of(&rows, "reserved", "reserved_purchase", DAY0),
        &[
            ("", 16.0 * 8760.0, 35_040.0, 0.0),
            ("", 16.0 * 744.0, 8_928.0, 0.0),
        ],
    );
    assert_rows(
        &of(&rows, "reserved", "reserved_purchase", FEB1),
        &[("", 16.0 * 672.0, 8_064.0, 0.0)],
    );
    let upfront = find(&rows, "reserved", "reserved_purchase");
    assert_eq!(upfront.charge_frequency, "One-Time");
    assert_eq!(upfront.commitment_discount_status, None);
    assert_eq!(
        upfront.commitment_discount_quantity,
        Some(Decimal(140_160.0))
    );
    // Used and Unused, amortised at 1 a GPU-hour, 384 GPU-hours a day: `data`'s 160 and 224
    // unused on day 0; `feb`'s 80 and 304 unused on 1 February.
    assert_rows(
        &of(&rows, "reserved", "reserved_used", DAY0),
        &[("product", 160.0, 0.0, 160.0)],
    );
    assert_rows(
        &of(&rows, "reserved", "reserved_unused", DAY0),
        &[("", 224.0, 0.0, 224.0)],
    );
    assert_rows(
        &of(&rows, "reserved", "reserved_used", FEB1),
        &[("research", 80.0, 0.0, 80.0)],
    );
    // The list price of used hours is the cloud's on-demand price of the day: 2, then 1.5.
    let used = |day: &str| {
        rows.iter()
            .find(|r| r.x_fleetsim_cost_kind == "reserved_used" && r.charge_period_start == day)
            .unwrap()
            .list_unit_price
    };
    assert_eq!((used(DAY0), used(FEB1)), (Decimal(2.0), Decimal(1.5)));
    // Amortised 16 x 1,416 h = 22,656; cash 35,040 + 8,928 + 8,064 = 52,032. Of the upfront
    // payment the horizon uses 1,416 of 8,760 hours (5,664): with the fees, the 22,656.
    let (effective, billed) = sums(&rows, "reserved");
    assert!(
        close(effective, 22_656.0) && close(billed, 52_032.0),
        "{effective} {billed}"
    );
    assert!(
        close(effective, totals[1].0) && close(billed, totals[1].1),
        "{totals:?}"
    );
    assert!(close(
        35_040.0 * 1416.0 / 8760.0 + 8_928.0 + 8_064.0,
        22_656.0
    ));
}

#[test]
fn a_service_is_billed_to_its_team_by_hand() {
    // A service of 2 GPUs all month (1-GPU replicas placed at once, scale_up_h 0) on one
    // 8-GPU on-demand node at 1 a GPU-hour: each day 48 GPU-hours to team product, service
    // chat, and 144 idle; 31 x 192 = 5,952 in all.
    let (rows, totals) = export(
        r#"
name = "worked-service"
start = "2027-01-01"
horizon_months = 1
replications = 1
currency = "USD"

[[service]]
name = "chat"
team = "product"
gpus = 2
scale_up_h = 0

[[pool]]
name = "cloud"
type = "on_demand"
provider = "AWS"
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 1

[[strategy]]
name = "cloud"
pools = ["cloud"]
"#,
    );
    for day in [DAY0, "2027-01-17T00:00:00Z", "2027-01-31T00:00:00Z"] {
        assert_rows(
            &of(&rows, "cloud", "on_demand", day),
            &[("product", 48.0, 48.0, 48.0), ("", 144.0, 144.0, 144.0)],
        );
    }
    let served = rows.iter().find(|r| r.sub_account_id.is_some()).unwrap();
    assert_eq!(served.x_fleetsim_service.as_deref(), Some("chat"));
    assert_eq!(served.x_fleetsim_workload, None);
    assert_eq!(served.consumed_quantity, Some(Decimal(48.0)));
    let (effective, billed) = sums(&rows, "cloud");
    assert!(
        close(effective, 5952.0) && close(billed, 5952.0),
        "{effective}"
    );
    assert!(close(effective, totals[0].0) && close(billed, totals[0].1));
}
