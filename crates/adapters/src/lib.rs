//! Adapters of the payments service: storage on PostgreSQL or embedded SQLite through diesel, the
//! system clock, the random id generator, webhook delivery, e-mail, Prometheus metrics, the
//! processors and the sealing of their secrets. Nothing above this crate sees a diesel type.

pub mod clock;
pub mod db;
pub mod event_signal;
pub mod id_generator;
pub mod mail;
pub mod metrics;
pub mod payout_rail;
pub mod processor;
pub mod sealer;
pub mod webhooks;
