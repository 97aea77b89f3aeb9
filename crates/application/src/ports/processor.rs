//! The payment processor port: authorizes a payment method. The test-mode simulator is one adapter; a
//! real acquirer would be another.

use payments_domain::money::Amount;
use payments_domain::payment_intent::{AuthorizationOutcome, CardOptions};
use payments_domain::payment_method::{CardInput, CardSummary, PaymentMethodType, QrphSummary, VerifiedCard};
use payments_domain::time::Timestamp;

/// What pays: card data as entered (never stored), a card saved earlier, or a redirect-based method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaymentMethodInput {
    Card(CardInput),
    /// A saved card: what is shown of it and the processor's reference, without a CVC.
    Saved(Box<VerifiedCard>),
    Redirect(PaymentMethodType),
    /// A live processor's token for a card the customer entered in the browser, sent straight to
    /// the processor: in live mode, card numbers never reach this service.
    ProcessorToken(String),
}

impl PaymentMethodInput {
    #[must_use]
    pub fn method(&self) -> PaymentMethodType {
        match self {
            Self::Card(_) | Self::Saved(_) | Self::ProcessorToken(_) => PaymentMethodType::Card,
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
    /// The customer asked to save the card entered: answer a reference to charge it again.
    pub keep_card: bool,
    pub now: Timestamp,
}

/// The processor's answer, with what it learned of the card, and its reference to charge a card
/// entered now again when the request asked to keep it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorization {
    pub outcome: AuthorizationOutcome,
    pub card: Option<CardSummary>,
    pub processor_reference: Option<String>,
}

/// A card to verify for saving, without a charge.
#[derive(Debug)]
pub struct VerificationRequest<'a> {
    pub card: &'a CardInput,
    pub card_options: &'a CardOptions,
    pub now: Timestamp,
}

/// The processor's verification: its outcome, what it learned of the card, and its reference to
/// charge the card again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    pub outcome: AuthorizationOutcome,
    pub card: CardSummary,
    pub processor_reference: String,
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

    /// Verifies a card for saving, without charging it: the outcome its authorizations would have.
    ///
    /// # Errors
    /// [`ProcessorError::Unavailable`] when the processor cannot be reached.
    fn verify(&self, request: &VerificationRequest<'_>) -> Result<Verification, ProcessorError>;

    /// The payer's account after a QR Ph payment was authorized on the redirect page.
    fn qrph_payer(&self) -> Option<QrphSummary>;
}
