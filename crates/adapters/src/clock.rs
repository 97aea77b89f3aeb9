//! Time: the machine's clock, and each account's test clock on top of it.

use payments_application::ports::{in_transaction, reading, Clock, UnitOfWork};
use payments_application::{ApplicationError, Scope};
use payments_domain::ids::AccountId;
use payments_domain::test_clock::TestClock;
use payments_domain::time::Timestamp;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long a test clock read from storage is used before it is read again: another instance's
/// move shows here within this time.
const REMEMBERED_FOR: Duration = Duration::from_secs(1);
/// Most test clocks remembered; past this the memo starts over.
const MAX_REMEMBERED: usize = 10_000;

/// Real time as this process reads it: the machine's clock, moved forward only by tests (to jump
/// over what runs on real time: leases, sessions, retention).
#[derive(Debug, Default)]
pub struct RealTime {
    shift_millis: AtomicI64,
}

impl RealTime {
    #[must_use]
    pub fn now(&self) -> Timestamp {
        let millis = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_millis());
        Timestamp::from_unix_millis(i64::try_from(millis).unwrap_or(i64::MAX))
            .plus_millis(self.shift_millis.load(Ordering::SeqCst))
    }

    /// Moves this process's real time `seconds` further ahead (tests only).
    pub fn advance(&self, seconds: i64) {
        self.shift_millis.fetch_add(seconds.saturating_mul(1_000), Ordering::SeqCst);
    }
}

/// Real time, and each account's test clock as stored with the account, remembered for a second.
pub struct AccountClocks {
    storage: Arc<dyn UnitOfWork>,
    real_time: Arc<RealTime>,
    /// Test clock offsets read lately, with when they were read.
    remembered: RwLock<HashMap<AccountId, (i64, Instant)>>,
}

impl AccountClocks {
    #[must_use]
    pub fn new(storage: Arc<dyn UnitOfWork>, real_time: Arc<RealTime>) -> Self {
        Self { storage, real_time, remembered: RwLock::default() }
    }

    fn offset(&self, account: &AccountId) -> Result<i64, ApplicationError> {
        let remembered = self.remembered.read().unwrap_or_else(PoisonError::into_inner).get(account).copied();
        match remembered {
            Some((offset, read_at)) if read_at.elapsed() < REMEMBERED_FOR => Ok(offset),
            _ => Ok(self.test_clock(account)?.offset_millis),
        }
    }

    fn remember(&self, account: &AccountId, offset: i64) {
        let mut remembered = self.remembered.write().unwrap_or_else(PoisonError::into_inner);
        if remembered.len() >= MAX_REMEMBERED {
            remembered.clear();
        }
        remembered.insert(account.clone(), (offset, Instant::now()));
    }
}

impl Clock for AccountClocks {
    fn now(&self) -> Timestamp {
        self.real_time.now()
    }

    fn now_in(&self, scope: &Scope) -> Result<Timestamp, ApplicationError> {
        if scope.livemode() {
            return Ok(self.now());
        }
        Ok(self.now().plus_millis(self.offset(&scope.account_id)?))
    }

    fn test_clock(&self, account: &AccountId) -> Result<TestClock, ApplicationError> {
        let offset_millis =
            reading(self.storage.as_ref(), |repositories| Ok(repositories.accounts().test_clock_offset(account)?))?;
        self.remember(account, offset_millis);
        Ok(TestClock { offset_millis, real_now: self.now() })
    }

    fn move_test_clock(&self, account: &AccountId, from: i64, to: i64) -> Result<bool, ApplicationError> {
        let moved = in_transaction(self.storage.as_ref(), |repositories| {
            Ok(repositories.accounts().move_test_clock(account, from, to)?)
        })?;
        if moved {
            self.remember(account, to);
        }
        Ok(moved)
    }

    fn moved_test_clocks(&self, after: Option<&AccountId>, limit: u32) -> Result<Vec<AccountId>, ApplicationError> {
        reading(self.storage.as_ref(), |repositories| {
            Ok(repositories.accounts().with_moved_test_clock(after, limit)?)
        })
    }
}
