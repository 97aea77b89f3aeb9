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

    fn now_millis(&self) -> i64 {
        let millis = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_millis());
        i64::try_from(millis).unwrap_or(i64::MAX)
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

    fn now_millis(&self) -> i64 {
        let offset = self.offset_seconds.load(std::sync::atomic::Ordering::SeqCst);
        SystemClock.now_millis().saturating_add(offset.saturating_mul(1_000))
    }
}
