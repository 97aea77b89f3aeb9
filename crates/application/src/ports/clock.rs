//! The clock port: the only source of "now" for the use cases.

use payments_domain::time::Timestamp;

/// Tells the current time.
pub trait Clock: Send + Sync {
    /// The current time, to the millisecond.
    fn now(&self) -> Timestamp;
}
