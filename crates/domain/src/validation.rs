//! Validation errors of request parameters, in the contract's vocabulary.

use std::fmt;

/// The contract's code for a bad parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    ParameterRequired,
    ParameterInvalid,
    ParameterTypeInvalid,
    ParameterBelowMinimum,
    ParameterAboveMaximum,
    /// The parameter names an object that does not exist for the account and mode (a customer,
    /// a payment, a list cursor): 400 naming the parameter, where an object of the path is a 404.
    ResourceNotFound,
}

impl ErrorCode {
    /// The code as it appears in an error body.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ParameterRequired => "parameter_required",
            Self::ParameterInvalid => "parameter_invalid",
            Self::ParameterTypeInvalid => "parameter_type_invalid",
            Self::ParameterBelowMinimum => "parameter_below_minimum",
            Self::ParameterAboveMaximum => "parameter_above_maximum",
            Self::ResourceNotFound => "resource_not_found",
        }
    }
}

/// One parameter at fault: which one, why, and a sentence for a human.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub parameter: String,
    pub code: ErrorCode,
    pub detail: String,
}

impl FieldError {
    #[must_use]
    pub fn new(parameter: impl Into<String>, code: ErrorCode, detail: impl Into<String>) -> Self {
        Self { parameter: parameter.into(), code, detail: detail.into() }
    }

    #[must_use]
    pub fn invalid(parameter: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(parameter, ErrorCode::ParameterInvalid, detail)
    }

    /// The object `parameter` names does not exist for the account and mode.
    #[must_use]
    pub fn missing(parameter: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(parameter, ErrorCode::ResourceNotFound, detail)
    }

    #[must_use]
    pub fn required(parameter: impl Into<String>) -> Self {
        let parameter = parameter.into();
        let detail = format!("The parameter {parameter} is required.");
        Self::new(parameter, ErrorCode::ParameterRequired, detail)
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.parameter, self.code.as_str(), self.detail)
    }
}

impl std::error::Error for FieldError {}

/// The reason a value type refused a value, before it is tied to a parameter name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub code: ErrorCode,
    pub detail: String,
}

impl Invalid {
    #[must_use]
    pub fn new(code: ErrorCode, detail: impl Into<String>) -> Self {
        Self { code, detail: detail.into() }
    }

    #[must_use]
    pub fn value(detail: impl Into<String>) -> Self {
        Self::new(ErrorCode::ParameterInvalid, detail)
    }

    /// No object of the account and mode has the id given (see [`FieldError::missing`]).
    #[must_use]
    pub fn missing(detail: impl Into<String>) -> Self {
        Self::new(ErrorCode::ResourceNotFound, detail)
    }

    /// Names the parameter that carried the refused value.
    #[must_use]
    pub fn at(self, parameter: impl Into<String>) -> FieldError {
        FieldError::new(parameter, self.code, self.detail)
    }
}
