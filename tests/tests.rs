//! The integration test crate: each module tests one area end to end.
//! Statistical tests run in release mode (`cargo test --release`).

mod common;
mod errors;
mod fuzz;
mod theory;
