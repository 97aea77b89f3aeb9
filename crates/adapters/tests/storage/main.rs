//! The adapters against real storage and real loops: the repository contract and concurrency on
//! SQLite and PostgreSQL, TLS to PostgreSQL, the plans of the tenant keys, and the webhook delivery
//! worker; one test binary, so the crate's tests link once.

// Tests unwrap freely: a panic is the failure report.
#![allow(clippy::unwrap_used)]

// Every other file of this directory is a module: a new test file runs without being registered.
automod::dir!("tests/storage");
