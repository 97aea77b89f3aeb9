//! JSON values stored in TEXT columns, and stored values that no longer convert.

use super::error::corrupt;
use payments_application::ports::StoreError;
use payments_domain::description::Description;
use payments_domain::validation::Invalid;

pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Other(e.into()))
}

pub(crate) fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| corrupt("JSON column", e))
}

/// Maps a value type's refusal of a stored value to a storage fault naming `what`.
pub(crate) fn invalid(what: &'static str) -> impl Fn(Invalid) -> StoreError {
    move |refused| corrupt(what, refused.detail)
}

/// Parses a stored id of type `T` or reports it as corrupt.
pub(crate) fn parse_id<T>(what: &'static str, value: &str, parse: impl Fn(&str) -> Option<T>) -> Result<T, StoreError> {
    parse(value).ok_or_else(|| corrupt(what, value))
}

/// Stored free text as a [`Description`], or a corrupt-row error.
pub(crate) fn description(text: Option<String>) -> Result<Option<Description>, StoreError> {
    text.map(Description::new).transpose().map_err(invalid("description"))
}
