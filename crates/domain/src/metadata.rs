//! Metadata: a merchant's own key-value pairs on a resource.

use crate::validation::Invalid;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Key-value pairs with string values, within limits that keep rows and events small.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct Metadata(BTreeMap<String, String>);

impl Metadata {
    pub const MAX_KEYS: usize = 50;
    pub const MAX_KEY_LENGTH: usize = 40;
    pub const MAX_VALUE_LENGTH: usize = 500;

    /// # Errors
    /// `parameter_invalid` past 50 keys, for a key [`Metadata::check_key`] refuses, or a value over
    /// 500 characters.
    pub fn new(pairs: BTreeMap<String, String>) -> Result<Self, Invalid> {
        if pairs.len() > Self::MAX_KEYS {
            return Err(Invalid::value(format!("Metadata can have at most {} keys.", Self::MAX_KEYS)));
        }
        for (key, value) in &pairs {
            Self::check_key(key)?;
            if value.chars().count() > Self::MAX_VALUE_LENGTH {
                return Err(Invalid::value(format!(
                    "The metadata value of {key} is longer than {} characters.",
                    Self::MAX_VALUE_LENGTH
                )));
            }
        }
        Ok(Self(pairs))
    }

    /// A key is 1 to 40 characters without square brackets, which a form's `metadata[key]` could
    /// not carry (Stripe's rule too).
    ///
    /// # Errors
    /// `parameter_invalid` naming the rule.
    pub fn check_key(key: &str) -> Result<(), Invalid> {
        if key.is_empty() || key.chars().count() > Self::MAX_KEY_LENGTH || key.contains(['[', ']']) {
            return Err(Invalid::value(format!(
                "Metadata keys must be 1 to {} characters long, without square brackets.",
                Self::MAX_KEY_LENGTH
            )));
        }
        Ok(())
    }

    #[must_use]
    pub fn pairs(&self) -> &BTreeMap<String, String> {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(items: &[(&str, &str)]) -> BTreeMap<String, String> {
        items.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn metadata_within_limits_is_kept() {
        let metadata = Metadata::new(pairs(&[("order", "42")])).unwrap();
        assert_eq!(metadata.pairs()["order"], "42");
    }

    #[test]
    fn metadata_keys_with_square_brackets_are_refused() {
        for key in ["a[b", "a]", "[0]"] {
            assert!(Metadata::new(pairs(&[(key, "x")])).is_err(), "{key}");
        }
    }

    #[test]
    fn metadata_beyond_limits_is_refused() {
        assert_eq!(
            Metadata::new(pairs(&[("", "x")])).unwrap_err().detail,
            "Metadata keys must be 1 to 40 characters long, without square brackets."
        );
        assert_eq!(
            Metadata::new(pairs(&[(&"k".repeat(41), "x")])).unwrap_err().detail,
            "Metadata keys must be 1 to 40 characters long, without square brackets."
        );
        assert_eq!(
            Metadata::new(pairs(&[("k", &"v".repeat(501))])).unwrap_err().detail,
            "The metadata value of k is longer than 500 characters."
        );
        let many = (0..51).map(|i| (format!("k{i}"), String::new())).collect();
        assert_eq!(Metadata::new(many).unwrap_err().detail, "Metadata can have at most 50 keys.");
    }
}
