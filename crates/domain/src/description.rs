//! Free text a merchant attaches to a resource: descriptions, and refund remarks.

use crate::limits::DESCRIPTION_LENGTH;
use crate::validation::Invalid;
use std::fmt;

/// Text of at most 1,000 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description(String);

impl Description {
    pub const MAX_LENGTH: usize = DESCRIPTION_LENGTH;

    /// # Errors
    /// `parameter_invalid` over 1,000 characters.
    pub fn new(text: String) -> Result<Self, Invalid> {
        if text.chars().count() > Self::MAX_LENGTH {
            return Err(Invalid::value(format!("Must be at most {} characters long.", Self::MAX_LENGTH)));
        }
        Ok(Self(text))
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Description {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::ErrorCode;

    #[test]
    fn a_thousand_characters_are_allowed_and_no_more() {
        assert_eq!(Description::new("ñ".repeat(1_000)).map(|d| d.as_str().chars().count()), Ok(1_000));
        assert_eq!(Description::new("x".repeat(1_001)).unwrap_err().code, ErrorCode::ParameterInvalid);
    }
}
