//! Money: amounts in centavos within the service's bounds, and the one supported currency.

use crate::validation::{ErrorCode, Invalid};
use serde::{Deserialize, Serialize};
use std::fmt;

/// An amount in centavos within the spec's bounds (2000..=5999999999).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Amount(i64);

impl Amount {
    pub const MINIMUM: i64 = 2_000;
    pub const MAXIMUM: i64 = 5_999_999_999;

    /// # Errors
    /// `parameter_below_minimum` / `parameter_above_maximum` outside the bounds.
    pub fn new(centavos: i64) -> Result<Self, Invalid> {
        if centavos < Self::MINIMUM {
            return Err(Invalid::new(
                ErrorCode::ParameterBelowMinimum,
                format!("The amount must be at least {}.", Self::MINIMUM),
            ));
        }
        if centavos > Self::MAXIMUM {
            return Err(Invalid::new(
                ErrorCode::ParameterAboveMaximum,
                format!("The amount must be at most {}.", Self::MAXIMUM),
            ));
        }
        Ok(Self(centavos))
    }

    #[must_use]
    pub const fn centavos(self) -> i64 {
        self.0
    }
}

/// A supported currency. The spec supports only Philippine pesos.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Currency {
    #[serde(rename = "PHP")]
    Php,
}

impl Currency {
    pub const ALL: [Self; 1] = [Self::Php];

    /// # Errors
    /// `parameter_invalid` for anything but `PHP`.
    pub fn parse(code: &str) -> Result<Self, Invalid> {
        match code {
            "PHP" => Ok(Self::Php),
            _ => Err(Invalid::value(format!("The currency {code} is not supported; use PHP."))),
        }
    }

    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            Self::Php => "PHP",
        }
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_bounded_by_2000_and_5999999999() {
        assert_eq!(Amount::new(1_999).unwrap_err().code, ErrorCode::ParameterBelowMinimum);
        assert_eq!(Amount::new(2_000).map(Amount::centavos), Ok(2_000));
        assert_eq!(Amount::new(5_999_999_999).map(Amount::centavos), Ok(5_999_999_999));
        assert_eq!(Amount::new(6_000_000_000).unwrap_err().code, ErrorCode::ParameterAboveMaximum);
        assert_eq!(Amount::new(-5).unwrap_err().code, ErrorCode::ParameterBelowMinimum);
    }

    #[test]
    fn only_php_is_a_currency() {
        assert_eq!(Currency::parse("PHP"), Ok(Currency::Php));
        assert_eq!(Currency::parse("USD").unwrap_err().code, ErrorCode::ParameterInvalid);
        assert_eq!(Currency::parse("php").unwrap_err().detail, "The currency php is not supported; use PHP.");
    }
}
