//! Entities, value types and rules of the payments service.
//!
//! Nothing here does I/O, reads a clock or draws randomness: time, ids and random parts come in as
//! arguments, so every rule is a pure function that can be tested on its own.

pub mod account;
pub mod customer;
pub mod ids;
pub mod metadata;
pub mod money;
pub mod time;
pub mod validation;
