//! Merchant accounts and their API keys.
//!
//! Each account has four keys: secret and public, for test and live mode. The key's prefix decides its
//! kind and mode. Only a SHA-256 digest of a key is ever stored, so a leaked database cannot be used
//! to call the API.

use crate::ids::AccountId;
use crate::time::Timestamp;
use sha2::{Digest, Sha256};
use std::fmt;

/// A merchant: the owner of every resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub id: AccountId,
    pub name: String,
    pub created_at: Timestamp,
}

/// Test mode sees only test objects, live mode only live objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Test,
    Live,
}

impl Mode {
    #[must_use]
    pub const fn is_live(self) -> bool {
        matches!(self, Self::Live)
    }

    #[must_use]
    pub const fn from_livemode(livemode: bool) -> Self {
        if livemode {
            Self::Live
        } else {
            Self::Test
        }
    }

    fn key_infix(self) -> &'static str {
        match self {
            Self::Test => "test",
            Self::Live => "live",
        }
    }
}

/// Secret keys are for a merchant's backend; public keys may only finish a payment from a browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyKind {
    Secret,
    Public,
}

impl KeyKind {
    fn prefix(self) -> &'static str {
        match self {
            Self::Secret => "sk",
            Self::Public => "pk",
        }
    }

    /// The stored name of the kind.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Secret => "secret",
            Self::Public => "public",
        }
    }

    /// The kind from its stored name.
    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "secret" => Some(Self::Secret),
            "public" => Some(Self::Public),
            _ => None,
        }
    }
}

/// Minimum length of a key's random part.
pub const KEY_RANDOM_MINIMUM: usize = 32;

/// An API key as presented by a caller. `Debug` and `Display` never show it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// A new key of `kind` and `mode` around a freshly drawn random part.
    #[must_use]
    pub fn issue(kind: KeyKind, mode: Mode, random: &str) -> Self {
        Self(format!("{}{random}", Self::prefix(kind, mode)))
    }

    /// What every key of `kind` and `mode` starts with: `sk_test_`.
    #[must_use]
    pub fn prefix(kind: KeyKind, mode: Mode) -> String {
        format!("{}_{}_", kind.prefix(), mode.key_infix())
    }

    /// What secret keys start with, in either mode: a text that holds one holds a secret.
    #[must_use]
    pub fn secret_prefixes() -> [String; 2] {
        [Self::prefix(KeyKind::Secret, Mode::Test), Self::prefix(KeyKind::Secret, Mode::Live)]
    }

    /// A key read from a request; `None` unless it has a known prefix and a long enough random part.
    #[must_use]
    pub fn parse(raw: &str) -> Option<Self> {
        let key = Self(raw.to_owned());
        let (_, _, random) = key.parts()?;
        (random.len() >= KEY_RANDOM_MINIMUM && random.bytes().all(|b| b.is_ascii_alphanumeric())).then_some(key)
    }

    fn parts(&self) -> Option<(KeyKind, Mode, &str)> {
        let (kind, rest) = match self.0.split_once('_')? {
            ("sk", rest) => (KeyKind::Secret, rest),
            ("pk", rest) => (KeyKind::Public, rest),
            _ => return None,
        };
        let (mode, random) = match rest.split_once('_')? {
            ("test", random) => (Mode::Test, random),
            ("live", random) => (Mode::Live, random),
            _ => return None,
        };
        Some((kind, mode, random))
    }

    /// Whether this is a secret or a public key.
    ///
    /// # Panics
    /// Never: a key is only built by `issue` or a successful `parse`.
    #[must_use]
    pub fn kind(&self) -> KeyKind {
        self.parts().map_or(KeyKind::Public, |(kind, _, _)| kind)
    }

    /// The mode the key works in.
    #[must_use]
    pub fn mode(&self) -> Mode {
        self.parts().map_or(Mode::Test, |(_, mode, _)| mode)
    }

    /// The hex SHA-256 digest under which the key is stored and looked up.
    #[must_use]
    pub fn digest(&self) -> String {
        hex(&Sha256::digest(self.0.as_bytes()))
    }

    /// The key itself, for showing it to its owner once at creation.
    #[must_use]
    pub fn reveal(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({}_{}_[redacted])", self.kind().prefix(), self.mode().key_infix())
    }
}

/// Lower-case hex of a byte string.
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut out, byte| {
        let _ = write!(out, "{byte:02x}");
        out
    })
}

/// The four keys of a new account.
#[derive(Debug, Clone)]
pub struct AccountKeys {
    pub secret_test: ApiKey,
    pub public_test: ApiKey,
    pub secret_live: ApiKey,
    pub public_live: ApiKey,
}

impl AccountKeys {
    /// Every key with its kind and mode.
    #[must_use]
    pub fn all(&self) -> [(&ApiKey, KeyKind, Mode); 4] {
        [
            (&self.secret_test, KeyKind::Secret, Mode::Test),
            (&self.public_test, KeyKind::Public, Mode::Test),
            (&self.secret_live, KeyKind::Secret, Mode::Live),
            (&self.public_live, KeyKind::Public, Mode::Live),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RANDOM: &str = "abcdefghijklmnopqrstuvwxyz0123456789ABCD";

    #[test]
    fn an_issued_key_carries_its_kind_and_mode_in_the_prefix() {
        let key = ApiKey::issue(KeyKind::Secret, Mode::Live, RANDOM);
        assert!(key.reveal().starts_with("sk_live_"));
        assert_eq!(key.kind(), KeyKind::Secret);
        assert_eq!(key.mode(), Mode::Live);
        let key = ApiKey::issue(KeyKind::Public, Mode::Test, RANDOM);
        assert!(key.reveal().starts_with("pk_test_"));
    }

    #[test]
    fn parsing_refuses_unknown_prefixes_and_short_keys() {
        assert!(ApiKey::parse(&format!("sk_test_{RANDOM}")).is_some());
        assert!(ApiKey::parse(&format!("rk_test_{RANDOM}")).is_none());
        assert!(ApiKey::parse(&format!("sk_prod_{RANDOM}")).is_none());
        assert!(ApiKey::parse("sk_test_short").is_none());
        assert!(ApiKey::parse(&format!("sk_test_{RANDOM}!")).is_none());
        assert!(ApiKey::parse("").is_none());
    }

    #[test]
    fn the_digest_is_hex_sha256_and_debug_hides_the_key() {
        let key = ApiKey::issue(KeyKind::Secret, Mode::Test, RANDOM);
        assert_eq!(key.digest().len(), 64);
        assert_ne!(key.digest(), ApiKey::issue(KeyKind::Secret, Mode::Live, RANDOM).digest());
        let shown = format!("{key:?}");
        assert!(!shown.contains(RANDOM), "{shown}");
    }

    #[test]
    fn hex_of_known_bytes() {
        assert_eq!(hex(&[0x00, 0xab, 0xff]), "00abff");
    }
}
