//! The adapters against real storage and real loops: the repository contract and concurrency on
//! SQLite and PostgreSQL, TLS to PostgreSQL, the plans of the tenant keys, and the webhook delivery
//! worker; one test binary, so the crate's tests link once.

// Tests unwrap freely: a panic is the failure report.
#![allow(clippy::unwrap_used)]

mod delivery_worker;
mod postgres_tls;
mod repositories;
mod tenant_keys;
