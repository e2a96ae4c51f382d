//! Prices and money over time against values worked out by hand: a falling price
//! month by month (by yearly change, schedule and trace), the NPV of a constant cost against
//! the annuity formula, a reservation priced at its start month and paid up front, a sale of
//! on-prem nodes, one dataset moved between sites, stored checkpoints, and the CO2 of a
//! constant load.

use std::sync::atomic::AtomicBool;

use fleetsim::records::UnitResult;
use fleetsim::runner;

use crate::common::{config, temp_dir};

/// Hours of each month of 2027 (not a leap year).
const MONTH_H: [f64; 12] = [
    744.0, 672.0, 744.0, 720.0, 744.0, 720.0, 744.0, 744.0, 720.0, 744.0, 720.0, 744.0,
];

fn run(text: &str) -> Vec<UnitResult> {
    let config = config(text);
    runner::run(&config, true, &|| {}, &AtomicBool::new(false))
        .unwrap()
        .units
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// One 8-GPU job from 0 h to the horizon (a year) on an exact on-demand pool, whose price
/// lines are `price`.
fn whole_year_on_demand(price: &str) -> String {
    format!(
        r#"
start = "2027-01-01"
horizon_months = 12
replications = 1
seed = 1
[[workload]]
name = "train"
arrival_times_h = [0.0]
gpus = 8
duration_h = 100000
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 4.0
{price}
provisioning_h = 0
idle_timeout_h = 0
billing_increment_s = 1
[[strategy]]
name = "cloud"
pools = ["cloud"]
"#
    )
}

#[test]
fn a_falling_price_is_paid_month_by_month() {
    // 30 % cheaper a year, compounded monthly: month m costs 4 x 0.7^(m/12) per GPU-hour.
    let units = run(&whole_year_on_demand("price_change_per_year = -0.3"));
    let expected: f64 = (0..12)
        .map(|m| 4.0 * 0.7_f64.powf(m as f64 / 12.0) * 8.0 * MONTH_H[m])
        .sum();
    assert!(
        close(units[0].row.total_cost, expected),
        "{} vs {expected}",
        units[0].row.total_cost
    );
    // The same as a schedule: 4 until June, 3 from July, 2.5 from October.
    let units = run(&whole_year_on_demand(
        r#"price_schedule = [{ from = "2027-07", price_per_gpu_h = 3.0 }, { from = "2027-10", price_per_gpu_h = 2.5 }]"#,
    ));
    let expected: f64 = (0..12)
        .map(|m| [4.0, 3.0, 2.5][usize::from(m >= 6) + usize::from(m >= 9)] * 8.0 * MONTH_H[m])
        .sum();
    assert!(
        close(units[0].row.total_cost, expected),
        "{} vs {expected}",
        units[0].row.total_cost
    );
}

#[test]
fn a_price_trace_is_paid_step_by_step() {
    // 4 per GPU-hour for the first 100 h, 2 until 1000 h, 3 from then to the end (8,760 h).
    let dir = temp_dir("price-trace");
    std::fs::write(
        dir.join("prices.csv"),
        "time,price_per_gpu_h\n2026-03-01T00:00:00Z,4\n2026-03-05T04:00:00Z,2\n2026-04-11T16:00:00Z,3\n",
    )
    .unwrap();
    let scenario = dir.join("s.toml");
    std::fs::write(
        &scenario,
        whole_year_on_demand("price_trace = \"prices.csv\""),
    )
    .unwrap();
    let loaded = fleetsim::scenario::load(&scenario, &[]).unwrap();
    let units = runner::run(&loaded.config, false, &|| {}, &AtomicBool::new(false))
        .unwrap()
        .units;
    let expected = 8.0 * (4.0 * 100.0 + 2.0 * 900.0 + 3.0 * (8760.0 - 1000.0));
    assert!(
        close(units[0].row.total_cost, expected),
        "{} vs {expected}",
        units[0].row.total_cost
    );
}

#[test]
fn the_npv_of_a_constant_monthly_cost_is_an_annuity() {
    // Operations only, 10,000 a month for 24 months, at 8 % a year: the month-m payment is
    // worth v^m, v = 1.08^(-1/12), so the NPV is 10,000 (1 - v^24) / (1 - v).
    let units = run(r#"
start = "2027-01-01"
horizon_months = 24
replications = 1
discount_rate_per_year = 0.08
[[workload]]
name = "w"
arrival_times_h = [1.0]
gpus = 1
duration_h = 1
[[pool]]
name = "dc"
type = "on_prem"
gpu = "H100"
gpus_per_node = 8
nodes = 1
capex_per_node = 0
amortization_months = 36
power_kw_per_node = 0
pue = 1
electricity_per_kwh = 0
opex_per_node_month = 10000
[[strategy]]
name = "dc"
pools = ["dc"]
"#);
    let v = 1.08_f64.powf(-1.0 / 12.0);
    let annuity = 10_000.0 * (1.0 - v.powi(24)) / (1.0 - v);
    let row = &units[0].row;
    assert!(close(row.total_cost_cash, 240_000.0));
    assert!(
        close(row.total_cost_npv, annuity),
        "{} vs {annuity}",
        row.total_cost_npv
    );
}

/// A reservation of one 8-GPU node, on-demand list 10 falling 20 % a year, 40 % off, from
/// month `start` for 12 months; `upfront` lines as given.
fn reservation(start: u32, upfront: &str) -> String {
    format!(
        r#"
start = "2027-01-01"
horizon_months = 24
replications = 1
[[workload]]
name = "w"
arrival_times_h = [1.0]
gpus = 1
duration_h = 1
[[pool]]
name = "ri"
type = "reserved"
gpu = "H100"
gpus_per_node = 8
nodes = 1
price_per_gpu_h = 10.0
price_change_per_year = -0.2
discount = 0.4
term_months = 12
start_month = {start}
{upfront}
[[strategy]]
name = "ri"
pools = ["ri"]
"#
    )
}

#[test]
fn a_reservation_is_priced_at_the_month_its_term_starts() {
    // From month 13 (2028-02) for 12 months: 10 x 0.8^(13/12) x 0.6 per GPU-hour, for every
    // hour of 2028-02 .. 2028-12 inside the horizon (2029-01 is past it): 2028 is a leap year,
    // so 8,784 - 744 h.
    let units = run(&reservation(13, ""));
    let price = 10.0 * 0.8_f64.powf(13.0 / 12.0) * 0.6;
    let hours = 8784.0 - 744.0;
    let row = &units[0].row;
    assert!(close(row.cost_reserved, 8.0 * hours * price), "{row:?}");
    assert!(close(row.cost_reserved_cash, row.cost_reserved));
    // Paid all up front: the whole term in its first month, also its month past the horizon
    // (2029-01, 744 h), in the cash view only.
    let upfront = run(&reservation(13, "upfront = \"all\""));
    let row = &upfront[0].row;
    assert!(close(row.cost_reserved, 8.0 * hours * price));
    assert!(
        close(row.cost_reserved_cash, 8.0 * 8784.0 * price),
        "{row:?}"
    );
    let month = &upfront[0].months[13];
    assert!(close(month.cost_reserved_cash, 8.0 * 8784.0 * price));
    assert_eq!(upfront[0].months[14].cost_reserved_cash, 0.0);
    // Half up front: half the term in its first month, half of each month's cost monthly.
    let partial = run(&reservation(
        13,
        "upfront = \"partial\"\nupfront_share = 0.5",
    ));
    let feb_h = 696.0;
    assert!(close(
        partial[0].months[13].cost_reserved_cash,
        0.5 * 8.0 * 8784.0 * price + 0.5 * 8.0 * feb_h * price
    ));
}

#[test]
fn nodes_sold_bring_cash_back_and_book_the_loss_in_the_amortised_view() {
    // One node bought at 360,000 in month 0, depreciated over 36 months to 10 % residual,
    // sold at the start of month 12 for 50 %: 12 months of 9,000 depreciation, then the book
    // value 360,000 - 108,000 = 252,000 against 180,000 cash: a loss of 72,000.
    let units = run(r#"
start = "2027-01-01"
horizon_months = 24
replications = 1
[[workload]]
name = "w"
arrival_times_h = [1.0]
gpus = 1
duration_h = 1
[[pool]]
name = "dc"
type = "on_prem"
gpu = "H100"
gpus_per_node = 8
nodes = 1
capex_per_node = 360000
amortization_months = 36
residual_fraction = 0.1
available_until = 12
resale_fraction = 0.5
power_kw_per_node = 0
pue = 1
electricity_per_kwh = 0
opex_per_node_month = 0
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 1
[[strategy]]
name = "dc"
pools = ["dc", "cloud"]
"#);
    let months = &units[0].months;
    assert!(close(months[11].cost_capital, 9_000.0));
    assert!(close(months[12].cost_capital, 72_000.0));
    assert!(close(months[12].cost_capital_cash, -180_000.0));
    assert_eq!(months[13].cost_capital, 0.0);
    assert!(close(units[0].row.cost_capital, 12.0 * 9_000.0 + 72_000.0));
    assert!(close(units[0].row.cost_capital_cash, 360_000.0 - 180_000.0));
    // The nodes are gone from month 12: no paid GPU-hours there.
    assert_eq!(units[0].pool_months[0][12].gpu_hours_paid, 0.0);
}

#[test]
fn a_dataset_moves_once_to_a_site_it_is_not_at() {
    // The strategy's home is the DGX site "dc"; its one node is busy with a long job, so a
    // second job (dataset 500 GB) bursts to the cloud at site "aws": 500 x (0.09 egress from
    // dc + 0.01 ingress at aws) = 50 for the move, charged to its workload.
    let units = run(r#"
start = "2027-01-01"
horizon_months = 1
replications = 1
[[workload]]
name = "long"
arrival_times_h = [0.5]
gpus = 8
duration_h = 500
[[workload]]
name = "data"
arrival_times_h = [1.0]
gpus = 8
duration_h = 10
dataset_gb = 500
[[pool]]
name = "dgx"
type = "on_prem"
gpu = "H100"
gpus_per_node = 8
nodes = 1
capex_per_node = 0
amortization_months = 1
power_kw_per_node = 0
pue = 1
electricity_per_kwh = 0
opex_per_node_month = 0
site = "dc"
egress_per_gb = 0.09
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 1
site = "aws"
ingress_per_gb = 0.01
[[strategy]]
name = "hybrid"
pools = ["dgx", "cloud"]
"#);
    let unit = &units[0];
    assert!(close(unit.row.cost_network, 50.0), "{:?}", unit.row);
    // Its workload's cost: 80 GPU-hours of cloud at 1, plus the move.
    assert!(
        close(unit.workloads[1].cost, 80.0 + 50.0),
        "{:?}",
        unit.workloads[1]
    );
}

#[test]
fn checkpoints_are_stored_while_the_job_lives_and_kept_after() {
    // A 100 h job with 200 GB of checkpoints on a pool charging 0.03 per GB-month and keeping
    // checkpoints 24 h after a job: stored from 1 h to 125 h of January (744 h):
    // 200 x 0.03 x 124 / 744 = 1.
    let units = run(r#"
start = "2027-01-01"
horizon_months = 1
replications = 1
[[workload]]
name = "train"
arrival_times_h = [1.0]
gpus = 8
duration_h = 100
checkpoint = { every_h = 10, write_h = 0, restart_h = 0 }
checkpoint_gb = 200
[[pool]]
name = "cloud"
type = "on_demand"
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 1
storage_per_gb_month = 0.03
keep_checkpoints_h = 24
[[strategy]]
name = "cloud"
pools = ["cloud"]
"#);
    assert!(close(units[0].row.cost_storage, 1.0), "{:?}", units[0].row);
}

#[test]
fn a_constant_on_prem_load_emits_its_energy_times_the_grid() {
    // One node (idle 2 kW, busy 10 kW for its 8 GPUs), PUE 1.5, busy half the GPUs all of
    // January: (2 x 744 + 8 x 4 x 744 / 8) x 1.5 kWh at 0.4 kg a kWh.
    let units = run(r#"
start = "2027-01-01"
horizon_months = 1
replications = 1
[[workload]]
name = "half"
arrival_times_h = [0.0]
gpus = 4
duration_h = 10000
[[pool]]
name = "dgx"
type = "on_prem"
gpu = "H100"
gpus_per_node = 8
nodes = 1
capex_per_node = 0
amortization_months = 1
power_kw_per_node = 10
idle_power_kw_per_node = 2
pue = 1.5
electricity_per_kwh = 0.2
opex_per_node_month = 0
grid_kg_co2_per_kwh = 0.4
[[strategy]]
name = "dgx"
pools = ["dgx"]
"#);
    let kwh = (2.0 * 744.0 + 8.0 * 4.0 * 744.0 / 8.0) * 1.5;
    let row = &units[0].row;
    assert!(close(row.co2_tonnes, kwh * 0.4 / 1000.0), "{row:?}");
    assert!(close(row.cost_energy, kwh * 0.2));
}

#[test]
fn work_moves_to_a_newer_gpu_when_it_appears_and_leaves_a_retired_one() {
    // B200 nodes (2.2x an H100) can be had from month 1 (February); H100 cloud nodes no
    // longer from month 2 (March). A 22-h H100 job in January or February runs on the H100
    // pool (first in order) for 22 h; one in March, when no H100 node can be had, on B200s
    // for 22 / 2.2 = 10 h.
    let units = run(r#"
start = "2027-01-01"
horizon_months = 3
replications = 1
[gpu_speed]
H100 = 1.0
B200 = 2.2
[[workload]]
name = "train"
arrival_times_h = [10.0, 800.0, 1500.0]
gpus = 8
duration_h = 22
gpu = "H100"
accepts = ["H100", "B200"]
[[pool]]
name = "h100"
type = "on_demand"
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 4
available_until = 2
[[pool]]
name = "b200"
type = "on_demand"
gpu = "B200"
gpus_per_node = 8
price_per_gpu_h = 7
available_from = 1
[[strategy]]
name = "refresh"
pools = ["h100", "b200"]
"#);
    let jobs = &units[0].jobs;
    let runs: Vec<(String, f64)> = jobs
        .iter()
        .map(|j| (j.pool.clone(), ((j.end_h - j.start_h) * 1e9).round() / 1e9))
        .collect();
    assert_eq!(
        runs,
        vec![
            ("h100".into(), 22.0),
            ("h100".into(), 22.0),
            ("b200".into(), 10.0)
        ],
        "{jobs:?}"
    );
}
