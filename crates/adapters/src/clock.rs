//! The system clock.

use payments_application::ports::Clock;
use payments_domain::time::Timestamp;
use std::time::{SystemTime, UNIX_EPOCH};

/// Reads the wall clock of the machine.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let seconds = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_secs());
        Timestamp::from_unix_seconds(i64::try_from(seconds).unwrap_or(i64::MAX))
    }
}
