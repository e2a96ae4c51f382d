//! fleetsim: a discrete-event Monte Carlo simulator for hybrid GPU fleets.
//!
//! Data flows one way: a scenario file becomes a checked [`scenario::Config`]; the
//! [`runner`] simulates every (strategy, replication) unit with the [`engine`] driving the
//! [`model`] (which asks [`policies`] what to do); each unit yields [`records`]; [`stats`]
//! aggregates them over replications; [`files`] writes CSV and `run.json`, [`charts`] and
//! [`report`] draw them, [`terminal`] prints the summary.
//! See ARCHITECTURE.md for the map.

pub mod app;
pub mod calendar;
pub mod charts;
pub mod claims;
pub mod cli;
pub mod engine;
pub mod files;
pub mod fit;
pub mod focus;
pub mod format;
pub mod model;
pub mod names;
pub mod optimize;
pub mod policies;
pub mod progress;
pub mod records;
pub mod regular_file;
pub mod report;
pub mod rng;
pub mod runner;
pub mod scenario;
pub mod stats;
pub mod sweep;
pub mod terminal;
pub mod trace;
