//! The CSV tables of a run, written the same way into a file or into memory.
//!
//! A [`Table`] is a file name and how to write its rows; [`run_tables`] lists a run's tables
//! in the order `fleetsim run` writes them. The folder writer (`write_results`) streams each
//! table into its file; [`in_memory`] writes the same tables into byte buffers (the Python
//! package), so both give the same bytes by construction.

use std::io::Write;

use serde::Serialize;

use super::manifest::Fnv1a;
use super::sweep_table::STAT_COLUMNS;
use super::{Cell, Money, cells};
use crate::focus;
use crate::records::{
    FileRecord, FocusRow, FocusUnits, GroupSummaryRow, RunInfo, RunOutput, ServicePeriodRow,
};
use crate::scenario::Config;

/// Writes a table's rows (and, when `header_pending`, the header from the first row's field
/// names), with the `currency` cell as `money` says; returns how many rows it wrote.
type WriteRows<'a> = Box<
    dyn FnOnce(&mut csv::Writer<&mut dyn Write>, Money<'a>, bool) -> Result<u64, csv::Error> + 'a,
>;

/// One CSV table: its file name and its rows, written once.
pub struct Table<'a> {
    pub name: String,
    /// The header, when it is not the rows' field names.
    header: Option<Vec<String>>,
    /// Which rows say their currency, in a last column `currency`.
    money: Money<'a>,
    rows: WriteRows<'a>,
}

/// Writes one row as cells (an undefined number is an empty cell), then its `currency` cell;
/// the header first if it is still pending.
fn write_row<W: Write, T: Serialize + ?Sized>(
    writer: &mut csv::Writer<W>,
    row: &T,
    money: Money<'_>,
    header_pending: &mut bool,
) -> Result<(), csv::Error> {
    let (names, mut cells) = match cells::to_cells(row) {
        Ok(row) => row,
        Err(error) => panic!("a row fleetsim cannot write: {error}"),
    };
    let metric = names
        .iter()
        .position(|n| *n == "metric")
        .and_then(|i| match &cells[i] {
            Cell::Text(metric) => Some(metric.clone()),
            _ => None,
        });
    // A tuple has no field names, so no header.
    if *header_pending && !names.is_empty() {
        *header_pending = false;
        let currency = (money != Money::None).then_some("currency");
        writer.write_record(names.iter().copied().chain(currency))?;
    }
    cells.extend(money.cell(metric.as_deref()));
    writer.serialize(cells)
}

fn serialize_all<'a, I>(rows: I) -> WriteRows<'a>
where
    I: IntoIterator + 'a,
    I::Item: Serialize,
{
    Box::new(move |writer, money, mut header_pending| {
        let mut count = 0;
        for row in rows {
            write_row(writer, &row, money, &mut header_pending)?;
            count += 1;
        }
        Ok(count)
    })
}

impl<'a> Table<'a> {
    /// Rows of a struct; the header is its field names (no header when there are no rows).
    pub fn of_rows<I>(name: &str, rows: I) -> Self
    where
        I: IntoIterator + 'a,
        I::Item: Serialize,
    {
        Table {
            name: name.to_string(),
            header: None,
            money: Money::None,
            rows: serialize_all(rows),
        }
    }

    /// Rows under an explicit header (written even when there are no rows).
    pub fn with_header<I>(name: &str, header: Vec<String>, rows: I) -> Self
    where
        I: IntoIterator + 'a,
        I::Item: Serialize,
    {
        Table {
            name: name.to_string(),
            header: Some(header),
            money: Money::None,
            rows: serialize_all(rows),
        }
    }

    /// The same table with a `currency` column as `money` says.
    pub fn with_money(mut self, money: Money<'a>) -> Self {
        self.money = money;
        self
    }

    /// Rows of cells, one per column of `header`.
    pub fn of_cells(name: &str, header: Vec<String>, rows: &'a [Vec<Cell>]) -> Self {
        let columns = header.len();
        let checked = rows.iter().inspect(move |row| {
            assert_eq!(row.len(), columns, "one cell per column");
        });
        Self::with_header(name, header, checked)
    }

    /// `focus.csv`: the FOCUS rows of a run's median units, streamed as they are made (FOCUS
    /// names its own currency column, `BillingCurrency`).
    pub fn of_focus(config: &'a Config, units: &'a FocusUnits) -> Self {
        let rows: WriteRows<'a> = Box::new(move |writer, money, mut header_pending| {
            let (mut count, mut failed) = (0, None);
            focus::each_row(config, units, &mut |row: FocusRow| {
                if failed.is_none() {
                    match write_row(writer, &row, money, &mut header_pending) {
                        Ok(()) => count += 1,
                        Err(error) => failed = Some(error),
                    }
                }
            });
            failed.map_or(Ok(count), Err)
        });
        Table {
            name: "focus.csv".to_string(),
            header: None,
            money: Money::None,
            rows,
        }
    }

    /// `workloads.csv`, `teams.csv` or `services.csv`: the columns of `summary.csv` with the
    /// group's (`column`) after the strategy.
    pub fn of_groups(name: &str, column: &str, rows: &'a [GroupSummaryRow]) -> Self {
        let (strategy, stats) = STAT_COLUMNS.split_at(1);
        let header = strategy
            .iter()
            .chain([&column])
            .chain(stats)
            .map(|c| c.to_string())
            .collect();
        Self::with_header(name, header, rows)
    }

    /// `services_monthly.csv` (`column` "month", YYYY-MM) or `services_hourly.csv` ("hour",
    /// 0 to 23).
    pub fn of_periods(name: &str, column: &str, rows: &'a [ServicePeriodRow]) -> Self {
        let header = [
            "strategy",
            "service",
            column,
            "gpus_demanded",
            "gpus_served",
            "gpus_allocated",
        ]
        .map(String::from)
        .to_vec();
        let hourly = column == "hour";
        let cells = rows.iter().map(move |r| {
            let period = match r.period.parse::<u64>() {
                Ok(hour) if hourly => Cell::Count(hour),
                _ => Cell::Text(r.period.clone()),
            };
            [
                Cell::Text(r.strategy.clone()),
                Cell::Text(r.service.clone()),
                period,
                Cell::Number(r.gpus_demanded),
                Cell::Number(r.gpus_served),
                Cell::Number(r.gpus_allocated),
            ]
        });
        Self::with_header(name, header, cells)
    }

    /// Writes the table as CSV into `sink`; returns its rows. The writer's buffer is flushed
    /// into `sink`, not `sink` itself.
    pub fn write_to(self, sink: &mut dyn Write) -> Result<u64, csv::Error> {
        let mut writer = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(sink);
        if let Some(header) = &self.header {
            let currency = (self.money != Money::None).then(|| "currency".to_string());
            writer.write_record(header.iter().chain(currency.as_ref()))?;
        }
        let rows = (self.rows)(&mut writer, self.money, self.header.is_none())?;
        writer.flush()?;
        Ok(rows)
    }

    /// The table as CSV bytes, with its manifest entry.
    pub fn to_bytes(self) -> (FileRecord, Vec<u8>) {
        let name = self.name.clone();
        let mut bytes = Vec::new();
        let rows = self
            .write_to(&mut bytes)
            .expect("rows serialize, and memory takes every write");
        let record = record(&name, rows, &bytes);
        (record, bytes)
    }
}

/// The manifest entry of `bytes` written as `name`.
fn record(name: &str, rows: u64, bytes: &[u8]) -> FileRecord {
    FileRecord {
        name: name.to_string(),
        rows,
        bytes: bytes.len() as u64,
        fnv1a: Fnv1a::of(bytes),
    }
}

/// A run's tables in the order `fleetsim run` writes them: `summary.csv`, `replications.csv`,
/// `pools.csv`, `monthly.csv`, `pools_monthly.csv`, `workloads.csv`, `teams.csv`, the three
/// services files when the scenario has services, and `jobs.csv` with `trace`.
pub fn run_tables<'a>(output: &'a RunOutput, currency: &'a str, trace: bool) -> Vec<Table<'a>> {
    let aggregates = &output.aggregates;
    let pools = output.units.iter().flat_map(|u| u.pools.iter());
    let (every, by_metric) = (Money::Every(currency), Money::Metric(currency));
    let mut tables = vec![
        Table::of_rows("summary.csv", &aggregates.summary).with_money(by_metric),
        Table::of_rows("replications.csv", &aggregates.replications).with_money(every),
        Table::of_rows("pools.csv", pools).with_money(every),
        Table::of_rows("monthly.csv", &aggregates.monthly).with_money(every),
        Table::of_rows("monthly_replications.csv", &aggregates.monthly_replications)
            .with_money(every),
        Table::of_rows("pools_monthly.csv", &aggregates.pools_monthly).with_money(every),
        Table::of_groups("workloads.csv", "workload", &aggregates.workloads).with_money(by_metric),
        Table::of_groups("teams.csv", "team", &aggregates.teams).with_money(by_metric),
    ];
    if !aggregates.services.is_empty() {
        tables.extend([
            Table::of_groups("services.csv", "service", &aggregates.services).with_money(by_metric),
            Table::of_periods(
                "services_monthly.csv",
                "month",
                &aggregates.services_monthly,
            ),
            Table::of_periods("services_hourly.csv", "hour", &aggregates.services_hourly),
        ]);
    }
    if trace {
        let jobs = output.units.iter().flat_map(|u| u.jobs.iter());
        tables.push(Table::of_rows("jobs.csv", jobs).with_money(every));
    }
    tables
}

/// `run.json` of a run whose tables are `records`: `info` with its manifest.
pub fn run_json(info: &RunInfo, records: Vec<FileRecord>) -> Vec<u8> {
    let mut info = info.clone();
    info.files = records;
    serde_json::to_vec_pretty(&info).expect("run info serializes")
}

/// Every file `fleetsim run` writes but the charts, as (name, bytes) in the order written,
/// `run.json` last: the same bytes as [`super::write_results`] writes into a folder.
pub fn in_memory(output: &RunOutput, info: &RunInfo, trace: bool) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut records = Vec::new();
    for table in run_tables(output, &info.currency, trace) {
        let name = table.name.clone();
        let (record, bytes) = table.to_bytes();
        records.push(record);
        files.push((name, bytes));
    }
    files.push(("run.json".to_string(), run_json(info, records)));
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_writes_its_header_and_rows() {
        #[derive(Serialize)]
        struct Row {
            a: u32,
            b: &'static str,
        }
        let rows = [Row { a: 1, b: "x,y" }, Row { a: 2, b: "z" }];
        let (record, bytes) = Table::of_rows("t.csv", &rows).to_bytes();
        assert_eq!(bytes, b"a,b\n1,\"x,y\"\n2,z\n");
        assert_eq!((record.rows, record.bytes), (2, 4 + 8 + 4));
        // FNV-1a of the empty input is its offset basis.
        let (record, bytes) = Table::of_rows("e.csv", Vec::<Row>::new()).to_bytes();
        assert!(bytes.is_empty());
        assert_eq!(record.fnv1a, "cbf29ce484222325");
        // An explicit header is written even without rows.
        let header = vec!["x".to_string(), "y".to_string()];
        let (_, bytes) = Table::of_cells("c.csv", header, &[]).to_bytes();
        assert_eq!(bytes, b"x,y\n");
    }

    #[test]
    fn hours_are_numbers_and_months_text() {
        let row = |period: &str| ServicePeriodRow {
            strategy: "s".into(),
            service: "chat".into(),
            period: period.into(),
            gpus_demanded: 1.5,
            gpus_served: 1.0,
            gpus_allocated: 2.0,
        };
        let hourly = [row("7")];
        let (_, bytes) = Table::of_periods("h.csv", "hour", &hourly).to_bytes();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "strategy,service,hour,gpus_demanded,gpus_served,gpus_allocated\ns,chat,7,1.5,1.0,2.0\n"
        );
        let monthly = [row("2025-01")];
        let (_, bytes) = Table::of_periods("m.csv", "month", &monthly).to_bytes();
        assert!(
            String::from_utf8(bytes)
                .unwrap()
                .ends_with("s,chat,2025-01,1.5,1.0,2.0\n")
        );
    }
}
