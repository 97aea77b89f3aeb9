//! Timestamps: the one time type of the domain, precise to the millisecond (webhook retries are
//! scheduled in milliseconds); the API shows whole seconds.

/// A point in time, in milliseconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    #[must_use]
    pub const fn from_unix_seconds(seconds: i64) -> Self {
        Self(seconds.saturating_mul(1_000))
    }

    #[must_use]
    pub const fn from_unix_millis(millis: i64) -> Self {
        Self(millis)
    }

    /// Whole seconds since the epoch (rounded down), as the API shows times.
    #[must_use]
    pub const fn unix_seconds(self) -> i64 {
        self.0.div_euclid(1_000)
    }

    #[must_use]
    pub const fn unix_millis(self) -> i64 {
        self.0
    }

    /// This instant moved by `millis` (negative moves back).
    #[must_use]
    pub const fn plus_millis(self, millis: i64) -> Self {
        Self(self.0.saturating_add(millis))
    }

    /// Milliseconds from `earlier` to this instant.
    #[must_use]
    pub const fn millis_since(self, earlier: Self) -> i64 {
        self.0.saturating_sub(earlier.0)
    }

    /// The UTC calendar year and month (1..=12) of this instant.
    #[must_use]
    pub const fn year_month(self) -> (i64, u32) {
        let (year, month, _) = self.civil_date();
        (year, month)
    }

    /// The UTC calendar date of this instant: year, month (1..=12) and day (1..=31).
    #[must_use]
    pub const fn civil_date(self) -> (i64, u32, u32) {
        // Days to civil date, after Howard Hinnant's `civil_from_days`.
        let days = self.unix_seconds().div_euclid(86_400) + 719_468;
        let era = days.div_euclid(146_097);
        let day_of_era = days - era * 146_097;
        let year_of_era = (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let month_index = (5 * day_of_year + 2) / 153;
        let day = day_of_year - (153 * month_index + 2) / 5 + 1;
        let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
        let year = year_of_era + era * 400 + if month <= 2 { 1 } else { 0 };
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        (year, month as u32, day as u32)
    }

    /// The start (midnight UTC) of a calendar date; `None` for a date that does not exist.
    #[must_use]
    pub fn from_civil_date(year: i64, month: u32, day: u32) -> Option<Self> {
        // Civil date to days, after Howard Hinnant's `days_from_civil`.
        if !(1..=12).contains(&month) || day == 0 || !(-1_000_000..=1_000_000).contains(&year) {
            return None;
        }
        let year_of_march = if month <= 2 { year - 1 } else { year };
        let era = year_of_march.div_euclid(400);
        let year_of_era = year_of_march - era * 400;
        let month_from_march = i64::from((month + 9) % 12);
        let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(day) - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        let at = Self::from_unix_seconds((era * 146_097 + day_of_era - 719_468) * 86_400);
        (at.civil_date() == (year, month, day)).then_some(at)
    }

    /// This instant moved by `seconds` (negative moves back).
    #[must_use]
    pub const fn plus_seconds(self, seconds: i64) -> Self {
        Self(self.0.saturating_add(seconds.saturating_mul(1_000)))
    }
}

#[cfg(test)]
mod tests {
    use super::Timestamp;

    #[test]
    fn a_calendar_date_is_its_midnight_and_a_date_that_does_not_exist_is_none() {
        assert_eq!(Timestamp::from_civil_date(1970, 1, 1), Some(Timestamp::from_unix_seconds(0)));
        assert_eq!(Timestamp::from_civil_date(2026, 12, 31), Some(Timestamp::from_unix_seconds(1_798_675_200)));
        assert_eq!(Timestamp::from_civil_date(2000, 2, 29), Some(Timestamp::from_unix_seconds(951_782_400)));
        for (year, month, day) in [(2026, 2, 29), (2026, 13, 1), (2026, 0, 1), (2026, 4, 31), (2026, 1, 0)] {
            assert_eq!(Timestamp::from_civil_date(year, month, day), None, "{year}-{month}-{day}");
        }
        for seconds in [0, 86_399, 951_782_400, 1_798_761_599, -86_400] {
            let (year, month, day) = Timestamp::from_unix_seconds(seconds).civil_date();
            let midnight = Timestamp::from_civil_date(year, month, day).unwrap();
            assert_eq!(midnight.unix_seconds(), seconds.div_euclid(86_400) * 86_400);
        }
    }

    #[test]
    fn year_and_month_of_known_instants() {
        assert_eq!(Timestamp::from_unix_seconds(0).year_month(), (1970, 1));
        assert_eq!(Timestamp::from_unix_seconds(951_782_400).year_month(), (2000, 2)); // 2000-02-29
        assert_eq!(Timestamp::from_unix_seconds(1_795_323_956).year_month(), (2026, 11));
        assert_eq!(Timestamp::from_unix_seconds(1_798_761_599).year_month(), (2026, 12)); // 2026-12-31T23:59:59
        assert_eq!(Timestamp::from_unix_seconds(1_798_761_600).year_month(), (2027, 1));
        assert_eq!(Timestamp::from_unix_seconds(951_782_400).civil_date(), (2000, 2, 29));
        assert_eq!(Timestamp::from_unix_seconds(1_798_761_599).civil_date(), (2026, 12, 31));
        assert_eq!(Timestamp::from_unix_seconds(1_798_761_600).civil_date(), (2027, 1, 1));
    }

    #[test]
    fn seconds_round_down_and_millis_are_kept() {
        let instant = Timestamp::from_unix_millis(1_700_000_000_999);
        assert_eq!(instant.unix_seconds(), 1_700_000_000);
        assert_eq!(instant.plus_seconds(1).unix_millis(), 1_700_000_001_999);
        assert_eq!(Timestamp::from_unix_millis(-1).unix_seconds(), -1);
        assert_eq!(instant.millis_since(Timestamp::from_unix_seconds(1_700_000_000)), 999);
    }
}
