//! An account's test clock as the API shows it.

use payments_domain::test_clock::TestClock;
use serde::Serialize;
use utoipa::ToSchema;

/// The clock of an account's test mode: real time moved forward by the account, never back. Every
/// object of the account's test mode takes its times from it; live mode has no clock.
#[derive(Serialize, ToSchema)]
#[schema(as = TestClock)]
pub(crate) struct TestClockResource {
    #[schema(example = "test_clock")]
    resource: &'static str,
    livemode: bool,
    /// The clock's time, in Unix seconds.
    now: i64,
    /// How far the clock stands ahead of real time, in seconds (0 until it is first advanced).
    seconds_ahead: i64,
}

impl TestClockResource {
    pub(crate) fn new(clock: TestClock) -> Self {
        Self {
            resource: "test_clock",
            livemode: false,
            now: clock.now().unix_seconds(),
            seconds_ahead: clock.seconds_ahead(),
        }
    }
}
