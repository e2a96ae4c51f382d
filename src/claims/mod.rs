//! The claims study: the market's rules of thumb, each put to the test by a
//! scenario of `scenarios/claims/` and judged by a rule of its own.
//!
//! - [`CLAIMS`]: the ten claims: the statement, its scenario, what fleetsim cannot observe
//!   about it, its chart and its rule.
//! - [`mod@estimate`]: the figures (means with 95 % intervals) a rule reads from a sweep
//!   point's `summary.csv` rows, bands and crossings.
//! - `rules/`: one small function per claim, from the points of its sweep to a [`Finding`]:
//!   a verdict, the figure with its interval and the boundary the sweep found.
//! - [`figures`]: what a rule reads of the claim's scenario (prices, node sizes, the judged
//!   point), so that no figure of a scenario is copied into a rule.
//! - [`bisect`]: boundaries found by direct runs of the scenario, bisecting its swept field.
//! - [`runs`]: those direct runs, in memory, through `sweep`'s planning and `runner`.
//! - [`study`]: runs the sweeps into `output/claims/` (through `sweep` and `output`), the
//!   direct runs, and judges each claim at the study's replications and at 10.
//! - [`doc`]: the Markdown page, `docs/claims.md`, written from the findings alone.
//!
//! A verdict never rests on a mean alone: a figure "holds" only when its whole interval lies
//! in the claim's band, and a rule says "undecided" when the interval straddles the edge.

pub mod bisect;
pub mod doc;
pub mod estimate;
pub mod figures;
mod rules;
pub mod runs;
pub mod study;

pub use bisect::{Boundary, Probe};
pub use estimate::{Band, Estimate, Margin, Point, Position};

use crate::scenario::Config;

/// What a rule concludes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    /// Holds under this condition ("spot nodes live at least 9 h on average").
    HoldsOnlyWhen(String),
    DoesNotHold,
    /// The intervals do not allow a verdict; why.
    Undecided(String),
}

impl Verdict {
    /// The verdict as the page prints it.
    pub fn words(&self) -> String {
        match self {
            Verdict::Holds => "holds".into(),
            Verdict::HoldsOnlyWhen(condition) => format!("holds only when {condition}"),
            Verdict::DoesNotHold => "does not hold here".into(),
            Verdict::Undecided(why) => format!("undecided: {why}"),
        }
    }

    /// The verdict without its condition or reason: what must agree between replication counts.
    pub fn kind(&self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::HoldsOnlyWhen(_) => "holds only when",
            Verdict::DoesNotHold => "does not hold here",
            Verdict::Undecided(_) => "undecided",
        }
    }
}

/// A claim's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub verdict: Verdict,
    /// The figure with its interval, in a sentence.
    pub figure: String,
    /// The boundary the sweep found, in a sentence (None when the sweep shows none).
    pub boundary: Option<String>,
    /// The figure nearest to deciding the verdict otherwise, against the edge it is judged
    /// by: how many replications a firm verdict needs follows from it.
    pub margin: Option<Margin>,
}

/// What a rule judges: the claim's scenario as loaded (with `--set`, before its sweep), the
/// points of its sweep in the sweep's order, and direct runs at other values of the swept
/// fields (at the same replications as the points).
pub struct Evidence<'a> {
    pub config: &'a Config,
    /// The swept fields' paths, in the sweep's order.
    pub swept: &'a [String],
    pub points: &'a [Point],
    pub probe: &'a dyn Probe,
}

/// A rule: the evidence of a claim to its finding (or a message naming what the scenario or
/// the results lack).
pub type Rule = fn(&Evidence<'_>) -> Result<Finding, String>;

/// One claim of the study.
#[derive(Debug, Clone, Copy)]
pub struct Claim {
    /// 1 to 10, the order of `docs/claims.md`.
    pub number: u8,
    /// The scenario is `scenarios/claims/<NN>-<slug>.toml`, its results `output/claims/<NN>-<slug>/`.
    pub slug: &'static str,
    /// The claim in the market's words.
    pub statement: &'static str,
    /// What the claim is about that a simulation of one buyer's fleet cannot see.
    pub unobservable: Option<&'static str>,
    /// The chart of the claim's sweep folder that shows its boundary (file stem, PNG).
    pub chart: &'static str,
    pub rule: Rule,
}

impl Claim {
    /// `01-spot-discount`: the scenario's file stem and the results' folder.
    pub fn id(&self) -> String {
        format!("{:02}-{}", self.number, self.slug)
    }
}

/// The ten claims, in the order of `docs/claims.md`.
pub const CLAIMS: [Claim; 10] = [
    Claim {
        number: 1,
        slug: "spot-discount",
        statement: "Spot instances are 60-90 % cheaper than on-demand.",
        unobservable: None,
        chart: "sweep_total_cost_by_pool.spot.price_per_gpu_h",
        rule: rules::prices::spot_discount,
    },
    Claim {
        number: 2,
        slug: "spot-checkpointing",
        statement: "Spot with automated checkpointing cuts total cost by about 70 %.",
        unobservable: None,
        chart: "sweep_total_cost_by_pool.spot.preemption.mean_h",
        rule: rules::prices::spot_checkpointing,
    },
    Claim {
        number: 3,
        slug: "reserved-discount",
        statement: "Reserved capacity gives a 30-40 % discount.",
        unobservable: None,
        chart: "sweep_total_cost_heatmap",
        rule: rules::prices::reserved_discount,
    },
    Claim {
        number: 4,
        slug: "utilisation",
        statement: "GPU utilisation at many providers stays around 50 %.",
        unobservable: Some(
            "a provider's own fleet: cloud pools are elastic here, so how busy a provider keeps its racks is outside the model; fleetsim measures what a buyer sees, the utilisation of the GPU-hours they pay for and of an owned fleet carrying the same demand",
        ),
        chart: "sweep_wait_p95_h_by_pool.owned.nodes",
        rule: rules::fleet::utilisation,
    },
    Claim {
        number: 5,
        slug: "on-prem-break-even",
        statement: "On-prem GPU racks pay off again above about 60 % average utilisation.",
        unobservable: None,
        chart: "sweep_total_cost_by_workload.jobs.arrivals_per_day",
        rule: rules::fleet::on_prem_break_even,
    },
    Claim {
        number: 6,
        slug: "dgx-payback",
        statement: "DGX systems pay back after about 18-24 months in continuous use for large models.",
        unobservable: None,
        chart: "sweep_total_cost_by_pool.cloud.price_per_gpu_h",
        rule: rules::fleet::dgx_payback,
    },
    Claim {
        number: 7,
        slug: "specialist-cloud",
        statement: "Specialist GPU clouds are 30-50 % cheaper than hyperscaler on-demand, with shortfalls of up to 60 % at peak times.",
        unobservable: None,
        chart: "sweep_total_cost_by_pool.specialist.availability.shortfall",
        rule: rules::prices::specialist_cloud,
    },
    Claim {
        number: 8,
        slug: "mixed-precision",
        statement: "Mixed precision cuts GPU time by a factor of 2-4.",
        unobservable: Some(
            "how much faster a model's kernels run in FP16/BF16: `mixed_precision_speedup` is an input; fleetsim shows how much of a given speedup reaches the GPU-hours paid",
        ),
        chart: "sweep_total_cost_by_workload.training.mixed_precision_speedup",
        rule: rules::speed::mixed_precision,
    },
    Claim {
        number: 9,
        slug: "hybrid",
        statement: "A hybrid of a small on-prem base (daily experiments and inference) plus cloud burst for large training is cheapest for most companies.",
        unobservable: Some(
            "\"most companies\": the sweep stands for companies by the size of their inference endpoint, one workload mix and one set of prices",
        ),
        chart: "sweep_total_cost_by_service.chat.gpus",
        rule: rules::fleet::hybrid,
    },
    Claim {
        number: 10,
        slug: "small-gpus",
        statement: "L4 and T4 instances are the economical choice for inference and fine-tuning.",
        unobservable: Some(
            "how fast each GPU type runs a given model: `[gpu_speed]` is an input (no file in ../shared/data measures it), hence the sweep over the L4's speed",
        ),
        chart: "sweep_total_cost_by_gpu_speed.L4",
        rule: rules::speed::small_gpus,
    },
];

/// The claim numbered `number`, if there is one.
pub fn claim(number: u8) -> Option<&'static Claim> {
    CLAIMS.iter().find(|c| c.number == number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_are_numbered_in_order() {
        for (i, claim) in CLAIMS.iter().enumerate() {
            assert_eq!(usize::from(claim.number), i + 1);
        }
        assert_eq!(claim(3).map(Claim::id), Some("03-reserved-discount".into()));
        assert!(claim(11).is_none());
    }

    #[test]
    fn verdicts_read_as_sentences() {
        assert_eq!(Verdict::Holds.words(), "holds");
        assert_eq!(
            Verdict::HoldsOnlyWhen("nodes live a day".into()).words(),
            "holds only when nodes live a day"
        );
        assert_eq!(Verdict::DoesNotHold.words(), "does not hold here");
        assert_eq!(Verdict::Undecided("x".into()).kind(), "undecided");
        assert_eq!(Verdict::HoldsOnlyWhen("x".into()).kind(), "holds only when");
    }
}
