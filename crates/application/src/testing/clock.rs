//! A clock moved by hand, with test clocks kept in memory.

use crate::error::ApplicationError;
use crate::ports::Clock;
use crate::scope::Scope;
use payments_domain::ids::AccountId;
use payments_domain::test_clock::TestClock;
use payments_domain::time::Timestamp;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Mutex, PoisonError};

/// A clock whose real time stands still until moved; each account's test clock is an offset on it.
#[derive(Debug)]
pub struct ManualClock {
    millis: AtomicI64,
    offsets: Mutex<BTreeMap<AccountId, i64>>,
}

impl ManualClock {
    #[must_use]
    pub fn at(seconds: i64) -> Self {
        Self { millis: AtomicI64::new(Timestamp::from_unix_seconds(seconds).unix_millis()), offsets: Mutex::default() }
    }

    pub fn advance(&self, seconds: i64) {
        self.advance_millis(seconds.saturating_mul(1_000));
    }

    pub fn advance_millis(&self, millis: i64) {
        self.millis.fetch_add(millis, Ordering::SeqCst);
    }

    fn offset(&self, account: &AccountId) -> i64 {
        self.offsets.lock().unwrap_or_else(PoisonError::into_inner).get(account).copied().unwrap_or(0)
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(self.millis.load(Ordering::SeqCst))
    }

    fn now_in(&self, scope: &Scope) -> Result<Timestamp, ApplicationError> {
        let offset = if scope.livemode() { 0 } else { self.offset(&scope.account_id) };
        Ok(self.now().plus_millis(offset))
    }

    fn test_clock(&self, account: &AccountId) -> Result<TestClock, ApplicationError> {
        Ok(TestClock { offset_millis: self.offset(account), real_now: self.now() })
    }

    fn move_test_clock(&self, account: &AccountId, from: i64, to: i64) -> Result<bool, ApplicationError> {
        let mut offsets = self.offsets.lock().unwrap_or_else(PoisonError::into_inner);
        if offsets.get(account).copied().unwrap_or(0) != from {
            return Ok(false);
        }
        offsets.insert(account.clone(), to);
        Ok(true)
    }

    fn moved_test_clocks(&self, after: Option<&AccountId>, limit: u32) -> Result<Vec<AccountId>, ApplicationError> {
        let offsets = self.offsets.lock().unwrap_or_else(PoisonError::into_inner);
        let moved =
            offsets.iter().filter(|(account, offset)| **offset > 0 && after.is_none_or(|after| *account > after));
        Ok(moved.map(|(account, _)| account.clone()).take(limit as usize).collect())
    }
}
