//! The application's services over in-memory fakes of every port, one module per resource, and the
//! repository contract on those fakes; one test binary, so the crate's tests link once.

// Tests unwrap freely: a panic is the failure report.
#![allow(clippy::unwrap_used)]

// Every other file of this directory is a module: a new test file runs without being registered.
automod::dir!("tests/services");
