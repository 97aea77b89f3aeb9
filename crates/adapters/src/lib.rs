//! Adapters of the payments service: storage on PostgreSQL or embedded SQLite through diesel, the
//! system clock and the random id generator. Nothing above this crate sees a diesel type.

pub mod clock;
pub mod db;
pub mod id_generator;
pub mod processor;
pub mod webhooks;
