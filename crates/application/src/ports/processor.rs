//! The payment processor port: authorizes a payment method. The test-mode simulator is one adapter; a
//! real acquirer would be another.

use payments_domain::money::Amount;
use payments_domain::payment_intent::{AuthorizationOutcome, CardOptions};
use payments_domain::payment_method::{CardInput, CardSummary, PaymentMethodType, QrphSummary};
use payments_domain::time::Timestamp;

/// What pays: card data as entered (never stored), or a redirect-based method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaymentMethodInput {
    Card(CardInput),
    Redirect(PaymentMethodType),
}

impl PaymentMethodInput {
    #[must_use]
    pub fn method(&self) -> PaymentMethodType {
        match self {
            Self::Card(_) => PaymentMethodType::Card,
            Self::Redirect(method) => *method,
        }
    }
}

/// One authorization request.
#[derive(Debug)]
pub struct AuthorizationRequest<'a> {
    pub amount: Amount,
    pub method: &'a PaymentMethodInput,
    pub card_options: &'a CardOptions,
    pub now: Timestamp,
}

/// The processor's answer, with what it learned of the card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorization {
    pub outcome: AuthorizationOutcome,
    pub card: Option<CardSummary>,
}

/// The processor could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum ProcessorError {
    #[error("the payment processor is unavailable: {0}")]
    Unavailable(String),
}

/// Authorizes payment methods.
pub trait PaymentProcessor: Send + Sync {
    /// # Errors
    /// [`ProcessorError::Unavailable`] when the processor cannot be reached.
    fn authorize(&self, request: &AuthorizationRequest<'_>) -> Result<Authorization, ProcessorError>;

    /// The payer's account after a QR Ph payment was authorized on the redirect page.
    fn qrph_payer(&self) -> Option<QrphSummary>;
}
