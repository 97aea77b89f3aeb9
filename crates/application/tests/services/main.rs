//! The application's services over in-memory fakes of every port, one module per resource, and the
//! repository contract on those fakes; one test binary, so the crate's tests link once.

// Tests unwrap freely: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod billing_statements;
mod checkout_sessions;
mod console_sessions;
mod customer_sessions;
mod payment_intents;
mod refunds;
mod repository_contract;
mod setup_intents;
mod support;
mod test_clocks;
mod webhooks;
