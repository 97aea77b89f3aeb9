//! The payments service's HTTP API: routes, authentication, request decoding, error mapping, and the
//! wiring of every adapter behind the application's ports.

pub mod auth;
pub mod cli;
mod cors;
pub mod decode;
pub mod error;
mod formatting;
pub mod idempotency;
pub mod mail;
pub mod metrics;
mod openapi;
pub mod operator;
pub mod pages;
pub mod presenter;
mod processor_event;
pub mod rate_limit;
pub mod redact;
mod representation;
pub mod request_log;
pub mod routes;
pub mod settings;
pub mod shutdown;
pub mod startup;
pub mod state;
pub mod stream_slots;
pub mod telemetry;
