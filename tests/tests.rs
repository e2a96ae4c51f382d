//! The integration test crate: each module tests one area end to end.
//! Statistical tests run in release mode (`cargo test --release`).

mod charts;
mod claims;
mod cli;
mod common;
mod determinism;
mod editor;
mod errors;
mod finops;
mod finops_money;
mod fuzz;
mod golden;
mod memory;
mod money;
mod optimize;
mod peer;
mod properties;
mod report;
mod scale;
mod scheduling;
mod services;
mod slurm;
mod spot;
mod sweep;
mod sweep_charts;
mod theory;
mod tidy;
mod traces;
mod worked;
