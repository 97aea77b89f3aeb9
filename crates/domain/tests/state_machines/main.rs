//! The state machines of the domain, each operation from each status, in one test binary.

// Tests unwrap freely: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod billing_statement;
mod payment_intent;
mod setup_intent;
