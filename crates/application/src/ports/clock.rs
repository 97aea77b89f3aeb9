//! The clock port: the only source of "now" for the use cases.

use payments_domain::time::Timestamp;

/// Tells the current time.
pub trait Clock: Send + Sync {
    fn now(&self) -> Timestamp;

    /// Milliseconds since the Unix epoch, for schedules finer than a second.
    fn now_millis(&self) -> i64 {
        self.now().unix_seconds().saturating_mul(1_000)
    }
}
