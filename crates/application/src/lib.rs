//! Use cases of the payments service and the ports they need.
//!
//! A service method is one use case: validate, load, apply the domain's rules, persist, all in one
//! transaction obtained from the [`ports::UnitOfWork`]. Ports are synchronous; callers on an async
//! runtime run services on a blocking thread.

pub mod error;
pub mod pagination;
pub mod ports;
pub mod scope;
pub mod services;
#[cfg(feature = "testing")]
pub mod testing;

pub use error::{ApplicationError, StateRefusal};
pub use scope::{Caller, Scope};
