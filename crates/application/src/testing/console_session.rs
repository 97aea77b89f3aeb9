//! Console sessions, in memory.

use super::State;
use crate::ports::{ConsoleSessionRepository, StoreError};
use payments_domain::console_session::ConsoleSession;
use payments_domain::time::Timestamp;

impl ConsoleSessionRepository for State {
    fn insert(&mut self, session: &ConsoleSession) -> Result<(), StoreError> {
        if self.console_sessions.iter().any(|s| s.digest == session.digest) {
            return Err(StoreError::UniqueViolation("console_sessions_pkey".into()));
        }
        self.console_sessions.push(session.clone());
        Ok(())
    }

    fn find(&mut self, digest: &str) -> Result<Option<ConsoleSession>, StoreError> {
        Ok(self.console_sessions.iter().find(|s| s.digest == digest).cloned())
    }

    fn touch(&mut self, digest: &str, at: Timestamp) -> Result<(), StoreError> {
        if let Some(session) = self.console_sessions.iter_mut().find(|s| s.digest == digest) {
            session.last_seen_at = at;
        }
        Ok(())
    }

    fn delete(&mut self, digest: &str) -> Result<(), StoreError> {
        self.console_sessions.retain(|s| s.digest != digest);
        Ok(())
    }

    fn delete_seen_before(&mut self, cutoff: Timestamp) -> Result<usize, StoreError> {
        let before = self.console_sessions.len();
        self.console_sessions.retain(|s| s.last_seen_at >= cutoff);
        Ok(before - self.console_sessions.len())
    }
}
