//! The system clock.

use payments_application::ports::Clock;
use payments_domain::time::Timestamp;
use std::time::{SystemTime, UNIX_EPOCH};

/// Reads the wall clock of the machine.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let millis = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_millis());
        Timestamp::from_unix_millis(i64::try_from(millis).unwrap_or(i64::MAX))
    }
}

/// The wall clock moved by an adjustable offset: lets tests jump over holds and redirect expiries
/// while the real application runs.
#[derive(Debug, Default)]
pub struct ShiftedClock {
    offset_seconds: std::sync::atomic::AtomicI64,
}

impl ShiftedClock {
    /// Moves this clock `seconds` further ahead.
    pub fn advance(&self, seconds: i64) {
        self.offset_seconds.fetch_add(seconds, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Clock for ShiftedClock {
    fn now(&self) -> Timestamp {
        SystemClock.now().plus_seconds(self.offset_seconds.load(std::sync::atomic::Ordering::SeqCst))
    }
}
