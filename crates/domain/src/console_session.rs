//! A session of the developer console: opened with an account's secret key, it sees that account in
//! that key's mode until it is signed out or left idle. The browser holds a random token; only the
//! token's SHA-256 digest is stored, so a leaked database opens no session. Each session carries the
//! form token its pages' forms must send back.

use crate::account::{hex, Mode};
use crate::ids::AccountId;
use crate::time::Timestamp;
use sha2::{Digest, Sha256};
use std::fmt;

/// How stale a session's last-seen time may get before a request records a newer one: a page view
/// writes at most once a minute.
pub const TOUCH_AFTER_SECONDS: i64 = 60;

/// The token a signed-in browser holds in its cookie. `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionToken(String);

impl SessionToken {
    /// A token from a freshly drawn random string.
    #[must_use]
    pub fn new(random: String) -> Self {
        Self(random)
    }

    /// A token a browser presented.
    #[must_use]
    pub fn presented(value: &str) -> Self {
        Self(value.to_owned())
    }

    /// The digest under which the session is stored and looked up.
    #[must_use]
    pub fn digest(&self) -> String {
        hex(&Sha256::digest(self.0.as_bytes()))
    }

    /// The token itself, for the cookie.
    #[must_use]
    pub fn reveal(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SessionToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionToken([redacted])")
    }
}

/// A signed-in console session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleSession {
    /// The digest of the browser's token.
    pub digest: String,
    pub account_id: AccountId,
    pub mode: Mode,
    /// What every form of the session's pages must send back.
    pub form_token: String,
    pub created_at: Timestamp,
    pub last_seen_at: Timestamp,
}

impl ConsoleSession {
    /// A session for `token`, opened at `now`.
    #[must_use]
    pub fn open(token: &SessionToken, account_id: AccountId, mode: Mode, form_token: String, now: Timestamp) -> Self {
        Self { digest: token.digest(), account_id, mode, form_token, created_at: now, last_seen_at: now }
    }

    /// Whether the session was left alone for `idle_seconds` or more at `now`.
    #[must_use]
    pub fn is_idle(&self, now: Timestamp, idle_seconds: i64) -> bool {
        self.last_seen_at.plus_seconds(idle_seconds) <= now
    }

    /// Whether a request at `now` should record itself as the session's last-seen time.
    #[must_use]
    pub fn needs_touch(&self, now: Timestamp) -> bool {
        self.last_seen_at.plus_seconds(TOUCH_AFTER_SECONDS) <= now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(token: &SessionToken) -> ConsoleSession {
        let account = AccountId::from_random("acme");
        ConsoleSession::open(token, account, Mode::Test, "form".into(), Timestamp::from_unix_seconds(1_000))
    }

    #[test]
    fn only_the_digest_is_kept_and_debug_hides_the_token() {
        let token = SessionToken::new("SecretRandomToken".into());
        let opened = session(&token);
        assert_eq!(opened.digest, token.digest());
        assert_eq!(opened.digest.len(), 64);
        assert!(!format!("{opened:?}{token:?}").contains("SecretRandomToken"));
        assert_eq!(SessionToken::presented("SecretRandomToken").digest(), token.digest());
    }

    #[test]
    fn a_session_goes_idle_after_its_timeout_and_is_touched_once_a_minute() {
        let opened = session(&SessionToken::new("t".into()));
        let at = |seconds: i64| Timestamp::from_unix_seconds(1_000 + seconds);
        assert!(!opened.is_idle(at(3_599), 3_600));
        assert!(opened.is_idle(at(3_600), 3_600));
        assert!(!opened.needs_touch(at(59)));
        assert!(opened.needs_touch(at(60)));
    }
}
