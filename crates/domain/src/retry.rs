//! Retries of work sent to the outside (webhook deliveries, e-mail): when the next attempt falls due
//! and when to give up.

use crate::time::Timestamp;

/// The retry schedule: exponential backoff from `base_ms`, capped at `cap_ms`, with a share
/// `jitter` (0 to 1) of each delay drawn at random ("full jitter" at 1), given up after
/// `give_up_after_ms` from the delivery's creation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetrySchedule {
    pub base_ms: i64,
    pub cap_ms: i64,
    pub jitter: f64,
    pub give_up_after_ms: i64,
}

impl RetrySchedule {
    /// The delay before attempt `attempts + 1`, after `attempts` failed ones; `random` is uniform in
    /// `[0, 1)`.
    #[must_use]
    pub fn delay_ms(&self, attempts: i64, random: f64) -> i64 {
        let exponent = u32::try_from(attempts.saturating_sub(1).clamp(0, 40)).unwrap_or(40);
        let ceiling = self.base_ms.saturating_mul(1_i64 << exponent.min(40)).min(self.cap_ms);
        #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
        let jittered = (ceiling as f64 * (1.0 - self.jitter * random.clamp(0.0, 1.0))) as i64;
        jittered.max(1)
    }

    /// Whether a delivery created at `created_at` is past its retry window at `now`.
    #[must_use]
    pub fn gives_up(&self, created_at: Timestamp, now: Timestamp) -> bool {
        now.millis_since(created_at) >= self.give_up_after_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEDULE: RetrySchedule =
        RetrySchedule { base_ms: 1_000, cap_ms: 10_000, jitter: 0.0, give_up_after_ms: 60_000 };

    #[test]
    fn retries_back_off_exponentially_up_to_the_cap() {
        let delays: Vec<i64> = (1..=6).map(|attempts| SCHEDULE.delay_ms(attempts, 0.5)).collect();
        assert_eq!(delays, vec![1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
        let full_jitter = RetrySchedule { jitter: 1.0, ..SCHEDULE };
        assert_eq!(full_jitter.delay_ms(3, 0.5), 2_000);
        assert!(full_jitter.delay_ms(3, 0.99) >= 1);
        let start = Timestamp::from_unix_seconds(0);
        assert!(SCHEDULE.gives_up(start, start.plus_millis(60_000)));
        assert!(!SCHEDULE.gives_up(start, start.plus_millis(59_999)));
    }
}
