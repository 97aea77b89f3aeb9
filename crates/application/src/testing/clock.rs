//! A clock moved by hand.

use crate::ports::Clock;
use payments_domain::time::Timestamp;
use std::sync::atomic::{AtomicI64, Ordering};

/// A clock that stands still until moved.
#[derive(Debug)]
pub struct ManualClock {
    millis: AtomicI64,
}

impl ManualClock {
    #[must_use]
    pub fn at(seconds: i64) -> Self {
        Self { millis: AtomicI64::new(Timestamp::from_unix_seconds(seconds).unix_millis()) }
    }

    pub fn advance(&self, seconds: i64) {
        self.advance_millis(seconds.saturating_mul(1_000));
    }

    pub fn advance_millis(&self, millis: i64) {
        self.millis.fetch_add(millis, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(self.millis.load(Ordering::SeqCst))
    }
}
