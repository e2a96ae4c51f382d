//! A bill finance can load: the FOCUS export, a worked bill derived by hand, row by row; and, on
//! any result folder, what the FOCUS validator does not check (gotcha 6 of the note
//! `shared/notes/focus-export.md`): the sums against the replication's totals, reserved hours, the
//! commitment identity, date and decimal formats, enum values, and List/Contracted cost = unit
//! price x quantity. `.ci/run` runs the validator itself on every shipped scenario. Budgets by
//! month: percentiles in `monthly.csv` against `monthly_replications.csv`. Clean cells: every CSV
//! read by Python's csv module, and empty cells read back by `plot` and `sweep --resume`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::AtomicBool;

use fleetsim::focus;
use fleetsim::records::{ChargePeriod, Decimal, FocusRow};
use fleetsim::runner;

use crate::common::{config, fleetsim, skip_or_fail, temp_dir};

/// Four strategies over January 2027 (31 days), one pool each, and two jobs: `train` (team
/// research) takes 8 GPUs from 20:00 on day 0 for 10 h (4 h on day 0, 6 h on day 1), `serve`
/// (team product) 4 GPUs from 07:00 to 09:00 on day 1.
const WORKED: &str = r#"
name = "worked"
start = "2027-01-01"
horizon_months = 1
replications = 1
seed = 1
currency = "EUR"

[[workload]]
name = "train"
arrival_times_h = [20.0]
gpus = 8
duration_h = 10
team = "research"

[[workload]]
name = "serve"
arrival_times_h = [31.0]
gpus = 4
duration_h = 2
team = "product"

[[pool]]
name = "cloud"
type = "on_demand"
provider = "AWS"
region = "eu-central-1"
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 3

[[pool]]
name = "committed"
type = "reserved"
provider = "AWS"
gpu = "H100"
gpus_per_node = 8
nodes = 1
price_per_gpu_h = 3
discount = 0.5
term_months = 1

[[pool]]
name = "dgx"
type = "on_prem"
provider = "Example IT"
gpu = "H100"
gpus_per_node = 8
nodes = 1
capex_per_node = 31000
amortization_months = 31
power_kw_per_node = 10
idle_power_kw_per_node = 2
pue = 1.5
electricity_per_kwh = 0.1
opex_per_node_month = 310

[[pool]]
name = "spotty"
type = "spot"
provider = "AWS"
region = "eu-central-1"
gpu = "H100"
gpus_per_node = 8
price_per_gpu_h = 1
# About one preemption in a hundred thousand years of node time: none in this month.
preemption = { mean_h = 1e9 }

[[strategy]]
name = "cloud"
pools = ["cloud"]

[[strategy]]
name = "spot"
pools = ["spotty"]

[[strategy]]
name = "reserved"
pools = ["committed"]

[[strategy]]
name = "onprem"
pools = ["dgx"]
"#;

fn worked_rows(period: ChargePeriod) -> Vec<FocusRow> {
    let config = config(WORKED);
    let stop = AtomicBool::new(false);
    let mut output = runner::run(&config, false, &|| {}, &stop).unwrap();
    runner::add_focus(&config, &mut output, period, &stop).unwrap();
    focus::rows(&config, output.focus.as_ref().unwrap())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// The rows of a strategy's cost kind on the day starting `day`, as (sub-account, quantity,
/// billed, effective).
fn of(
    rows: &[FocusRow],
    strategy: &str,
    kind: &str,
    start: &str,
) -> Vec<(Option<String>, f64, f64, f64)> {
    rows.iter()
        .filter(|r| {
            r.x_fleetsim_strategy == strategy
                && r.x_fleetsim_cost_kind == kind
                && r.charge_period_start == start
        })
        .map(|r| {
            (
                r.sub_account_id.clone(),
                r.pricing_quantity.0,
                r.billed_cost.0,
                r.effective_cost.0,
            )
        })
        .collect()
}

fn assert_rows(
    actual: &[(Option<String>, f64, f64, f64)],
    expected: &[(Option<&str>, f64, f64, f64)],
) {
    assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
    for (a, e) in actual.iter().zip(expected) {
        assert_eq!(a.0.as_deref(), e.0, "{actual:?} vs {expected:?}");
        assert!(
            close(a.1, e.1) && close(a.2, e.2) && close(a.3, e.3),
            "{actual:?} vs {expected:?}"
        );
    }
}

const DAY0: &str = "2027-01-01T00:00:00Z";
const DAY1: &str = "2027-01-02T00:00:00Z";
const DAY2: &str = "2027-01-03T00:00:00Z";

#[test]
fn a_worked_bill_by_day() {
    let rows = worked_rows(ChargePeriod::Day);
    let research = Some("research");
    let product = Some("product");

    // On demand at 3 a GPU-hour, nodes released at once: day 0 bills train's 4 h x 8 GPUs =
    // 32 GPU-h (96); day 1 its 6 h (48 GPU-h, 144), then serve's node, 2 h x 8 GPUs = 16 GPU-h
    // of which 8 busy (product, 24) and 8 idle (24).
    assert_rows(
        &of(&rows, "cloud", "on_demand", DAY0),
        &[(research, 32.0, 96.0, 96.0)],
    );
    assert_rows(
        &of(&rows, "cloud", "on_demand", DAY1),
        &[
            (research, 48.0, 144.0, 144.0),
            (product, 8.0, 24.0, 24.0),
            (None, 8.0, 24.0, 24.0),
        ],
    );
    assert!(of(&rows, "cloud", "on_demand", DAY2).is_empty());
    let row = rows
        .iter()
        .find(|r| r.x_fleetsim_strategy == "cloud" && r.sub_account_id.is_none())
        .unwrap();
    assert_eq!(row.consumed_quantity, Some(Decimal(0.0)));
    assert_eq!(
        (row.region_id.as_deref(), row.provider_name.as_str()),
        (Some("eu-central-1"), "AWS")
    );
    assert_eq!(row.billing_period_start, DAY0);
    assert_eq!(row.billing_period_end, "2027-02-01T00:00:00Z");
    assert_eq!(row.charge_period_end, DAY2);
    assert_eq!(row.billing_account_id, "worked/cloud");

    // Spot at 1 a GPU-hour, the same nodes as on demand: Dynamic pricing, and the list price
    // is the on-demand price of an H100 from the same provider (3), so ListCost less
    // EffectiveCost is what spot saved.
    assert_rows(
        &of(&rows, "spot", "spot", DAY0),
        &[(research, 32.0, 32.0, 32.0)],
    );
    assert_rows(
        &of(&rows, "spot", "spot", DAY1),
        &[
            (research, 48.0, 48.0, 48.0),
            (product, 8.0, 8.0, 8.0),
            (None, 8.0, 8.0, 8.0),
        ],
    );
    let spot = rows
        .iter()
        .find(|r| r.x_fleetsim_strategy == "spot")
        .unwrap();
    assert_eq!(spot.pricing_category, "Dynamic");
    assert_eq!(
        (
            spot.list_unit_price,
            spot.contracted_unit_price,
            spot.list_cost
        ),
        (Decimal(3.0), Decimal(1.0), Decimal(96.0))
    );
    assert_eq!(
        spot.sku_id, row.sku_id,
        "one SKU whatever the pricing category"
    );
    assert_ne!(spot.sku_price_id, row.sku_price_id);

    // Reserved: 8 GPUs x 744 h = 5,952 GPU-h at 3 x (1 - 0.5) = 1.5: a January fee of 8,928
    // (Purchase, BilledCost), and each day 192 GPU-h: day 0 used 32 (48) and unused 160
    // (240); day 1 used 48 + 8, unused 136; day 2 unused 192 (288). BilledCost 0 on usage.
    assert_rows(
        &of(&rows, "reserved", "reserved_purchase", DAY0),
        &[(None, 5952.0, 8928.0, 0.0)],
    );
    assert_rows(
        &of(&rows, "reserved", "reserved_used", DAY0),
        &[(research, 32.0, 0.0, 48.0)],
    );
    assert_rows(
        &of(&rows, "reserved", "reserved_unused", DAY0),
        &[(None, 160.0, 0.0, 240.0)],
    );
    assert_rows(
        &of(&rows, "reserved", "reserved_used", DAY1),
        &[(research, 48.0, 0.0, 72.0), (product, 8.0, 0.0, 12.0)],
    );
    assert_rows(
        &of(&rows, "reserved", "reserved_unused", DAY2),
        &[(None, 192.0, 0.0, 288.0)],
    );
    let purchase = rows
        .iter()
        .find(|r| r.x_fleetsim_cost_kind == "reserved_purchase")
        .unwrap();
    assert_eq!(purchase.charge_period_end, "2027-02-01T00:00:00Z");
    assert_eq!(purchase.charge_frequency, "Recurring");
    let used = rows
        .iter()
        .find(|r| r.x_fleetsim_cost_kind == "reserved_used")
        .unwrap();
    // The list price is the on-demand price of an H100 from the same provider.
    assert_eq!(
        (used.list_unit_price, used.contracted_unit_price),
        (Decimal(3.0), Decimal(1.5))
    );
    assert_eq!(used.commitment_discount_status.as_deref(), Some("Used"));
    assert_eq!(used.pricing_category, "Committed");

    // On-prem: 31,000 of capital on day 0 (cash), amortised 1,000 a month = 1000/31 a day;
    // operations 310 a month = 10 a day; each shared by GPU-hours over 192 paid a day.
    // Energy: idle 2 kW x 24 h x 1.5 = 72 kWh a day; busy GPUs draw (10 - 2) / 8 = 1 kW each:
    // day 0 adds 32 x 1.5 = 48 kWh (120 kWh, 12.0), day 1 adds 56 x 1.5 = 84 (156 kWh, 15.6).
    assert_rows(
        &of(&rows, "onprem", "capital_purchase", DAY0),
        &[(None, 1.0, 31000.0, 0.0)],
    );
    let day = 1000.0 / 31.0;
    assert_rows(
        &of(&rows, "onprem", "capital_amortised", DAY0),
        &[
            (research, 32.0, 0.0, day * 32.0 / 192.0),
            (None, 160.0, 0.0, day * 160.0 / 192.0),
        ],
    );
    // kWh per GPU-hour on day 0: 120 / 192 = 0.625.
    assert_rows(
        &of(&rows, "onprem", "energy", DAY0),
        &[(research, 20.0, 2.0, 2.0), (None, 100.0, 10.0, 10.0)],
    );
    assert_rows(
        &of(&rows, "onprem", "energy", DAY1),
        &[
            (research, 156.0 * 48.0 / 192.0, 15.6 * 0.25, 15.6 * 0.25),
            (
                product,
                156.0 * 8.0 / 192.0,
                15.6 * 8.0 / 192.0,
                15.6 * 8.0 / 192.0,
            ),
            (
                None,
                156.0 * 136.0 / 192.0,
                15.6 * 136.0 / 192.0,
                15.6 * 136.0 / 192.0,
            ),
        ],
    );
    assert_rows(
        &of(&rows, "onprem", "operations", DAY2),
        &[(None, 192.0, 10.0, 10.0)],
    );
    let capital = rows
        .iter()
        .find(|r| r.x_fleetsim_cost_kind == "capital_amortised")
        .unwrap();
    // No on-demand pool of the same provider: the scenario's H100 on-demand price.
    assert_eq!(capital.list_unit_price, Decimal(3.0));
    assert_eq!(capital.provider_name, "Example IT");
    assert_eq!(capital.invoice_issuer_name, "Example IT");

    // Totals: the amortised and cash views of each strategy, by hand.
    //   cloud 96 + 144 + 48 = 288; spot a third of it, 96; reserved 8,928; on-prem 1,000 + 310 + energy (31 x 72 kWh
    //   idle + 48 + 84 kWh of load = 2,364 kWh at 0.1 = 236.4) = 1,546.4 amortised, 31,546.4
    //   cash.
    let sum = |strategy: &str, f: fn(&FocusRow) -> f64| -> f64 {
        rows.iter()
            .filter(|r| r.x_fleetsim_strategy == strategy)
            .map(f)
            .sum()
    };
    for (strategy, amortised, cash) in [
        ("cloud", 288.0, 288.0),
        ("spot", 96.0, 96.0),
        ("reserved", 8928.0, 8928.0),
        ("onprem", 1546.4, 31546.4),
    ] {
        assert!(
            close(sum(strategy, |r| r.effective_cost.0), amortised),
            "{strategy}: {}",
            sum(strategy, |r| r.effective_cost.0)
        );
        assert!(
            close(sum(strategy, |r| r.billed_cost.0), cash),
            "{strategy}: {}",
            sum(strategy, |r| r.billed_cost.0)
        );
    }
}

#[test]
fn a_monthly_bill_adds_the_days_up() {
    let rows = worked_rows(ChargePeriod::Month);
    let research = Some("research");
    let product = Some("product");
    assert_rows(
        &of(&rows, "cloud", "on_demand", DAY0),
        &[
            (research, 80.0, 240.0, 240.0),
            (product, 8.0, 24.0, 24.0),
            (None, 8.0, 24.0, 24.0),
        ],
    );
    assert_rows(
        &of(&rows, "reserved", "reserved_unused", DAY0),
        &[(None, 5952.0 - 88.0, 0.0, (5952.0 - 88.0) * 1.5)],
    );
    // Energy of the month: 31 x 72 + 88 x 1.5 = 2,364 kWh, 236.4 in all.
    let energy: f64 = of(&rows, "onprem", "energy", DAY0)
        .iter()
        .map(|r| r.3)
        .sum();
    assert!(close(energy, 236.4), "{energy}");
    let kwh: f64 = of(&rows, "onprem", "energy", DAY0)
        .iter()
        .map(|r| r.1)
        .sum();
    assert!(close(kwh, 2364.0), "{kwh}");
    assert!(rows.iter().all(|r| r.charge_period_start == DAY0));
}

/// FOCUS columns of type Decimal.
const DECIMALS: [&str; 13] = [
    "BilledCost",
    "CommitmentDiscountQuantity",
    "ConsumedQuantity",
    "ContractedCost",
    "ContractedUnitPrice",
    "EffectiveCost",
    "ListCost",
    "ListUnitPrice",
    "PricingCurrencyContractedUnitPrice",
    "PricingCurrencyEffectiveCost",
    "PricingCurrencyListUnitPrice",
    "PricingQuantity",
    "x_FleetsimReplication",
];

const DATES: [&str; 4] = [
    "BillingPeriodStart",
    "BillingPeriodEnd",
    "ChargePeriodStart",
    "ChargePeriodEnd",
];

/// FOCUS 1.2's allowed values (the specification's tables), for the columns the validator
/// does not really check.
fn allowed() -> BTreeMap<&'static str, Vec<&'static str>> {
    BTreeMap::from([
        (
            "ChargeCategory",
            vec!["Usage", "Purchase", "Tax", "Credit", "Adjustment"],
        ),
        ("ChargeClass", vec!["", "Correction"]),
        (
            "ChargeFrequency",
            vec!["One-Time", "Recurring", "Usage-Based"],
        ),
        (
            "PricingCategory",
            vec!["Standard", "Dynamic", "Committed", "Other"],
        ),
        ("CommitmentDiscountStatus", vec!["", "Used", "Unused"]),
        ("CommitmentDiscountCategory", vec!["", "Spend", "Usage"]),
        (
            "ServiceCategory",
            vec![
                "AI and Machine Learning",
                "Analytics",
                "Business Applications",
                "Compute",
                "Databases",
                "Developer Tools",
                "Multicloud",
                "Identity",
                "Integration",
                "Internet of Things",
                "Management and Governance",
                "Media",
                "Migration",
                "Mobile",
                "Networking",
                "Security",
                "Storage",
                "Web",
                "Other",
            ],
        ),
    ])
}

/// The subcategories fleetsim uses, with the one parent FOCUS gives each.
const SUBCATEGORIES: [(&str, &str); 6] = [
    ("Virtual Machines", "Compute"),
    ("Other (Compute)", "Compute"),
    ("Other (Other)", "Other"),
    ("Support", "Management and Governance"),
    ("Other (Storage)", "Storage"),
    ("Network Connectivity", "Networking"),
];

/// Words the validator's loader takes for null.
const NULL_WORDS: [&str; 6] = [
    "NULL",
    "INVALID",
    "INVALID_COST",
    "BAD_DATE",
    "INVALID_DECIMAL",
    "INVALID_INT",
];

fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 20
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// A plain decimal with a decimal point: digits, a point, digits (no sign but `-`, no
/// exponent, no thousands separator).
fn is_decimal(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let Some((whole, fraction)) = digits.split_once('.') else {
        return false;
    };
    !whole.is_empty()
        && !fraction.is_empty()
        && whole.bytes().all(|c| c.is_ascii_digit())
        && fraction.bytes().all(|c| c.is_ascii_digit())
}

fn number(row: &BTreeMap<String, String>, column: &str) -> f64 {
    row[column]
        .parse()
        .unwrap_or_else(|_| panic!("{column} = {:?}", row[column]))
}

/// Checks a result folder's `focus.csv` against its `replications.csv`, `pools.csv` and
/// `run.json`; returns the number of rows.
pub fn check_focus_folder(dir: &Path) -> usize {
    let mut reader = csv::Reader::from_path(dir.join("focus.csv")).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    // Custom columns come after every FOCUS column.
    let first_custom = header.iter().position(|h| h.starts_with("x_")).unwrap();
    assert!(
        header[first_custom..].iter().all(|h| h.starts_with("x_")),
        "{header:?}"
    );
    assert_eq!(first_custom, 52, "the 52 FOCUS 1.2 columns fleetsim fills");
    let rows: Vec<BTreeMap<String, String>> = reader
        .records()
        .map(|r| {
            header
                .iter()
                .cloned()
                .zip(r.unwrap().iter().map(String::from))
                .collect()
        })
        .collect();
    assert!(!rows.is_empty());
    let allowed = allowed();
    for (line, row) in rows.iter().enumerate() {
        let at = format!("{}: row {}", dir.display(), line + 2);
        for column in DATES {
            assert!(is_date(&row[column]), "{at}: {column} = {:?}", row[column]);
        }
        for column in DECIMALS {
            let text = &row[column];
            if column == "x_FleetsimReplication" {
                assert!(text.parse::<u32>().is_ok(), "{at}: {column} = {text:?}");
            } else {
                assert!(
                    text.is_empty() || is_decimal(text),
                    "{at}: {column} = {text:?}"
                );
            }
        }
        for (column, values) in &allowed {
            assert!(
                values.contains(&row[*column].as_str()),
                "{at}: {column} = {:?}",
                row[*column]
            );
        }
        let parent = SUBCATEGORIES
            .iter()
            .find(|(sub, _)| *sub == row["ServiceSubcategory"])
            .unwrap_or_else(|| panic!("{at}: {}", row["ServiceSubcategory"]));
        assert_eq!(parent.1, row["ServiceCategory"], "{at}");
        for cell in row.values() {
            assert!(!NULL_WORDS.contains(&cell.as_str()), "{at}: {cell}");
        }
        // What the validator cannot see on rows whose ChargeClass is null (gotcha 6).
        let quantity = number(row, "PricingQuantity");
        for (cost, price) in [
            ("ListCost", "ListUnitPrice"),
            ("ContractedCost", "ContractedUnitPrice"),
        ] {
            let expected = number(row, price) * quantity;
            let found = number(row, cost);
            assert!(
                (found - expected).abs() <= 1e-9 * expected.abs().max(1.0),
                "{at}: {cost} {found} != {price} x PricingQuantity = {expected}"
            );
        }
        for (mirror, of) in [
            ("PricingCurrencyListUnitPrice", "ListUnitPrice"),
            ("PricingCurrencyContractedUnitPrice", "ContractedUnitPrice"),
            ("PricingCurrencyEffectiveCost", "EffectiveCost"),
            ("PricingCurrency", "BillingCurrency"),
        ] {
            assert_eq!(row[mirror], row[of], "{at}");
        }
        assert_eq!(row["ProviderName"], row["InvoiceIssuerName"], "{at}");
        assert!(
            row["InvoiceId"].is_empty(),
            "{at}: simulated bills have no invoice"
        );
        match row["ChargeCategory"].as_str() {
            "Purchase" => {
                assert_eq!(number(row, "EffectiveCost"), 0.0, "{at}");
                assert_ne!(row["ChargeFrequency"], "Usage-Based", "{at}");
                assert!(row["ConsumedQuantity"].is_empty(), "{at}");
            }
            "Usage" => assert!(
                !row["ConsumedQuantity"].is_empty() || row["CommitmentDiscountStatus"] == "Unused",
                "{at}"
            ),
            // An on-prem sale's cash: a credit unrelated to other charges, EffectiveCost =
            // BilledCost (EffectiveCost-C-010-C, which the validator does not run).
            "Credit" => {
                assert_eq!(row["x_FleetsimCostKind"], "resale", "{at}");
                assert_eq!(row["EffectiveCost"], row["BilledCost"], "{at}");
                assert!(number(row, "BilledCost") < 0.0, "{at}");
                assert!(row["ConsumedQuantity"].is_empty(), "{at}");
            }
            other => panic!("{at}: {other}"),
        }
        assert_eq!(
            row["ConsumedQuantity"].is_empty(),
            row["ConsumedUnit"].is_empty(),
            "{at}"
        );
        let committed = !row["CommitmentDiscountId"].is_empty();
        assert_eq!(
            committed,
            row["x_FleetsimCostKind"].starts_with("reserved"),
            "{at}"
        );
        if committed && row["ChargeCategory"] == "Usage" {
            assert_eq!(row["PricingCategory"], "Committed", "{at}");
            assert_eq!(number(row, "BilledCost"), 0.0, "{at}");
            assert!(!row["CommitmentDiscountStatus"].is_empty(), "{at}");
        }
        match row["x_FleetsimCostKind"].as_str() {
            "spot" => assert_eq!(row["PricingCategory"], "Dynamic", "{at}"),
            "on_demand" => assert_eq!(row["PricingCategory"], "Standard", "{at}"),
            _ => {}
        }
    }

    // Each price entry belongs to one SKU (SkuPriceId-C-008-M, a rule the validator runs
    // only across the rows it is given).
    let mut skus: BTreeMap<&str, &str> = BTreeMap::new();
    for row in &rows {
        let sku = skus.entry(&row["SkuPriceId"]).or_insert(&row["SkuId"]);
        assert_eq!(*sku, row["SkuId"], "SkuPriceId {}", row["SkuPriceId"]);
    }

    // Per strategy: the sums are the exported replication's totals (replications.csv), and
    // that replication is the one with the median total cost (lower median).
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    let replications = read(&dir.join("replications.csv"));
    let exported = run["focus"]["replications"].as_array().unwrap();
    assert_eq!(exported.len(), run["strategies"].as_array().unwrap().len());
    for entry in exported {
        let strategy = entry["strategy"].as_str().unwrap();
        let replication = entry["replication"].as_u64().unwrap().to_string();
        let mut costs: Vec<(f64, String)> = replications
            .iter()
            .filter(|r| r["strategy"] == strategy)
            .map(|r| (number(r, "total_cost"), r["replication"].clone()))
            .collect();
        costs.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert_eq!(
            costs[(costs.len() - 1) / 2].1,
            replication,
            "{strategy}: {costs:?}"
        );
        let row = replications
            .iter()
            .find(|r| r["strategy"] == strategy && r["replication"] == replication)
            .unwrap();
        let of_strategy = rows.iter().filter(|r| r["x_FleetsimStrategy"] == strategy);
        let (mut effective, mut billed) = (0.0, 0.0);
        for r in of_strategy {
            assert_eq!(r["x_FleetsimReplication"], replication);
            effective += number(r, "EffectiveCost");
            billed += number(r, "BilledCost");
        }
        for (sum, column) in [(effective, "total_cost"), (billed, "total_cost_cash")] {
            let total = number(row, column);
            assert!(
                (sum - total).abs() <= 1e-6 * total.abs().max(1.0),
                "{strategy}: focus.csv sums to {sum}, replications.csv {column} = {total}"
            );
        }
    }

    // Reserved pools: Used + Unused GPU-hours are every GPU-hour reserved (pools.csv's paid
    // hours of the exported replication).
    let pools = read(&dir.join("pools.csv"));
    for pool in pools.iter().filter(|p| p["type"] == "reserved") {
        let Some(entry) = exported
            .iter()
            .find(|e| e["strategy"] == pool["strategy"].as_str())
        else {
            continue;
        };
        if entry["replication"].as_u64().unwrap().to_string() != pool["replication"] {
            continue;
        }
        let hours: f64 = rows
            .iter()
            .filter(|r| {
                r["x_FleetsimStrategy"] == pool["strategy"]
                    && r["x_FleetsimPool"] == pool["pool"]
                    && !r["CommitmentDiscountStatus"].is_empty()
            })
            .map(|r| {
                assert_eq!(r["PricingUnit"], "GPU-Hours");
                number(r, "PricingQuantity")
            })
            .sum();
        let paid = number(pool, "gpu_hours_paid");
        assert!(
            (hours - paid).abs() <= 1e-6 * paid.max(1.0),
            "{}/{}: Used + Unused {hours} GPU-h, reserved {paid}",
            pool["strategy"],
            pool["pool"]
        );
    }

    // The commitment identity: for each commitment, the amortised Used + Unused equals what
    // its purchases billed for the horizon's hours. A monthly fee covers its month; an
    // upfront payment (PricingQuantity: the whole term's GPU-hours) may cover hours past the
    // horizon, of which the horizon holds the Used + Unused ones.
    #[derive(Default)]
    struct Identity {
        amortised: f64,
        hours: f64,
        fees: f64,
        upfront: f64,
        upfront_hours: f64,
    }
    let mut identity: BTreeMap<String, Identity> = BTreeMap::new();
    for r in &rows {
        let id = &r["CommitmentDiscountId"];
        if id.is_empty() {
            continue;
        }
        let entry = identity.entry(id.clone()).or_default();
        match (r["ChargeCategory"].as_str(), r["ChargeFrequency"].as_str()) {
            ("Purchase", "One-Time") => {
                entry.upfront += number(r, "BilledCost");
                entry.upfront_hours += number(r, "PricingQuantity");
            }
            ("Purchase", _) => entry.fees += number(r, "BilledCost"),
            _ => {
                entry.amortised += number(r, "EffectiveCost");
                entry.hours += number(r, "PricingQuantity");
            }
        }
    }
    for (id, i) in &identity {
        let upfront = if i.upfront_hours > 0.0 {
            assert!(i.hours <= i.upfront_hours * (1.0 + 1e-9), "{id}");
            i.upfront * i.hours / i.upfront_hours
        } else {
            0.0
        };
        let purchased = i.fees + upfront;
        assert!(
            (i.amortised - purchased).abs() <= 1e-6 * purchased.max(1.0),
            "{id}: Used + Unused {}, purchases for the horizon {purchased}",
            i.amortised
        );
    }
    let ids: BTreeSet<&String> = identity.keys().collect();
    assert_eq!(ids.len(), identity.len());
    rows.len()
}

fn read(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    reader
        .records()
        .map(|r| {
            header
                .iter()
                .cloned()
                .zip(r.unwrap().iter().map(String::from))
                .collect()
        })
        .collect()
}

#[test]
fn the_golden_scenario_exports_a_consistent_bill() {
    // Every pool type, failures, spot waves and reservations ending: by day and by month.
    let dir = temp_dir("focus-golden");
    for (period, name) in [("day", "daily"), ("month", "monthly")] {
        let out = dir.join(name);
        let run = fleetsim(&[
            "run",
            "tests/data/golden.toml",
            "--focus-period",
            period,
            "--no-charts",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(
            run.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let rows = check_focus_folder(&out);
        assert!(rows > 10, "{rows}");
        let run: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
        assert_eq!(run["focus"]["period"], period);
        assert!(
            run["files"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["name"] == "focus.csv")
        );
    }
}

#[test]
fn focus_needs_an_iso_currency() {
    let out = fleetsim(&[
        "run",
        "tests/data/golden.toml",
        "--focus",
        "--set",
        "currency=euros",
        "--out",
        "/nonexistent/never-written",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("--focus needs the scenario's currency as an ISO 4217 code"),
        "{stderr}"
    );
}

/// Clean cells: every CSV of a run (with `--trace` and `--focus`), of a run with
/// services and of a sweep, read by Python's csv module (`tests/python/check_csv.py`): no
/// `NaN`, every non-empty numeric cell a plain number, a currency wherever there is money.
#[test]
fn every_csv_reads_cleanly_in_python() {
    let python = std::env::var("FLEETSIM_PYTHON").unwrap_or_else(|_| "python3".into());
    if !std::process::Command::new(&python)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success())
    {
        skip_or_fail(&format!(
            "no `{python}` to read the files with (set FLEETSIM_PYTHON, or as root: \
             .ci/install-test-tools python)"
        ));
        return;
    }
    let dir = temp_dir("clean-cells");
    let golden = dir.join("golden");
    let services = dir.join("services");
    let sweep = dir.join("sweep");
    for args in [
        vec![
            "run",
            "tests/data/golden.toml",
            "--trace",
            "--focus",
            "--out",
        ],
        vec![
            "run",
            "scenarios/inference-and-training.toml",
            "--replications",
            "2",
            "--focus-period",
            "month",
            "--out",
        ],
        vec![
            "sweep",
            "tests/data/golden.toml",
            "--vary",
            "pool.dgx.nodes=0,1",
            "--replications",
            "1",
            "--focus-period",
            "month",
            "--out",
        ],
    ] {
        let out = match args[0] {
            "sweep" => &sweep,
            _ if args[1].contains("inference") => &services,
            _ => &golden,
        };
        let mut args = args.clone();
        args.extend([out.to_str().unwrap(), "--no-charts", "--quiet"]);
        let run = fleetsim(&args);
        assert_eq!(
            run.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    // One replication gives undefined intervals: the empty cells are there to be read.
    assert!(
        std::fs::read_to_string(sweep.join("sweep.csv"))
            .unwrap()
            .contains(",,")
    );
    let check = std::process::Command::new(&python)
        .arg("tests/python/check_csv.py")
        .args([&golden, &services, &sweep])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&check.stderr)
    );
    for file in [
        "jobs.csv",
        "focus.csv",
        "services_hourly.csv",
        "sweep.csv",
        "monthly_replications.csv",
    ] {
        assert!(stdout.contains(file), "{file} not checked: {stdout}");
    }
}

/// Linear-interpolation percentile (numpy's default), written here from its definition.
fn numpy_percentile(values: &mut [f64], q: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let position = q * (values.len() - 1) as f64;
    let (below, above) = (position.floor() as usize, position.ceil() as usize);
    values[below] + (values[above] - values[below]) * (position - below as f64)
}

#[test]
fn monthly_budgets_are_percentiles_of_the_replications() {
    let dir = temp_dir("budgets");
    let out = dir.join("out");
    let run = fleetsim(&[
        "run",
        "tests/data/golden.toml",
        "--replications",
        "7",
        "--no-charts",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let monthly = read(&out.join("monthly.csv"));
    let by_replication = read(&out.join("monthly_replications.csv"));
    let replications = read(&out.join("replications.csv"));
    assert_eq!(by_replication.len(), 7 * monthly.len());
    for row in &monthly {
        let of: Vec<&BTreeMap<String, String>> = by_replication
            .iter()
            .filter(|r| r["strategy"] == row["strategy"] && r["month"] == row["month"])
            .collect();
        assert_eq!(of.len(), 7);
        for column in [
            "cost",
            "cost_cash",
            "cost_capital",
            "cost_energy",
            "cost_reserved",
            "cost_spot",
        ] {
            let mut values: Vec<f64> = of.iter().map(|r| number(r, column)).collect();
            let mean = values.iter().sum::<f64>() / 7.0;
            assert!(close(number(row, column), mean), "{column}: {row:?}");
            for (stat, q) in [("p5", 0.05), ("p50", 0.5), ("p95", 0.95)] {
                let expected = numpy_percentile(&mut values, q);
                let found = number(row, &format!("{column}_{stat}"));
                assert!(
                    close(found, expected),
                    "{column}_{stat}: {found} vs {expected}"
                );
            }
        }
        let p5 = number(row, "cost_p5");
        assert!(
            p5 <= number(row, "cost_p50") && number(row, "cost_p50") <= number(row, "cost_p95")
        );
    }
    // The months of a replication add up to its totals.
    for r in &replications {
        let months = by_replication
            .iter()
            .filter(|m| m["strategy"] == r["strategy"] && m["replication"] == r["replication"]);
        let (cost, cash): (f64, f64) = months
            .map(|m| (number(m, "cost"), number(m, "cost_cash")))
            .fold((0.0, 0.0), |(a, b), (c, d)| (a + c, b + d));
        assert!(close(cost, number(r, "total_cost")), "{r:?}");
        assert!(close(cash, number(r, "total_cost_cash")), "{r:?}");
    }
}

#[test]
fn empty_cells_read_back_for_plot_and_resume() {
    // One replication: no interval, so empty cells in summary.csv and monthly.csv.
    let dir = temp_dir("empty-cells");
    let out = dir.join("run");
    let run = fleetsim(&[
        "run",
        "tests/data/golden.toml",
        "--replications",
        "1",
        "--no-charts",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(
        !summary.contains("NaN") && summary.contains(",,"),
        "{summary}"
    );
    let plot = fleetsim(&["plot", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(
        plot.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&plot.stderr)
    );
    assert!(out.join("monthly_cost.png").is_file());
    // A sweep reads its points' summary.csv back for sweep.csv: a resumed sweep writes the
    // same bytes.
    let sweep = dir.join("sweep");
    let args = [
        "sweep",
        "tests/data/golden.toml",
        "--vary",
        "pool.dgx.nodes=0,1",
        "--replications",
        "1",
        "--no-charts",
        "--quiet",
        "--out",
        sweep.to_str().unwrap(),
    ];
    let first = fleetsim(&args);
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let before = std::fs::read(sweep.join("sweep.csv")).unwrap();
    let mut resume = args.to_vec();
    resume.push("--resume");
    let again = fleetsim(&resume);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(std::fs::read(sweep.join("sweep.csv")).unwrap(), before);
}

/// docs/finops.md's pandas and DuckDB examples, run on a fresh export: the Python of
/// `FLEETSIM_FOCUS_PYTHON` (`.ci/run` sets it to the FOCUS validator's environment, which has
/// both), else `python3`; when it has no pandas and duckdb the test prints `SKIPPED:`, or
/// fails under CI.
#[test]
fn the_finops_examples_run() {
    let python = std::env::var("FLEETSIM_FOCUS_PYTHON").unwrap_or_else(|_| "python3".into());
    let has = std::process::Command::new(&python)
        .args(["-c", "import pandas, duckdb"])
        .output()
        .is_ok_and(|out| out.status.success());
    if !has {
        skip_or_fail(&format!(
            "`{python}` has no pandas and duckdb (set FLEETSIM_FOCUS_PYTHON to a Python that \
             has them; .ci/run makes one)"
        ));
        return;
    }
    let doc = std::fs::read_to_string("docs/finops.md").unwrap();
    let examples: Vec<&str> = doc
        .split("```python\n")
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap())
        .collect();
    assert_eq!(examples.len(), 2, "the pandas and the DuckDB example");
    let dir = temp_dir("finops-examples");
    let run = fleetsim(&[
        "run",
        "scenarios/inference-and-training.toml",
        "--replications",
        "2",
        "--focus-period",
        "month",
        "--no-charts",
        "--quiet",
        "--out",
        dir.join("results").to_str().unwrap(),
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for (i, example) in examples.iter().enumerate() {
        let script = dir.join(format!("example{i}.py"));
        std::fs::write(&script, example).unwrap();
        let out = std::process::Command::new(&python)
            .arg(&script)
            .current_dir(&dir)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "example {i}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("dgx-base"), "example {i} printed: {stdout}");
    }
}
