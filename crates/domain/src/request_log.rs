//! The request log: one entry per API request of an account, with its bodies as they may be shown
//! (redacted before they are recorded), kept for a bounded time and number of rows.

use crate::account::KeyKind;
use crate::ids::{AccountId, RequestLogId};
use crate::time::Timestamp;

/// Where a request came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RequestSource {
    /// A client of the API, with an API key.
    Api,
    /// An action taken in the developer console.
    Dashboard,
}

impl RequestSource {
    pub const ALL: &'static [Self] = &[Self::Api, Self::Dashboard];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Api => "api",
            Self::Dashboard => "dashboard",
        }
    }

    /// The source from its stored name.
    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|source| source.as_str() == value)
    }
}

/// One logged request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestLog {
    pub id: RequestLogId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub source: RequestSource,
    pub key_kind: KeyKind,
    pub method: String,
    /// The path without the query string.
    pub path: String,
    pub query: String,
    pub status: u16,
    pub duration_ms: i64,
    pub idempotency_key: Option<String>,
    /// Whether the answer was a stored one replayed for an idempotency key.
    pub replayed: bool,
    /// The object the request was about: the id in its path, else the id of the object it answered.
    pub object_id: Option<String>,
    pub request_body: Option<String>,
    pub response_body: Option<String>,
    pub created_at: Timestamp,
}

impl RequestLog {
    /// What keeping the entry costs, in bytes: its texts.
    #[must_use]
    pub fn size_bytes(&self) -> u64 {
        let optional = |text: &Option<String>| text.as_ref().map_or(0, String::len);
        let texts = self.method.len()
            + self.path.len()
            + self.query.len()
            + optional(&self.idempotency_key)
            + optional(&self.object_id)
            + optional(&self.request_body)
            + optional(&self.response_body);
        u64::try_from(texts).unwrap_or(u64::MAX)
    }
}

/// How long entries are kept, and how many and how many bytes of them an account keeps in each mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    pub max_age_seconds: i64,
    pub max_rows: u32,
    pub max_bytes: u64,
}

impl Retention {
    /// Whether an entry is kept, given its account's entries in its mode from the newest to it:
    /// `rows` of them, of `bytes` in all ([`RequestLog::size_bytes`]).
    #[must_use]
    pub fn keeps(&self, rows: u32, bytes: u64) -> bool {
        rows <= self.max_rows && bytes <= self.max_bytes
    }

    /// How many bytes an account's mode may write between two enforcements of its caps: a
    /// sixteenth of its byte cap, so that between them it holds at most that much over the cap.
    #[must_use]
    pub fn trim_every_bytes(&self) -> u64 {
        (self.max_bytes / 16).max(1)
    }

    /// The time before which entries are dropped, at `now`.
    #[must_use]
    pub fn cutoff(&self, now: Timestamp) -> Timestamp {
        Timestamp::from_unix_seconds(now.unix_seconds().saturating_sub(self.max_age_seconds))
    }
}

/// A range of response statuses, as a filter names it: a class (`4xx`) or one status (`404`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusRange {
    pub min: u16,
    pub max: u16,
}

impl StatusRange {
    /// `2xx` … `5xx`, or a status from 100 to 599; `None` for anything else.
    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        let bytes = value.as_bytes();
        if bytes.len() != 3 || !(b'1'..=b'5').contains(&bytes[0]) {
            return None;
        }
        let hundreds = u16::from(bytes[0] - b'0') * 100;
        if value[1..].eq_ignore_ascii_case("xx") {
            return Some(Self { min: hundreds, max: hundreds + 99 });
        }
        let status: u16 = value.parse().ok().filter(|_| bytes.iter().all(u8::is_ascii_digit))?;
        Some(Self { min: status, max: status })
    }

    #[must_use]
    pub fn contains(&self, status: u16) -> bool {
        (self.min..=self.max).contains(&status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_filter_is_a_class_or_one_status() {
        assert_eq!(StatusRange::parse("4xx"), Some(StatusRange { min: 400, max: 499 }));
        assert_eq!(StatusRange::parse("2XX"), Some(StatusRange { min: 200, max: 299 }));
        assert_eq!(StatusRange::parse("404"), Some(StatusRange { min: 404, max: 404 }));
        for bad in ["", "4", "4x", "6xx", "0xx", "40x", "4x0", "+40", "4040", "abc"] {
            assert_eq!(StatusRange::parse(bad), None, "{bad}");
        }
        assert!(StatusRange::parse("5xx").unwrap().contains(503));
        assert!(!StatusRange::parse("5xx").unwrap().contains(499));
    }

    #[test]
    fn the_cutoff_is_the_age_before_now() {
        let retention = Retention { max_age_seconds: 7 * 86_400, max_rows: 10, max_bytes: 1_000 };
        assert_eq!(retention.cutoff(Timestamp::from_unix_seconds(1_000_000)).unix_seconds(), 395_200);
    }
}
