//! Reads a result folder back: the CSV files and `run.json`, and nothing else, so that merged or
//! copied results can be drawn without the scenario or a re-run.

use crate::regular_file;
use std::path::Path;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::records::{
    BreakEvenInfo, GroupSummaryRow, MonthlyRow, PoolMonthlyRow, PoolRow, ReplicationRow,
    ServicePeriodRow, SummaryRow,
};

use super::ChartError;

/// The part of `run.json` the charts need; other fields are ignored, so a `run.json` written by
/// `fleetsim merge` or a later version still reads.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RunMeta {
    pub scenario_name: String,
    pub currency: String,
    /// Replications per strategy.
    pub replications: u32,
    pub strategies: Vec<String>,
    pub baseline: String,
    /// Per strategy (in the order of `strategies`), the break-even month (YYYY-MM) of the
    /// cash view against the baseline, or null.
    #[serde(default)]
    pub break_even_month: Vec<Option<String>>,
    /// For the charts' provenance line (absent from hand-made folders).
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub fleetsim_version: String,
    /// The resolved scenario (for the report's account of the run).
    #[serde(default)]
    pub scenario: serde_json::Value,
    /// The break-even utilisation of each owned and reserved pool, month by month; None in
    /// the `run.json` of a version that did not write it.
    #[serde(default)]
    pub break_evens: Option<Vec<BreakEvenInfo>>,
    /// For the report: how the run was made and what it warned of.
    #[serde(default)]
    pub command_line: Vec<String>,
    #[serde(default)]
    pub scenario_source: String,
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// Everything a result folder holds that the charts draw.
#[derive(Debug, Clone)]
pub struct Results {
    pub meta: RunMeta,
    /// Strategies in `run.json` order, then any that only the CSV files name. The index is the
    /// strategy's colour in every chart.
    pub strategies: Vec<String>,
    /// Calendar months (YYYY-MM) in order, from `monthly.csv`.
    pub months: Vec<String>,
    pub summary: Vec<SummaryRow>,
    pub replications: Vec<ReplicationRow>,
    pub pools: Vec<PoolRow>,
    pub monthly: Vec<MonthlyRow>,
    pub pools_monthly: Vec<PoolMonthlyRow>,
    /// `workloads.csv`: per strategy, workload and metric.
    pub workloads: Vec<GroupSummaryRow>,
    /// `services_monthly.csv` and `services_hourly.csv`, when the run had services.
    pub services_monthly: Vec<ServicePeriodRow>,
    pub services_hourly: Vec<ServicePeriodRow>,
}

/// The files a result folder must hold for `fleetsim plot`.
pub const INPUT_FILES: [&str; 7] = [
    "run.json",
    "summary.csv",
    "replications.csv",
    "pools.csv",
    "monthly.csv",
    "pools_monthly.csv",
    "workloads.csv",
];

impl Results {
    /// The row of `metric` for `workload` under `strategy` in `workloads.csv`.
    pub fn workload_of(
        &self,
        strategy: &str,
        workload: &str,
        metric: &str,
    ) -> Option<&GroupSummaryRow> {
        self.workloads
            .iter()
            .find(|r| r.strategy == strategy && r.group == workload && r.metric == metric)
    }

    /// Workloads in the order `workloads.csv` lists them, without `unallocated`.
    pub fn workload_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for row in &self.workloads {
            if row.group != crate::stats::UNALLOCATED && !names.contains(&row.group) {
                names.push(row.group.clone());
            }
        }
        names
    }

    /// Reads the result folder `dir`; a missing or unreadable file is an error naming it.
    pub fn load(dir: &Path) -> Result<Self, ChartError> {
        if !dir.is_dir() {
            return Err(ChartError::NoFolder {
                dir: dir.to_path_buf(),
            });
        }
        // Report every missing file at once rather than one per attempt.
        let missing: Vec<String> = INPUT_FILES
            .iter()
            .filter(|name| !dir.join(name).exists())
            .map(|name| (*name).to_string())
            .collect();
        if !missing.is_empty() {
            return Err(ChartError::Missing {
                dir: dir.to_path_buf(),
                files: missing,
            });
        }
        let meta_path = dir.join("run.json");
        let text = regular_file::read_to_string(&meta_path, regular_file::JSON_BYTES_MAX).map_err(
            |source| ChartError::Read {
                path: meta_path.clone(),
                source,
            },
        )?;
        let meta: RunMeta = serde_json::from_str(&text).map_err(|source| ChartError::Json {
            path: meta_path.clone(),
            source,
        })?;
        if meta.strategies.len() > super::STRATEGIES_MAX {
            return Err(ChartError::TooManyStrategies {
                dir: dir.to_path_buf(),
                strategies: meta.strategies.len(),
            });
        }
        let summary: Vec<SummaryRow> = read_csv(&dir.join("summary.csv"))?;
        let replications: Vec<ReplicationRow> = read_csv(&dir.join("replications.csv"))?;
        let pools: Vec<PoolRow> = read_csv(&dir.join("pools.csv"))?;
        let monthly: Vec<MonthlyRow> = read_csv(&dir.join("monthly.csv"))?;
        let pools_monthly: Vec<PoolMonthlyRow> = read_csv(&dir.join("pools_monthly.csv"))?;
        let workloads: Vec<GroupSummaryRow> = read_csv(&dir.join("workloads.csv"))?;
        // Only a run with services writes these; run.json says whether it did.
        let optional = |name: &str| -> Result<Vec<ServicePeriodRow>, ChartError> {
            let path = dir.join(name);
            if path.exists() {
                read_csv(&path)
            } else {
                Ok(Vec::new())
            }
        };
        let services_monthly = optional("services_monthly.csv")?;
        let services_hourly = optional("services_hourly.csv")?;

        let mut strategies = meta.strategies.clone();
        let named = summary
            .iter()
            .map(|r| &r.strategy)
            .chain(replications.iter().map(|r| &r.strategy))
            .chain(monthly.iter().map(|r| &r.strategy))
            .chain(pools_monthly.iter().map(|r| &r.strategy));
        for name in named {
            if !strategies.contains(name) {
                strategies.push(name.clone());
            }
        }
        let mut months: Vec<String> = Vec::new();
        for row in &monthly {
            if !months.contains(&row.month) {
                months.push(row.month.clone());
            }
        }
        // YYYY-MM sorts as text; merged files may interleave strategies.
        months.sort();
        Ok(Self {
            meta,
            strategies,
            months,
            summary,
            replications,
            pools,
            monthly,
            pools_monthly,
            workloads,
            services_monthly,
            services_hourly,
        })
    }

    /// Services in the order `services_monthly.csv` lists them.
    pub fn service_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for row in &self.services_monthly {
            if !names.contains(&row.service) {
                names.push(row.service.clone());
            }
        }
        names
    }

    /// The provenance line at the foot of every chart.
    pub fn provenance(&self) -> String {
        super::style::provenance(
            &self.meta.scenario_name,
            self.meta.seed,
            self.meta.replications,
            &self.meta.fleetsim_version,
        )
    }

    /// The break-even utilisation of each owned or reserved pool, month by month, as
    /// run.json gives it (none from the `run.json` of a version that did not write it).
    pub fn break_evens(&self) -> Vec<crate::scenario::economics::BreakEven> {
        self.meta
            .break_evens
            .iter()
            .flatten()
            .map(BreakEvenInfo::to_break_even)
            .collect()
    }

    /// The month index of `month` (YYYY-MM), if the results cover it.
    pub fn month_idx(&self, month: &str) -> Option<usize> {
        self.months.iter().position(|m| m == month)
    }

    /// The summary row of `metric` for `strategy`.
    pub fn summary_of(&self, strategy: &str, metric: &str) -> Option<&SummaryRow> {
        self.summary
            .iter()
            .find(|r| r.strategy == strategy && r.metric == metric)
    }

    /// The break-even month run.json gives for `strategy`.
    pub fn break_even_month(&self, strategy: &str) -> Option<&str> {
        let idx = self.meta.strategies.iter().position(|s| s == strategy)?;
        self.meta.break_even_month.get(idx)?.as_deref()
    }

    /// Pools of `strategy` in the order the CSV files list them (the strategy's pool order).
    pub fn pools_of(&self, strategy: &str) -> Vec<&str> {
        let mut pools: Vec<&str> = Vec::new();
        let rows = self
            .pools_monthly
            .iter()
            .filter(|r| r.strategy == strategy)
            .map(|r| r.pool.as_str())
            .chain(
                self.pools
                    .iter()
                    .filter(|r| r.strategy == strategy)
                    .map(|r| r.pool.as_str()),
            );
        for pool in rows {
            if !pools.contains(&pool) {
                pools.push(pool);
            }
        }
        pools
    }

    /// Every pool of every strategy, each once, in order of first appearance: the index is the
    /// pool's colour.
    pub fn all_pools(&self) -> Vec<&str> {
        let mut pools: Vec<&str> = Vec::new();
        for strategy in &self.strategies {
            for pool in self.pools_of(strategy) {
                if !pools.contains(&pool) {
                    pools.push(pool);
                }
            }
        }
        pools
    }
}

pub(crate) fn read_csv<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, ChartError> {
    let csv_error = |source| ChartError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let file =
        regular_file::open_at_most(path, regular_file::TABLE_BYTES_MAX).map_err(|source| {
            ChartError::Read {
                path: path.to_path_buf(),
                source,
            }
        })?;
    let mut reader = csv::Reader::from_reader(file);
    let header = reader.headers().map_err(csv_error)?.clone();
    let mut rows = Vec::new();
    for (line, record) in reader.records().enumerate() {
        let record = record.map_err(csv_error)?;
        // An empty cell is an undefined number (NaN); line 1 is the header.
        let row = crate::files::cells::from_record(&header, &record).map_err(|error| {
            ChartError::Cell {
                path: path.to_path_buf(),
                message: format!("line {}: {error}", line + 2),
            }
        })?;
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(ChartError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn fixture() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/charts")
    }

    #[test]
    fn a_result_folder_reads_back_in_run_json_order() {
        let results = Results::load(&fixture()).unwrap();
        assert_eq!(results.meta.scenario_name, "chart-fixture");
        assert_eq!(
            results.strategies,
            ["cloud-on-demand", "reserved-burst", "hybrid-dgx-spot"]
        );
        assert_eq!(
            results.months,
            [
                "2027-01", "2027-02", "2027-03", "2027-04", "2027-05", "2027-06"
            ]
        );
        assert_eq!(
            results.pools_of("hybrid-dgx-spot"),
            ["dgx", "h100-spot", "h100-on-demand"]
        );
        assert_eq!(
            results.all_pools(),
            ["h100-on-demand", "h100-reserved", "dgx", "h100-spot"]
        );
        assert_eq!(results.break_even_month("cloud-on-demand"), None);
        assert_eq!(results.break_even_month("reserved-burst"), Some("2027-01"));
        assert_eq!(results.month_idx("2027-04"), Some(3));
    }

    #[test]
    fn every_missing_file_is_named_at_once() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        fs::copy(fixture().join("run.json"), dir.join("run.json")).unwrap();
        fs::copy(fixture().join("pools.csv"), dir.join("pools.csv")).unwrap();
        let error = Results::load(dir).unwrap_err();
        let ChartError::Missing { files, .. } = &error else {
            panic!("{error}");
        };
        assert_eq!(
            files,
            &[
                "summary.csv",
                "replications.csv",
                "monthly.csv",
                "pools_monthly.csv",
                "workloads.csv"
            ]
        );

        for file in INPUT_FILES {
            fs::copy(fixture().join(file), dir.join(file)).unwrap();
        }
        fs::write(
            dir.join("summary.csv"),
            "strategy,metric,mean,std,ci95_low,ci95_high,p5,p50,p95,n\n",
        )
        .unwrap();
        let error = Results::load(dir).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("{}: has no rows", dir.join("summary.csv").display())
        );
    }
}
