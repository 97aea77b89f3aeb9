//! The text on a customer's bank statement.

use crate::validation::Invalid;

/// At most 22 characters, not blank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementDescriptor(String);

impl StatementDescriptor {
    pub const MAX_LENGTH: usize = 22;

    /// # Errors
    /// `parameter_invalid` for a blank descriptor or one over 22 characters.
    pub fn new(text: String) -> Result<Self, Invalid> {
        if text.trim().is_empty() || text.chars().count() > Self::MAX_LENGTH {
            return Err(Invalid::value(format!(
                "The statement descriptor must be 1 to {} characters long.",
                Self::MAX_LENGTH
            )));
        }
        Ok(Self(text))
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_are_at_most_22_characters() {
        assert!(StatementDescriptor::new("x".repeat(22)).is_ok());
        assert_eq!(
            StatementDescriptor::new("x".repeat(23)).unwrap_err().detail,
            "The statement descriptor must be 1 to 22 characters long."
        );
        assert_eq!(
            StatementDescriptor::new(" ".into()).unwrap_err().detail,
            "The statement descriptor must be 1 to 22 characters long."
        );
    }
}
