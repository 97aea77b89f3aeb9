//! The test clock of an account's test mode: read it, and move it forward. An advance answers once
//! everything its move made due has happened, in the order it fell due.

use super::{DueWork, WebhookDeliveryService};
use crate::error::ApplicationError;
use crate::ports::Clock;
use crate::scope::Scope;
use payments_domain::test_clock::{ClockMove, TestClock};
use payments_domain::validation::FieldError;
use std::sync::Arc;

/// Tries to move a clock that concurrent advances keep moving first.
const MOVE_ATTEMPTS: usize = 10;

/// Test clock use cases.
pub struct TestClockService {
    clock: Arc<dyn Clock>,
    due_work: Arc<DueWork>,
    deliveries: Arc<WebhookDeliveryService>,
}

impl TestClockService {
    #[must_use]
    pub fn new(clock: Arc<dyn Clock>, due_work: Arc<DueWork>, deliveries: Arc<WebhookDeliveryService>) -> Self {
        Self { clock, due_work, deliveries }
    }

    /// The scope's test clock as it stands.
    ///
    /// # Errors
    /// `parameter_invalid` in live mode, which has no clock; storage failures.
    pub fn retrieve(&self, scope: &Scope) -> Result<TestClock, ApplicationError> {
        ensure_test_mode(scope)?;
        self.clock.test_clock(&scope.account_id)
    }

    /// Moves the scope's test clock forward, then performs everything that fell due up to its new
    /// time (each at its own time, in that order) and makes the webhook retries it jumped over due
    /// now. Returns the clock as this move left it (a concurrent advance may have moved it further
    /// since). Safe beside the background job and other instances: each due action lands once.
    ///
    /// # Errors
    /// `parameter_invalid` in live mode; `parameter_below_minimum` for a move back;
    /// `parameter_above_maximum` past the furthest a clock may go; `resource_conflict` when
    /// concurrent advances keep winning; storage failures.
    pub fn advance(&self, scope: &Scope, movement: ClockMove) -> Result<TestClock, ApplicationError> {
        ensure_test_mode(scope)?;
        let account = &scope.account_id;
        let mut attempts = 0;
        let (before, to) = loop {
            let before = self.clock.test_clock(account)?;
            let to = before.moved(movement).map_err(ApplicationError::invalid)?;
            if self.clock.move_test_clock(account, before.offset_millis, to)? {
                break (before, to);
            }
            attempts += 1;
            if attempts >= MOVE_ATTEMPTS {
                return Err(ApplicationError::Conflict);
            }
        };
        let after = TestClock { offset_millis: to, real_now: self.clock.now() };
        self.due_work.run_all(scope, after.now())?;
        self.deliveries.bring_forward(scope, to - before.offset_millis)?;
        Ok(after)
    }
}

fn ensure_test_mode(scope: &Scope) -> Result<(), ApplicationError> {
    if scope.livemode() {
        return Err(ApplicationError::invalid(FieldError::invalid(
            "livemode",
            "Live mode runs on real time and has no test clock: use a test secret key.",
        )));
    }
    Ok(())
}
