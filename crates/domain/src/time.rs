//! Timestamps: whole seconds since the Unix epoch, as the API shows them.

use serde::{Deserialize, Serialize};

/// A point in time in seconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Timestamp(i64);

impl Timestamp {
    #[must_use]
    pub const fn from_unix_seconds(seconds: i64) -> Self {
        Self(seconds)
    }

    #[must_use]
    pub const fn unix_seconds(self) -> i64 {
        self.0
    }

    /// This instant moved by `seconds` (negative moves back).
    #[must_use]
    pub const fn plus_seconds(self, seconds: i64) -> Self {
        Self(self.0.saturating_add(seconds))
    }
}
