//! The state machines of the domain, each operation from each status, in one test binary.

// Tests unwrap freely: a panic is the failure report.
#![allow(clippy::unwrap_used)]

// Every other file of this directory is a module: a new test file runs without being registered.
automod::dir!("tests/state_machines");
