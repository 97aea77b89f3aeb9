//! One use-case service per resource.

pub mod account;
pub mod customer;
pub mod idempotency;

pub use account::AccountService;
pub use customer::CustomerService;
pub use idempotency::{IdempotencyService, IdempotentStart};
