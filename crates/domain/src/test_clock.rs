//! The test clock: each account's test mode runs on real time moved forward by an offset the
//! account chooses, never back. Live mode always runs on real time and has no clock.

use crate::time::Timestamp;
use crate::validation::{ErrorCode, FieldError};

/// The furthest a test clock may stand ahead of real time: ten years (3,650 days), enough for any
/// hold, statement or subscription a suite tests, and well within the years a test card may expire
/// (up to 2100).
pub const MAX_SECONDS_AHEAD: i64 = 3_650 * 86_400;
const MAX_MILLIS_AHEAD: i64 = MAX_SECONDS_AHEAD * 1_000;

/// A test mode's clock, read at a moment of real time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TestClock {
    /// How far the clock stands ahead of real time.
    pub offset_millis: i64,
    /// Real time when it was read.
    pub real_now: Timestamp,
}

impl TestClock {
    /// The clock's time.
    #[must_use]
    pub fn now(self) -> Timestamp {
        self.real_now.plus_millis(self.offset_millis)
    }

    /// Whole seconds the clock stands ahead of real time.
    #[must_use]
    pub fn seconds_ahead(self) -> i64 {
        self.offset_millis.div_euclid(1_000)
    }

    /// The offset after `movement`.
    ///
    /// # Errors
    /// `parameter_below_minimum` for a move back (`to` before the clock's now, negative `seconds`);
    /// `parameter_above_maximum` for a move that would put the clock more than
    /// [`MAX_SECONDS_AHEAD`] ahead of real time.
    pub fn moved(self, movement: ClockMove) -> Result<i64, FieldError> {
        let (parameter, offset) = match movement {
            ClockMove::To(to) => {
                if to < Timestamp::from_unix_seconds(self.now().unix_seconds()) {
                    return Err(FieldError::new(
                        "to",
                        ErrorCode::ParameterBelowMinimum,
                        format!(
                            "to must not be earlier than the clock's now ({}): a test clock never goes back.",
                            self.now().unix_seconds()
                        ),
                    ));
                }
                ("to", to.millis_since(self.real_now).max(self.offset_millis))
            }
            ClockMove::By { seconds } => {
                if seconds < 0 {
                    return Err(FieldError::new(
                        "seconds",
                        ErrorCode::ParameterBelowMinimum,
                        "seconds must be 0 or more: a test clock never goes back.",
                    ));
                }
                ("seconds", self.offset_millis.saturating_add(seconds.saturating_mul(1_000)))
            }
        };
        if offset > MAX_MILLIS_AHEAD {
            return Err(FieldError::new(
                parameter,
                ErrorCode::ParameterAboveMaximum,
                format!("A test clock may stand at most {MAX_SECONDS_AHEAD} seconds (3,650 days) ahead of real time."),
            ));
        }
        Ok(offset)
    }
}

/// How a merchant moves its test clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockMove {
    /// To a time not earlier than the clock's now.
    To(Timestamp),
    /// Forward by a number of seconds.
    By { seconds: i64 },
}

#[cfg(test)]
mod tests {
    use super::*;

    const REAL: Timestamp = Timestamp::from_unix_seconds(1_800_000_000);

    fn clock(offset_seconds: i64) -> TestClock {
        TestClock { offset_millis: offset_seconds * 1_000, real_now: REAL }
    }

    #[test]
    fn a_clock_stands_its_offset_ahead_of_real_time() {
        assert_eq!(clock(0).now(), REAL);
        assert_eq!(clock(3_600).now(), REAL.plus_seconds(3_600));
        assert_eq!(clock(3_600).seconds_ahead(), 3_600);
    }

    #[test]
    fn a_clock_moves_forward_to_a_time_or_by_seconds() {
        assert_eq!(clock(10).moved(ClockMove::By { seconds: 50 }), Ok(60_000));
        assert_eq!(clock(10).moved(ClockMove::By { seconds: 0 }), Ok(10_000));
        assert_eq!(clock(10).moved(ClockMove::To(REAL.plus_seconds(100))), Ok(100_000));
        assert_eq!(clock(10).moved(ClockMove::To(REAL.plus_seconds(10))), Ok(10_000), "to its own now");
    }

    #[test]
    fn a_clock_never_goes_back() {
        let back = clock(10).moved(ClockMove::To(REAL.plus_seconds(9))).unwrap_err();
        assert_eq!((back.parameter.as_str(), back.code), ("to", ErrorCode::ParameterBelowMinimum));
        let negative = clock(10).moved(ClockMove::By { seconds: -1 }).unwrap_err();
        assert_eq!((negative.parameter.as_str(), negative.code), ("seconds", ErrorCode::ParameterBelowMinimum));
    }

    #[test]
    fn a_clock_stays_within_ten_years_of_real_time() {
        assert_eq!(clock(0).moved(ClockMove::By { seconds: MAX_SECONDS_AHEAD }), Ok(MAX_MILLIS_AHEAD));
        let far = clock(1).moved(ClockMove::By { seconds: MAX_SECONDS_AHEAD }).unwrap_err();
        assert_eq!((far.parameter.as_str(), far.code), ("seconds", ErrorCode::ParameterAboveMaximum));
        let huge = clock(0).moved(ClockMove::By { seconds: i64::MAX }).unwrap_err();
        assert_eq!(huge.code, ErrorCode::ParameterAboveMaximum);
        let year_10000 = Timestamp::from_unix_seconds(253_402_300_800);
        assert_eq!(clock(0).moved(ClockMove::To(year_10000)).unwrap_err().code, ErrorCode::ParameterAboveMaximum);
    }
}
