//! A payment processor with scripted answers.

use crate::ports::connector::{ConnectorDirectory, PaymentConnector};
use crate::ports::{
    Authorization, AuthorizationRequest, PaymentMethodInput, PaymentProcessor, ProcessorError, Verification,
    VerificationRequest,
};
use crate::scope::Scope;
use payments_domain::payment_intent::AuthorizationOutcome;
use payments_domain::payment_method::{Funding, QrphSummary};
use std::sync::{Arc, Mutex, PoisonError};

/// No account has a live connector.
#[derive(Debug, Default)]
pub struct NoConnectors;

impl ConnectorDirectory for NoConnectors {
    fn connector(&self, _scope: &Scope) -> Result<Option<Arc<dyn PaymentConnector>>, crate::error::ApplicationError> {
        Ok(None)
    }
}

/// A processor that answers every authorization with a scripted outcome.
#[derive(Debug)]
pub struct ScriptedProcessor {
    outcome: Mutex<AuthorizationOutcome>,
}

impl ScriptedProcessor {
    #[must_use]
    pub fn approving() -> Self {
        Self { outcome: Mutex::new(AuthorizationOutcome::Approved) }
    }

    fn scripted(&self) -> AuthorizationOutcome {
        self.outcome.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Answers `outcome` from now on.
    pub fn answer(&self, outcome: AuthorizationOutcome) {
        *self.outcome.lock().unwrap_or_else(PoisonError::into_inner) = outcome;
    }
}

impl PaymentProcessor for ScriptedProcessor {
    fn authorize(&self, request: &AuthorizationRequest<'_>) -> Result<Authorization, ProcessorError> {
        let card = match request.method {
            PaymentMethodInput::Card(card) => Some(card.summary(Funding::Credit)),
            PaymentMethodInput::Saved(saved) => Some(saved.card.clone()),
            PaymentMethodInput::Redirect(_) | PaymentMethodInput::ProcessorToken(_) => None,
        };
        let kept = matches!(request.method, PaymentMethodInput::Card(_)) && request.keep_card;
        Ok(Authorization { outcome: self.scripted(), card, processor_reference: kept.then(|| "scripted".to_owned()) })
    }

    fn verify(&self, request: &VerificationRequest<'_>) -> Result<Verification, ProcessorError> {
        Ok(Verification {
            outcome: self.scripted(),
            card: request.card.summary(Funding::Credit),
            processor_reference: "scripted".to_owned(),
        })
    }

    fn qrph_payer(&self) -> Option<QrphSummary> {
        None
    }
}
