//! Setup intents: a customer's attempt to save a payment method for later payments, verified by the
//! processor without a charge. A setup intent saves at most one payment method.
//!
//! ```text
//! awaiting_payment_method ──attach──▶ succeeded                  (verified: the method is saved)
//!          │   ▲                 ├──▶ awaiting_payment_method    (declined: last_setup_error)
//!          │   │                 ├──▶ awaiting_next_action ──authenticate──▶ succeeded
//!          │   └─────────────────│───────────── failed or expired ◀──┘
//!          │                     └──▶ processing ──processor answers──▶ succeeded
//!          └──cancel (also from awaiting_next_action)──▶ canceled
//! ```

use crate::description::Description;
use crate::error::DomainError;
use crate::ids::{AccountId, ClientSecret, CustomerId, PaymentMethodId, SetupIntentId};
use crate::metadata::Metadata;
use crate::payment_intent::CardOptions;
use crate::payment_method::{PaymentMethod, PaymentMethodType, Usage, VerifiedCard};
use crate::pending_authorization::{
    self, AuthorizationOutcome, Authorizing, DueAction, PaymentError, Seal, Stage, Waiting,
};
use crate::redirect_url::RedirectUrl;
use crate::time::Timestamp;

const RESOURCE: &str = "setup_intent";

/// Where a setup intent stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetupIntentStatus {
    AwaitingPaymentMethod,
    AwaitingNextAction,
    Processing,
    Succeeded,
    Canceled,
}

impl SetupIntentStatus {
    pub const ALL: [Self; 5] =
        [Self::AwaitingPaymentMethod, Self::AwaitingNextAction, Self::Processing, Self::Succeeded, Self::Canceled];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AwaitingPaymentMethod => "awaiting_payment_method",
            Self::AwaitingNextAction => "awaiting_next_action",
            Self::Processing => "processing",
            Self::Succeeded => "succeeded",
            Self::Canceled => "canceled",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|status| status.as_str() == value)
    }

    /// What the service does on its own, once due, for an intent in this status; the one place
    /// that says which statuses have a background action.
    #[must_use]
    pub fn due_action(self) -> Option<DueAction> {
        match self {
            Self::AwaitingNextAction => Some(DueAction::ExpireRedirect),
            Self::Processing => Some(DueAction::FinishProcessing),
            Self::AwaitingPaymentMethod | Self::Succeeded | Self::Canceled => None,
        }
    }

    /// The statuses with a background action.
    pub fn with_due_actions() -> impl Iterator<Item = Self> {
        Self::ALL.into_iter().filter(|status| status.due_action().is_some())
    }
}

/// What a merchant asks for when creating a setup intent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSetupIntent {
    pub customer_id: CustomerId,
    pub payment_methods: Vec<PaymentMethodType>,
    pub usage: Usage,
    pub description: Option<Description>,
    pub metadata: Option<Metadata>,
    pub return_url: Option<RedirectUrl>,
    pub card_options: CardOptions,
}

/// A verified card waiting for the customer (redirect) or the processor (processing), with the id
/// its payment method will have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingSetup {
    pub payment_method_id: PaymentMethodId,
    pub verified: VerifiedCard,
}

/// What an attempt to save came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupResult {
    /// Verified: save this payment method to the customer.
    Saved(Box<PaymentMethod>),
    /// Declined, failed or abandoned authentication: nothing is saved.
    Failed(PaymentError),
    /// Waiting for the customer to authenticate.
    Redirected,
    /// Waiting for the processor.
    Processing,
}

/// A setup intent. Its fields change only through the transitions below.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupIntent {
    id: SetupIntentId,
    account_id: AccountId,
    livemode: bool,
    customer_id: CustomerId,
    payment_methods: Vec<PaymentMethodType>,
    usage: Usage,
    status: SetupIntentStatus,
    client_secret: ClientSecret,
    description: Option<Description>,
    metadata: Option<Metadata>,
    return_url: Option<RedirectUrl>,
    card_options: CardOptions,
    last_setup_error: Option<PaymentError>,
    /// The saved payment method, once the setup succeeded.
    payment_method_id: Option<PaymentMethodId>,
    pending: Option<PendingSetup>,
    /// The token of the latest test authorization page, kept after use (as on payment intents).
    redirect_token: Option<String>,
    redirect_url: Option<String>,
    action_due_at: Option<Timestamp>,
    created_at: Timestamp,
    updated_at: Timestamp,
    version: i64,
}

/// A setup intent as a repository stores it, to restore it with [`SetupIntent::restore`].
#[derive(Debug, Clone)]
pub struct StoredSetupIntent {
    pub id: SetupIntentId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub customer_id: CustomerId,
    pub payment_methods: Vec<PaymentMethodType>,
    pub usage: Usage,
    pub status: SetupIntentStatus,
    pub client_secret: ClientSecret,
    pub description: Option<Description>,
    pub metadata: Option<Metadata>,
    pub return_url: Option<RedirectUrl>,
    pub card_options: CardOptions,
    pub last_setup_error: Option<PaymentError>,
    pub payment_method_id: Option<PaymentMethodId>,
    pub pending: Option<PendingSetup>,
    pub redirect_token: Option<String>,
    pub redirect_url: Option<String>,
    pub action_due_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

impl SetupIntent {
    /// A new setup intent awaiting a payment method.
    #[must_use]
    pub fn create(
        id: SetupIntentId,
        account_id: AccountId,
        livemode: bool,
        client_secret: ClientSecret,
        new: NewSetupIntent,
        now: Timestamp,
    ) -> Self {
        let NewSetupIntent { customer_id, payment_methods, usage, description, metadata, return_url, card_options } =
            new;
        Self {
            id,
            account_id,
            livemode,
            customer_id,
            payment_methods,
            usage,
            status: SetupIntentStatus::AwaitingPaymentMethod,
            client_secret,
            description,
            metadata,
            return_url,
            card_options,
            last_setup_error: None,
            payment_method_id: None,
            pending: None,
            redirect_token: None,
            redirect_url: None,
            action_due_at: None,
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    #[must_use]
    pub fn restore(stored: StoredSetupIntent) -> Self {
        let StoredSetupIntent {
            id,
            account_id,
            livemode,
            customer_id,
            payment_methods,
            usage,
            status,
            client_secret,
            description,
            metadata,
            return_url,
            card_options,
            last_setup_error,
            payment_method_id,
            pending,
            redirect_token,
            redirect_url,
            action_due_at,
            created_at,
            updated_at,
            version,
        } = stored;
        Self {
            id,
            account_id,
            livemode,
            customer_id,
            payment_methods,
            usage,
            status,
            client_secret,
            description,
            metadata,
            return_url,
            card_options,
            last_setup_error,
            payment_method_id,
            pending,
            redirect_token,
            redirect_url,
            action_due_at,
            created_at,
            updated_at,
            version,
        }
    }

    /// Checks that a payment method of `method` may be attached now.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting a payment method; `parameter_invalid` for a method the
    /// setup intent does not allow.
    pub fn ensure_attachable(&self, method: PaymentMethodType) -> Result<(), DomainError> {
        pending_authorization::ensure_attachable(self, &self.payment_methods, method)
    }

    /// Records the processor's verification of a card. `redirect` is the test authorization page
    /// (token, URL) for a card that must authenticate; `return_url`, when given, replaces the
    /// intent's.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting a payment method.
    pub fn record_verification(
        &mut self,
        pending: PendingSetup,
        outcome: AuthorizationOutcome,
        redirect: Option<(String, String)>,
        return_url: Option<RedirectUrl>,
        now: Timestamp,
    ) -> Result<SetupResult, DomainError> {
        self.ensure_attachable(PaymentMethodType::Card)?;
        if return_url.is_some() {
            self.return_url = return_url;
        }
        Ok(self.record_answer(pending, outcome, redirect, now))
    }

    /// Cancels a setup intent that awaits a payment method or the customer's authentication.
    ///
    /// # Errors
    /// `resource_invalid_state` from any other status.
    pub fn cancel(&mut self, now: Timestamp) -> Result<(), DomainError> {
        match self.status {
            SetupIntentStatus::AwaitingPaymentMethod | SetupIntentStatus::AwaitingNextAction => {}
            SetupIntentStatus::Processing | SetupIntentStatus::Succeeded | SetupIntentStatus::Canceled => {
                return Err(self.refuse("cancel"))
            }
        }
        self.status = SetupIntentStatus::Canceled;
        self.pending = None;
        self.action_due_at = None;
        self.touch(now);
        Ok(())
    }

    /// The customer was deleted while a card waited for authentication or the processor: nothing
    /// will be saved, and the setup intent is canceled.
    ///
    /// # Errors
    /// `resource_invalid_state` once succeeded or canceled.
    pub fn abandon(&mut self, now: Timestamp) -> Result<(), DomainError> {
        match self.status {
            SetupIntentStatus::AwaitingPaymentMethod
            | SetupIntentStatus::AwaitingNextAction
            | SetupIntentStatus::Processing => {}
            SetupIntentStatus::Succeeded | SetupIntentStatus::Canceled => return Err(self.refuse("abandon")),
        }
        self.status = SetupIntentStatus::Canceled;
        self.pending = None;
        self.action_due_at = None;
        self.touch(now);
        Ok(())
    }

    fn touch(&mut self, now: Timestamp) {
        self.updated_at = now;
        self.version += 1;
    }

    #[must_use]
    pub fn id(&self) -> &SetupIntentId {
        &self.id
    }

    #[must_use]
    pub fn account_id(&self) -> &AccountId {
        &self.account_id
    }

    #[must_use]
    pub fn livemode(&self) -> bool {
        self.livemode
    }

    #[must_use]
    pub fn customer_id(&self) -> &CustomerId {
        &self.customer_id
    }

    #[must_use]
    pub fn payment_methods(&self) -> &[PaymentMethodType] {
        &self.payment_methods
    }

    #[must_use]
    pub fn usage(&self) -> Usage {
        self.usage
    }

    #[must_use]
    pub fn status(&self) -> SetupIntentStatus {
        self.status
    }

    #[must_use]
    pub fn client_secret(&self) -> &ClientSecret {
        &self.client_secret
    }

    #[must_use]
    pub fn description(&self) -> Option<&Description> {
        self.description.as_ref()
    }

    #[must_use]
    pub fn metadata(&self) -> Option<&Metadata> {
        self.metadata.as_ref()
    }

    #[must_use]
    pub fn return_url(&self) -> Option<&str> {
        self.return_url.as_ref().map(RedirectUrl::as_str)
    }

    #[must_use]
    pub fn card_options(&self) -> &CardOptions {
        &self.card_options
    }

    #[must_use]
    pub fn last_setup_error(&self) -> Option<&PaymentError> {
        self.last_setup_error.as_ref()
    }

    #[must_use]
    pub fn payment_method_id(&self) -> Option<&PaymentMethodId> {
        self.payment_method_id.as_ref()
    }

    #[must_use]
    pub fn pending(&self) -> Option<&PendingSetup> {
        self.pending.as_ref()
    }

    #[must_use]
    pub fn redirect_token(&self) -> Option<&str> {
        self.redirect_token.as_deref()
    }

    /// The test authorization page, while the customer must authenticate.
    #[must_use]
    pub fn next_action_url(&self) -> Option<&str> {
        match self.status {
            SetupIntentStatus::AwaitingNextAction => self.redirect_url.as_deref(),
            _ => None,
        }
    }

    #[must_use]
    pub fn redirect_url(&self) -> Option<&str> {
        self.redirect_url.as_deref()
    }

    #[must_use]
    pub fn action_due_at(&self) -> Option<Timestamp> {
        self.action_due_at
    }

    #[must_use]
    pub fn created_at(&self) -> Timestamp {
        self.created_at
    }

    #[must_use]
    pub fn updated_at(&self) -> Timestamp {
        self.updated_at
    }

    #[must_use]
    pub fn version(&self) -> i64 {
        self.version
    }
}

impl Authorizing for SetupIntent {
    type Pending = PendingSetup;
    type Result = SetupResult;
    const SUBJECT: &'static str = "card";
    const RESOURCE: &'static str = RESOURCE;
    const PURPOSE: &'static str = "setup";

    fn stage(&self) -> Stage {
        match self.status {
            SetupIntentStatus::AwaitingPaymentMethod => Stage::AwaitingMethod,
            SetupIntentStatus::AwaitingNextAction => Stage::AwaitingRedirect,
            SetupIntentStatus::Processing => Stage::Processing,
            SetupIntentStatus::Succeeded | SetupIntentStatus::Canceled => Stage::Beyond,
        }
    }

    fn action_due_at(&self) -> Option<Timestamp> {
        self.action_due_at
    }

    fn refuse(&self, action: &'static str) -> DomainError {
        DomainError::InvalidState { resource: RESOURCE, status: self.status.as_str(), action }
    }

    fn wait(&mut self, pending: PendingSetup, waiting: Waiting, due_at: Timestamp, _: Seal) -> SetupResult {
        self.pending = Some(pending);
        self.action_due_at = Some(due_at);
        match waiting {
            Waiting::Redirect { token, url } => {
                self.status = SetupIntentStatus::AwaitingNextAction;
                self.redirect_token = Some(token);
                self.redirect_url = Some(url);
                SetupResult::Redirected
            }
            Waiting::Processor => {
                self.status = SetupIntentStatus::Processing;
                SetupResult::Processing
            }
        }
    }

    fn take_pending(&mut self, _: Seal) -> Option<PendingSetup> {
        self.action_due_at = None;
        self.pending.take()
    }

    fn approve(&mut self, pending: PendingSetup, now: Timestamp, _: Seal) -> SetupResult {
        self.status = SetupIntentStatus::Succeeded;
        self.pending = None;
        self.action_due_at = None;
        self.last_setup_error = None;
        self.payment_method_id = Some(pending.payment_method_id.clone());
        SetupResult::Saved(Box::new(PaymentMethod {
            id: pending.payment_method_id,
            account_id: self.account_id.clone(),
            livemode: self.livemode,
            customer_id: self.customer_id.clone(),
            verified: pending.verified,
            usage: self.usage,
            created_at: now,
            updated_at: now,
        }))
    }

    fn fail(&mut self, _: PendingSetup, error: PaymentError, _: Seal) -> SetupResult {
        self.status = SetupIntentStatus::AwaitingPaymentMethod;
        self.pending = None;
        self.action_due_at = None;
        self.last_setup_error = Some(error.clone());
        SetupResult::Failed(error)
    }

    fn touch(&mut self, now: Timestamp, _: Seal) {
        SetupIntent::touch(self, now);
    }

    fn last_error(&self) -> Option<&PaymentError> {
        self.last_setup_error.as_ref()
    }

    fn is_canceled(&self) -> bool {
        self.status == SetupIntentStatus::Canceled
    }
}
