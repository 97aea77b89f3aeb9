//! Idempotency keys: the first completed response of a key is replayed to its retries for 24 hours.

use crate::error::ApplicationError;
use crate::ports::Clock;
use crate::ports::{in_transaction, IdempotencyRecord, IdempotencyState, StoreError, UnitOfWork};
use crate::scope::Caller;
use payments_domain::time::Timestamp;
use std::sync::Arc;

/// How long a completed response is replayed.
pub const RETENTION_SECONDS: i64 = 24 * 60 * 60;
/// After this long an in-flight key is taken to belong to a request that died (a crashed process).
pub const ABANDONED_AFTER_SECONDS: i64 = 60;
/// The digest of a record kept before digests left card data out, retired by a migration: such a
/// record is the same request as any retry of its key, so it is replayed, never run again.
pub const RETIRED_FINGERPRINT: &str = "retired";

/// What to do with a request that carries an idempotency key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotentStart {
    /// First use: process the request, then [`IdempotencyService::finish`].
    Proceed,
    /// A retry of a completed request: answer with the stored response.
    Replay { status: u16, body: Vec<u8> },
}

/// Idempotency-key use cases.
pub struct IdempotencyService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
}

impl IdempotencyService {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>, clock: Arc<dyn Clock>) -> Self {
        Self { unit_of_work, clock }
    }

    /// Claims `key` for a request with `fingerprint`, or tells how to answer a retry.
    ///
    /// # Errors
    /// `idempotency_key_reused` when the key was used for a different request;
    /// `idempotency_key_in_use` while the first request is still in flight; storage failures.
    pub fn begin(&self, caller: &Caller, key: &str, fingerprint: &str) -> Result<IdempotentStart, ApplicationError> {
        let now = self.clock.now();
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let store = repositories.idempotency_keys();
            if let Some(existing) = store.find(caller, key)? {
                let expired = existing.created_at.plus_seconds(RETENTION_SECONDS) <= now;
                let abandoned = existing.state == IdempotencyState::InFlight
                    && existing.created_at.plus_seconds(ABANDONED_AFTER_SECONDS) <= now;
                let same_request = existing.fingerprint == fingerprint || existing.fingerprint == RETIRED_FINGERPRINT;
                if !expired && !same_request {
                    return Err(ApplicationError::IdempotencyKeyReused);
                }
                match existing.state {
                    _ if expired || abandoned => store.delete(caller, key)?,
                    IdempotencyState::InFlight => return Err(ApplicationError::IdempotencyKeyInUse),
                    IdempotencyState::Completed { status, body } => {
                        return Ok(IdempotentStart::Replay { status, body })
                    }
                }
            }
            let record = IdempotencyRecord {
                caller: caller.clone(),
                key: key.to_owned(),
                fingerprint: fingerprint.to_owned(),
                state: IdempotencyState::InFlight,
                created_at: now,
            };
            // A concurrent first use inserted the key between our read and this write.
            store.insert(&record).map_err(|error| match error {
                StoreError::UniqueViolation(_) => ApplicationError::IdempotencyKeyInUse,
                other => other.into(),
            })?;
            Ok(IdempotentStart::Proceed)
        })
    }

    /// Records the response of a claimed key, or releases the key when there is nothing to replay
    /// (`None`: the request failed before it changed anything, so a retry must run again).
    ///
    /// # Errors
    /// Storage failures.
    pub fn finish(&self, caller: &Caller, key: &str, response: Option<(u16, &[u8])>) -> Result<(), ApplicationError> {
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let store = repositories.idempotency_keys();
            match response {
                Some((status, body)) => store.complete(caller, key, status, body)?,
                None => store.delete(caller, key)?,
            }
            Ok(())
        })
    }

    /// Forgets keys past their retention; returns how many.
    ///
    /// # Errors
    /// Storage failures.
    pub fn purge_expired(&self) -> Result<usize, ApplicationError> {
        let cutoff: Timestamp = self.clock.now().plus_seconds(-RETENTION_SECONDS);
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.idempotency_keys().delete_created_before(cutoff)?)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestPorts;
    use payments_domain::account::{KeyKind, Mode};

    #[test]
    fn a_completed_key_replays_and_refuses_another_request() {
        let ports = TestPorts::new();
        let service = ports.idempotency_service();
        let caller = ports.caller(Mode::Test, KeyKind::Secret);
        assert_eq!(service.begin(&caller, "k1", "f1").unwrap(), IdempotentStart::Proceed);
        assert!(matches!(service.begin(&caller, "k1", "f1"), Err(ApplicationError::IdempotencyKeyInUse)));
        service.finish(&caller, "k1", Some((200, b"{}"))).unwrap();
        assert_eq!(
            service.begin(&caller, "k1", "f1").unwrap(),
            IdempotentStart::Replay { status: 200, body: b"{}".to_vec() }
        );
        assert!(matches!(service.begin(&caller, "k1", "f2"), Err(ApplicationError::IdempotencyKeyReused)));
        assert_eq!(
            service.begin(&ports.caller(Mode::Live, KeyKind::Secret), "k1", "f2").unwrap(),
            IdempotentStart::Proceed,
            "another mode is another key"
        );
        assert_eq!(
            service.begin(&ports.caller(Mode::Test, KeyKind::Public), "k1", "f1").unwrap(),
            IdempotentStart::Proceed,
            "a public key never replays what a secret key stored"
        );
    }

    #[test]
    fn a_released_key_can_be_used_again() {
        let ports = TestPorts::new();
        let service = ports.idempotency_service();
        let caller = ports.caller(Mode::Test, KeyKind::Secret);
        service.begin(&caller, "k1", "f1").unwrap();
        service.finish(&caller, "k1", None).unwrap();
        assert_eq!(service.begin(&caller, "k1", "f2").unwrap(), IdempotentStart::Proceed);
    }

    #[test]
    fn keys_expire_after_24_hours_and_abandoned_ones_after_a_minute() {
        let ports = TestPorts::new();
        let service = ports.idempotency_service();
        let caller = ports.caller(Mode::Test, KeyKind::Secret);
        service.begin(&caller, "done", "f1").unwrap();
        service.finish(&caller, "done", Some((200, b"{}"))).unwrap();
        service.begin(&caller, "stuck", "f1").unwrap();
        ports.clock.advance(ABANDONED_AFTER_SECONDS);
        assert_eq!(service.begin(&caller, "stuck", "f1").unwrap(), IdempotentStart::Proceed);
        ports.clock.advance(RETENTION_SECONDS);
        assert_eq!(service.begin(&caller, "done", "f2").unwrap(), IdempotentStart::Proceed);
        ports.clock.advance(1);
        assert_eq!(service.purge_expired().unwrap(), 1, "only the key claimed a day ago is purged");
    }

    #[test]
    fn a_record_with_a_retired_digest_replays_to_any_retry_of_its_key() {
        let ports = TestPorts::new();
        let service = ports.idempotency_service();
        let caller = ports.caller(Mode::Test, KeyKind::Secret);
        service.begin(&caller, "old", RETIRED_FINGERPRINT).unwrap();
        service.finish(&caller, "old", Some((200, b"{\"id\":\"cus_1\"}"))).unwrap();
        assert_eq!(
            service.begin(&caller, "old", "any digest of today").unwrap(),
            IdempotentStart::Replay { status: 200, body: b"{\"id\":\"cus_1\"}".to_vec() }
        );
        ports.clock.advance(RETENTION_SECONDS);
        assert_eq!(service.begin(&caller, "old", "f2").unwrap(), IdempotentStart::Proceed, "until it expires");
    }
}
