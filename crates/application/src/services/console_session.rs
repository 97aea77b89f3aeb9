//! Developer console sessions: signing in with an account's secret key, finding the session a
//! browser's token opens (ending it when it was left idle), signing out.

use crate::error::ApplicationError;
use crate::ports::{in_transaction, reading, Clock, IdGenerator, UnitOfWork};
use crate::scope::{Caller, Scope};
use crate::services::AccountService;
use payments_domain::account::KeyKind;
use payments_domain::console_session::{ConsoleSession, SessionToken};
use std::sync::Arc;

/// Characters of a session token (about 256 bits) and of a form token.
const TOKEN_LENGTH: usize = 43;
const FORM_TOKEN_LENGTH: usize = 32;

/// A session just opened, with the token its browser keeps.
#[derive(Debug)]
pub struct SignedIn {
    pub token: SessionToken,
    pub session: ConsoleSession,
}

/// Console session use cases.
pub struct ConsoleSessionService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    accounts: Arc<AccountService>,
    idle_seconds: i64,
}

impl ConsoleSessionService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        accounts: Arc<AccountService>,
        idle_seconds: i64,
    ) -> Self {
        Self { unit_of_work, clock, ids, accounts, idle_seconds }
    }

    /// Opens a session with a secret key, in place of the browser's `previous` one if it had one:
    /// signing in always makes a new token.
    ///
    /// # Errors
    /// [`ApplicationError::Unauthenticated`] for a key that is not an account's secret key, whatever
    /// is wrong with it; storage failures.
    pub fn sign_in(&self, presented_key: &str, previous: Option<&str>) -> Result<SignedIn, ApplicationError> {
        let caller = match self.accounts.authenticate(presented_key.trim()) {
            Ok(caller) if caller.key_kind == KeyKind::Secret => caller,
            Ok(_) | Err(ApplicationError::Unauthenticated) => return Err(ApplicationError::Unauthenticated),
            Err(other) => return Err(other),
        };
        let token = SessionToken::new(self.ids.alphanumeric(TOKEN_LENGTH));
        let form_token = self.ids.alphanumeric(FORM_TOKEN_LENGTH);
        let session =
            ConsoleSession::open(&token, caller.scope.account_id, caller.scope.mode, form_token, self.clock.now());
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            if let Some(previous) = previous {
                repositories.console_sessions().delete(&SessionToken::presented(previous).digest())?;
            }
            Ok(repositories.console_sessions().insert(&session)?)
        })?;
        Ok(SignedIn { token, session })
    }

    /// The session `token` opens, if it is still open: one left idle past the timeout is ended.
    ///
    /// # Errors
    /// Storage failures.
    pub fn resume(&self, token: &str) -> Result<Option<ConsoleSession>, ApplicationError> {
        let digest = SessionToken::presented(token).digest();
        let now = self.clock.now();
        let found =
            reading(self.unit_of_work.as_ref(), |repositories| Ok(repositories.console_sessions().find(&digest)?))?;
        match found {
            None => Ok(None),
            Some(session) if session.is_idle(now, self.idle_seconds) => {
                in_transaction(self.unit_of_work.as_ref(), |r| Ok(r.console_sessions().delete(&digest)?))?;
                Ok(None)
            }
            Some(mut session) => {
                if session.needs_touch(now) {
                    in_transaction(self.unit_of_work.as_ref(), |r| Ok(r.console_sessions().touch(&digest, now)?))?;
                    session.last_seen_at = now;
                }
                Ok(Some(session))
            }
        }
    }

    /// Ends the session `token` opens, if any.
    ///
    /// # Errors
    /// Storage failures.
    pub fn sign_out(&self, token: &str) -> Result<(), ApplicationError> {
        let digest = SessionToken::presented(token).digest();
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.console_sessions().delete(&digest)?)
        })
    }

    /// Ends every session left idle past the timeout; returns how many.
    ///
    /// # Errors
    /// Storage failures.
    pub fn end_idle(&self) -> Result<usize, ApplicationError> {
        let cutoff = self.clock.now().plus_seconds(-self.idle_seconds);
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.console_sessions().delete_seen_before(cutoff)?)
        })
    }
}

/// Who acts through a session: its account and mode, with the powers of a secret key.
#[must_use]
pub fn caller_of(session: &ConsoleSession) -> Caller {
    Caller { scope: Scope { account_id: session.account_id.clone(), mode: session.mode }, key_kind: KeyKind::Secret }
}
