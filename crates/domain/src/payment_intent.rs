//! Payment intents: one customer's payment, its attempts, and the state machine that moves it.
//!
//! ```text
//! awaiting_payment_method ──attach──► succeeded                 (approved, automatic capture)
//!        ▲   │                    ├─► awaiting_capture ──capture──► succeeded
//!        │   │                    │          └──cancel / hold expiry──► canceled
//!        │   │                    ├─► awaiting_next_action ──authenticated──► (as approved)
//!        │   │                    │          └──failed / expired──► awaiting_payment_method
//!        │   │                    ├─► processing ──finished──► (as approved)
//!        └───┴──declined──────────┘
//! awaiting_payment_method ──cancel──► canceled
//! ```
//!
//! Every transition is a method that checks the current status and refuses with
//! [`DomainError::InvalidState`] otherwise.

use crate::description::Description;
use crate::error::DomainError;
use crate::ids::{AccountId, ClientSecret, CustomerId, PaymentId, PaymentIntentId, PaymentMethodId};
use crate::metadata::Metadata;
use crate::money::{Amount, Currency};
use crate::page::PageSession;
use crate::payment_method::{
    CardSummary, Funding, PaymentBilling, PaymentMethod, PaymentMethodRecord, PaymentMethodType, Usage, VerifiedCard,
};
pub use crate::pending_authorization::{self, AuthorizationOutcome, PaymentError, REDIRECT_SECONDS};
use crate::pending_authorization::{Authorizing, DueAction, Seal, Stage, Waiting};
use crate::redirect_url::RedirectUrl;
use crate::statement_descriptor::StatementDescriptor;
use crate::time::Timestamp;
use crate::validation::{ErrorCode, FieldError};
use serde::{Deserialize, Serialize};

const RESOURCE: &str = "payment_intent";
/// How long an authorization hold lasts before it is released.
pub const HOLD_SECONDS: i64 = 7 * 24 * 60 * 60;

/// Where a payment intent stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PaymentIntentStatus {
    AwaitingPaymentMethod,
    AwaitingNextAction,
    Processing,
    AwaitingCapture,
    Succeeded,
    Canceled,
}

impl PaymentIntentStatus {
    pub const ALL: [Self; 6] = [
        Self::AwaitingPaymentMethod,
        Self::AwaitingNextAction,
        Self::Processing,
        Self::AwaitingCapture,
        Self::Succeeded,
        Self::Canceled,
    ];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AwaitingPaymentMethod => "awaiting_payment_method",
            Self::AwaitingNextAction => "awaiting_next_action",
            Self::Processing => "processing",
            Self::AwaitingCapture => "awaiting_capture",
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
            Self::AwaitingCapture => Some(DueAction::ReleaseHold),
            Self::AwaitingPaymentMethod | Self::Succeeded | Self::Canceled => None,
        }
    }

    /// The statuses with a background action.
    pub fn with_due_actions() -> impl Iterator<Item = Self> {
        Self::ALL.into_iter().filter(|status| status.due_action().is_some())
    }
}

/// When a card payment is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum CaptureType {
    /// At authorization.
    Automatic,
    /// Held at authorization, taken by a later capture (hold-then-capture).
    Manual,
}

impl CaptureType {
    pub const ALL: [Self; 2] = [Self::Automatic, Self::Manual];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Automatic => "automatic",
            Self::Manual => "manual",
        }
    }
}

/// Card rules of an intent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CardOptions {
    pub capture_type: CaptureType,
    /// Card number prefixes allowed; empty allows every card.
    pub allowed_bins: Vec<String>,
    /// Fundings allowed; empty allows every funding.
    pub allowed_funding: Vec<Funding>,
}

impl CardOptions {
    /// Whether a card of `bin` (its first digits) and `funding` may pay.
    #[must_use]
    pub fn allows(&self, bin: &str, funding: Funding) -> bool {
        let bin_allowed =
            self.allowed_bins.is_empty() || self.allowed_bins.iter().any(|allowed| bin.starts_with(allowed.as_str()));
        let funding_allowed = self.allowed_funding.is_empty() || self.allowed_funding.contains(&funding);
        bin_allowed && funding_allowed
    }
}

impl Default for CardOptions {
    fn default() -> Self {
        Self { capture_type: CaptureType::Automatic, allowed_bins: Vec::new(), allowed_funding: Vec::new() }
    }
}

/// The attempt being made: what pays, and how it was attached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    pub payment_method_id: String,
    pub payment_method: PaymentMethodRecord,
    pub billing: Option<PaymentBilling>,
    /// The card entered now is saved to this customer when the attempt is approved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub save_for: Option<CardToSave>,
    /// The payment an attempt sent to a live processor will be, reserved when the attempt was
    /// claimed: the processor's operations are keyed by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_id: Option<String>,
}

/// Who a card paid with is saved for, and the processor's reference to charge it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardToSave {
    pub customer_id: String,
    pub processor_reference: String,
}

impl Attempt {
    /// The payment method an approved attempt saves, when the customer asked to save the card. The
    /// customer saved it while present and consented to their own later payments only, so it is
    /// saved for `on_session` use; a merchant who charges without the customer saves a card with
    /// an `off_session` setup intent.
    #[must_use]
    pub fn saved_method(&self, account_id: &AccountId, livemode: bool, now: Timestamp) -> Option<PaymentMethod> {
        let save = self.save_for.as_ref()?;
        Some(PaymentMethod {
            id: PaymentMethodId::parse(&self.payment_method_id)?,
            account_id: account_id.clone(),
            livemode,
            customer_id: CustomerId::parse(&save.customer_id)?,
            verified: VerifiedCard {
                card: self.payment_method.card.clone()?,
                billing: self.billing.clone(),
                processor_reference: save.processor_reference.clone(),
            },
            usage: Usage::OnSession,
            created_at: now,
            updated_at: now,
        })
    }
}

/// An attempt waiting for the customer (redirect) or the processor (processing).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingAttempt {
    pub attempt: Attempt,
    /// The secret token of the redirect page, while one is pending.
    pub redirect_token: Option<String>,
    pub redirect_url: Option<String>,
}

/// What an attempt came to, for the caller to record a payment and events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttemptResult {
    /// Money taken: record a paid payment of the whole amount.
    Succeeded(Attempt),
    /// Authorized and held for a later capture.
    Held(Attempt),
    /// Failed: record a failed payment.
    Failed(Attempt, PaymentError),
    /// Waiting for the customer to authenticate.
    Redirected,
    /// Waiting for the processor.
    Processing,
}

/// A payment intent. Its fields change only through the transitions below.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentIntent {
    id: PaymentIntentId,
    account_id: AccountId,
    livemode: bool,
    amount: Amount,
    amount_received: i64,
    amount_capturable: i64,
    currency: Currency,
    payment_methods: Vec<PaymentMethodType>,
    statement_descriptor: Option<StatementDescriptor>,
    status: PaymentIntentStatus,
    client_secret: ClientSecret,
    description: Option<Description>,
    last_payment_error: Option<PaymentError>,
    latest_payment_id: Option<PaymentId>,
    metadata: Option<Metadata>,
    return_url: Option<RedirectUrl>,
    payment_method_id: Option<String>,
    card_options: CardOptions,
    capture_before_at: Option<Timestamp>,
    customer_id: Option<CustomerId>,
    /// The attempt waiting for the customer or the processor.
    pending: Option<PendingAttempt>,
    /// The token of the latest test authorization page. Kept after the page is used, so a repeated
    /// submission of the page finds the intent and shows how it ended; replaced by the next redirect.
    redirect_token: Option<String>,
    /// When a background job must act: redirect expiry, processing end, or hold expiry.
    action_due_at: Option<Timestamp>,
    /// What the intent was created for, when not the merchant's own API call.
    owner: Option<IntentOwner>,
    /// The order a customer placed on a page, which the intent pays (its payments carry it).
    page_session: Option<PageSession>,
    created_at: Timestamp,
    updated_at: Timestamp,
    version: i64,
}

/// A payment intent as a repository stores it, to restore it with [`PaymentIntent::restore`].
#[derive(Debug, Clone)]
pub struct StoredPaymentIntent {
    pub id: PaymentIntentId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub amount: Amount,
    pub amount_received: i64,
    pub amount_capturable: i64,
    pub currency: Currency,
    pub payment_methods: Vec<PaymentMethodType>,
    pub statement_descriptor: Option<StatementDescriptor>,
    pub status: PaymentIntentStatus,
    pub client_secret: ClientSecret,
    pub description: Option<Description>,
    pub last_payment_error: Option<PaymentError>,
    pub latest_payment_id: Option<PaymentId>,
    pub metadata: Option<Metadata>,
    pub return_url: Option<RedirectUrl>,
    pub payment_method_id: Option<String>,
    pub card_options: CardOptions,
    pub capture_before_at: Option<Timestamp>,
    pub customer_id: Option<CustomerId>,
    pub pending: Option<PendingAttempt>,
    pub redirect_token: Option<String>,
    pub action_due_at: Option<Timestamp>,
    pub owner: Option<IntentOwner>,
    pub page_session: Option<PageSession>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

impl PaymentIntent {
    /// A payment intent read back from storage.
    #[must_use]
    pub fn restore(stored: StoredPaymentIntent) -> Self {
        let StoredPaymentIntent {
            id,
            account_id,
            livemode,
            amount,
            amount_received,
            amount_capturable,
            currency,
            payment_methods,
            statement_descriptor,
            status,
            client_secret,
            description,
            last_payment_error,
            latest_payment_id,
            metadata,
            return_url,
            payment_method_id,
            card_options,
            capture_before_at,
            customer_id,
            pending,
            redirect_token,
            action_due_at,
            owner,
            page_session,
            created_at,
            updated_at,
            version,
        } = stored;
        Self {
            id,
            account_id,
            livemode,
            amount,
            amount_received,
            amount_capturable,
            currency,
            payment_methods,
            statement_descriptor,
            status,
            client_secret,
            description,
            last_payment_error,
            latest_payment_id,
            metadata,
            return_url,
            payment_method_id,
            card_options,
            capture_before_at,
            customer_id,
            pending,
            redirect_token,
            action_due_at,
            owner,
            page_session,
            created_at,
            updated_at,
            version,
        }
    }

    #[must_use]
    pub fn id(&self) -> &PaymentIntentId {
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
    pub fn amount(&self) -> Amount {
        self.amount
    }

    #[must_use]
    pub fn amount_received(&self) -> i64 {
        self.amount_received
    }

    #[must_use]
    pub fn amount_capturable(&self) -> i64 {
        self.amount_capturable
    }

    #[must_use]
    pub fn currency(&self) -> Currency {
        self.currency
    }

    #[must_use]
    pub fn payment_methods(&self) -> &[PaymentMethodType] {
        &self.payment_methods
    }

    #[must_use]
    pub fn statement_descriptor(&self) -> Option<&StatementDescriptor> {
        self.statement_descriptor.as_ref()
    }

    #[must_use]
    pub fn status(&self) -> PaymentIntentStatus {
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
    pub fn last_payment_error(&self) -> Option<&PaymentError> {
        self.last_payment_error.as_ref()
    }

    #[must_use]
    pub fn latest_payment_id(&self) -> Option<&PaymentId> {
        self.latest_payment_id.as_ref()
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
    pub fn payment_method_id(&self) -> Option<&str> {
        self.payment_method_id.as_deref()
    }

    #[must_use]
    pub fn card_options(&self) -> &CardOptions {
        &self.card_options
    }

    #[must_use]
    pub fn capture_before_at(&self) -> Option<Timestamp> {
        self.capture_before_at
    }

    #[must_use]
    pub fn customer_id(&self) -> Option<&CustomerId> {
        self.customer_id.as_ref()
    }

    /// The attempt waiting for the customer or the processor.
    #[must_use]
    pub fn pending(&self) -> Option<&PendingAttempt> {
        self.pending.as_ref()
    }

    /// The token of the latest test authorization page. Kept after the page is used, so a repeated
    /// submission of the page finds the intent and shows how it ended; replaced by the next redirect.
    #[must_use]
    pub fn redirect_token(&self) -> Option<&str> {
        self.redirect_token.as_deref()
    }

    /// When a background job must act: redirect expiry, processing end, or hold expiry.
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

/// What an intent was created for, which completes when the intent is paid and alone may cancel it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntentOwner {
    CheckoutSession,
    BillingStatement,
    /// A customer's order on a page (PayRex Pages), which a page makes for each order.
    Page,
}

impl IntentOwner {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::CheckoutSession => "checkout_session",
            Self::BillingStatement => "billing_statement",
            Self::Page => "page",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        [Self::CheckoutSession, Self::BillingStatement, Self::Page].into_iter().find(|owner| owner.as_str() == value)
    }

    /// Whether the owner keeps `operation` to itself, refusing it to the merchant: a checkout
    /// session or a billing statement changes or ends its intent itself (`expire`, `void`); a
    /// page's order keeps its amount, which its page session adds up, but the merchant may cancel
    /// an order never paid.
    #[must_use]
    pub fn refuses(self, operation: PaymentIntentOperation) -> bool {
        match self {
            Self::CheckoutSession | Self::BillingStatement => {
                matches!(operation, PaymentIntentOperation::Update | PaymentIntentOperation::Cancel)
            }
            Self::Page => operation == PaymentIntentOperation::Update,
        }
    }

    /// The `origin` of the intent's payments: `billing_statement` for a statement's, `pages` for
    /// a page's, else `api` (a checkout session's payments keep `api`, as before owners were
    /// recorded).
    #[must_use]
    pub fn payment_origin(owner: Option<Self>) -> &'static str {
        match owner {
            Some(Self::BillingStatement) => "billing_statement",
            Some(Self::Page) => "pages",
            Some(Self::CheckoutSession) | None => "api",
        }
    }
}

/// What a merchant supplies to create an intent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPaymentIntent {
    pub amount: Amount,
    pub currency: Currency,
    pub payment_methods: Vec<PaymentMethodType>,
    pub statement_descriptor: Option<StatementDescriptor>,
    pub description: Option<Description>,
    pub metadata: Option<Metadata>,
    pub customer_id: Option<CustomerId>,
    pub return_url: Option<RedirectUrl>,
    pub card_options: CardOptions,
}

/// What a merchant may ask of a payment intent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PaymentIntentOperation {
    Update,
    Attach,
    Capture,
    Cancel,
}

impl PaymentIntentOperation {
    pub const ALL: [Self; 4] = [Self::Update, Self::Attach, Self::Capture, Self::Cancel];

    /// The operation's name in the API's paths and the console's forms.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Update => "update",
            Self::Attach => "attach",
            Self::Capture => "capture",
            Self::Cancel => "cancel",
        }
    }
}

/// Fields an update may change; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaymentIntentChanges {
    pub amount: Option<Amount>,
    pub description: Option<Description>,
    pub statement_descriptor: Option<StatementDescriptor>,
    pub metadata: Option<Metadata>,
    pub customer_id: Option<CustomerId>,
    pub return_url: Option<RedirectUrl>,
}

impl PaymentIntent {
    /// A new intent awaiting a payment method.
    #[must_use]
    pub fn create(
        id: PaymentIntentId,
        account_id: AccountId,
        livemode: bool,
        client_secret: ClientSecret,
        new: NewPaymentIntent,
        now: Timestamp,
    ) -> Self {
        Self {
            id,
            account_id,
            livemode,
            amount: new.amount,
            amount_received: 0,
            amount_capturable: 0,
            currency: new.currency,
            payment_methods: new.payment_methods,
            statement_descriptor: new.statement_descriptor,
            status: PaymentIntentStatus::AwaitingPaymentMethod,
            client_secret,
            description: new.description,
            last_payment_error: None,
            latest_payment_id: None,
            metadata: new.metadata,
            return_url: new.return_url,
            payment_method_id: None,
            card_options: new.card_options,
            capture_before_at: None,
            customer_id: new.customer_id,
            pending: None,
            redirect_token: None,
            action_due_at: None,
            owner: None,
            page_session: None,
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    /// The same new intent, created for `owner` (a checkout session or a billing statement).
    #[must_use]
    pub fn owned_by(mut self, owner: IntentOwner) -> Self {
        self.owner = Some(owner);
        self
    }

    /// The same new intent, paying the order `session` a customer placed on a page, whose payment
    /// page (`order_page`, made from the intent's client secret) the customer comes back to.
    #[must_use]
    pub fn for_page(mut self, session: PageSession, order_page: impl FnOnce(&ClientSecret) -> String) -> Self {
        self.return_url = Some(RedirectUrl::trusted(order_page(&self.client_secret)));
        self.owner = Some(IntentOwner::Page);
        self.page_session = Some(session);
        self
    }

    /// The order placed on a page that the intent pays, for a page's intent.
    #[must_use]
    pub fn page_session(&self) -> Option<&PageSession> {
        self.page_session.as_ref()
    }

    /// What the intent was created for; `None` for the merchant's own intents.
    #[must_use]
    pub fn owner(&self) -> Option<IntentOwner> {
        self.owner
    }

    fn touch(&mut self, now: Timestamp) {
        self.updated_at = now;
        self.version += 1;
    }

    /// Applies a merchant's update.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting a payment method.
    pub fn update(&mut self, changes: PaymentIntentChanges, now: Timestamp) -> Result<(), DomainError> {
        match self.status {
            PaymentIntentStatus::AwaitingPaymentMethod => {}
            PaymentIntentStatus::AwaitingNextAction
            | PaymentIntentStatus::Processing
            | PaymentIntentStatus::AwaitingCapture
            | PaymentIntentStatus::Succeeded
            | PaymentIntentStatus::Canceled => return Err(self.refuse("update")),
        }
        let PaymentIntentChanges { amount, description, statement_descriptor, metadata, customer_id, return_url } =
            changes;
        if let Some(amount) = amount {
            self.amount = amount;
        }
        if description.is_some() {
            self.description = description;
        }
        if statement_descriptor.is_some() {
            self.statement_descriptor = statement_descriptor;
        }
        if metadata.is_some() {
            self.metadata = metadata;
        }
        if customer_id.is_some() {
            self.customer_id = customer_id;
        }
        if return_url.is_some() {
            self.return_url = return_url;
        }
        self.touch(now);
        Ok(())
    }

    /// Checks that a payment method of `method` may be attached now.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting a payment method; `parameter_invalid` for a method the
    /// intent does not allow.
    pub fn ensure_attachable(&self, method: PaymentMethodType) -> Result<(), DomainError> {
        pending_authorization::ensure_attachable(self, &self.payment_methods, method)
    }

    /// Records the processor's answer to an attempt; `return_url`, when the attach names one, is where
    /// the customer returns after a redirect.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting a payment method.
    pub fn record_attempt(
        &mut self,
        attempt: Attempt,
        outcome: AuthorizationOutcome,
        redirect: Option<(String, String)>,
        return_url: Option<RedirectUrl>,
        now: Timestamp,
    ) -> Result<AttemptResult, DomainError> {
        self.ensure_attachable(attempt.payment_method.method)?;
        if return_url.is_some() {
            self.return_url = return_url;
        }
        self.payment_method_id = Some(attempt.payment_method_id.clone());
        Ok(self.record_answer(attempt, outcome, redirect, now))
    }

    /// Claims the intent for an attempt sent to a live processor: it is `processing` until the
    /// processor answers, with no background action of its own (the operation written ahead of the
    /// call is checked instead). A concurrent attach then finds it claimed.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting a payment method; `parameter_invalid` for a method
    /// the intent does not allow.
    pub fn claim_for_processor(
        &mut self,
        attempt: Attempt,
        return_url: Option<RedirectUrl>,
        now: Timestamp,
    ) -> Result<(), DomainError> {
        self.ensure_attachable(attempt.payment_method.method)?;
        if return_url.is_some() {
            self.return_url = return_url;
        }
        self.payment_method_id = Some(attempt.payment_method_id.clone());
        self.status = PaymentIntentStatus::Processing;
        self.pending = Some(PendingAttempt { attempt, redirect_token: None, redirect_url: None });
        self.action_due_at = None;
        self.touch(now);
        Ok(())
    }

    /// What a live processor told of the claimed attempt: the card it charged, and its reference
    /// to charge again a card the customer asked to save (without one, the card is not saved).
    pub fn learn_from_processor(&mut self, card: Option<CardSummary>, saved_method: Option<String>) {
        if let Some(pending) = self.pending.as_mut() {
            let attempt = &mut pending.attempt;
            if attempt.payment_method.card.is_none() {
                attempt.payment_method.card = card;
            }
            attempt.save_for = attempt
                .save_for
                .take()
                .and_then(|save| saved_method.map(|processor_reference| CardToSave { processor_reference, ..save }));
        }
    }

    /// Gives back a claim whose request never reached the processor: the intent awaits a payment
    /// method again, as if the attach had not happened.
    ///
    /// # Errors
    /// `resource_invalid_state` unless processing.
    pub fn give_back_claim(&mut self, now: Timestamp) -> Result<(), DomainError> {
        if self.status != PaymentIntentStatus::Processing || self.pending.is_none() {
            return Err(self.refuse("give back the claim of"));
        }
        self.status = PaymentIntentStatus::AwaitingPaymentMethod;
        self.pending = None;
        self.payment_method_id = None;
        self.action_due_at = None;
        self.touch(now);
        Ok(())
    }

    /// The live processor asks the customer to act on its page `url` (3-D Secure, an e-wallet):
    /// the intent awaits the customer, who comes back through the service's return page of `token`,
    /// until [`REDIRECT_SECONDS`] have passed.
    ///
    /// # Errors
    /// `resource_invalid_state` unless processing.
    pub fn await_processor_action(&mut self, token: String, url: String, now: Timestamp) -> Result<(), DomainError> {
        let Some(pending) = self.pending.as_mut().filter(|_| self.status == PaymentIntentStatus::Processing) else {
            return Err(self.refuse("await the customer for"));
        };
        pending.redirect_token = Some(token.clone());
        pending.redirect_url = Some(url);
        self.status = PaymentIntentStatus::AwaitingNextAction;
        self.redirect_token = Some(token);
        self.action_due_at = Some(now.plus_seconds(REDIRECT_SECONDS));
        self.touch(now);
        Ok(())
    }

    /// Takes `amount` of an authorized hold; the rest of the hold is released. Returns the held
    /// attempt, for the payment.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting capture within the hold; `parameter_above_maximum`
    /// for more than is capturable.
    pub fn capture(&mut self, amount: Amount, now: Timestamp) -> Result<Attempt, DomainError> {
        if self.status == PaymentIntentStatus::AwaitingCapture
            && self.capture_before_at.is_some_and(|deadline| now >= deadline)
        {
            return Err(DomainError::InvalidState {
                resource: RESOURCE,
                status: "awaiting_capture (hold expired)",
                action: "capture",
            });
        }
        self.record_capture(amount, now)
    }

    /// Records a capture the live processor made of the hold, whenever its answer comes: the
    /// processor's word stands, past `capture_before_at` too. Returns the held attempt.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting capture; `parameter_above_maximum` for more than
    /// is capturable.
    pub fn record_capture(&mut self, amount: Amount, now: Timestamp) -> Result<Attempt, DomainError> {
        match self.status {
            PaymentIntentStatus::AwaitingCapture => {}
            PaymentIntentStatus::AwaitingPaymentMethod
            | PaymentIntentStatus::AwaitingNextAction
            | PaymentIntentStatus::Processing
            | PaymentIntentStatus::Succeeded
            | PaymentIntentStatus::Canceled => return Err(self.refuse("capture")),
        }
        if amount.centavos() > self.amount_capturable {
            return Err(DomainError::Invalid(FieldError::new(
                "amount",
                ErrorCode::ParameterAboveMaximum,
                format!("The amount must be at most the capturable {}.", self.amount_capturable),
            )));
        }
        let attempt = self.pending.take().ok_or_else(|| self.refuse("capture"))?.attempt;
        self.action_due_at = None;
        self.status = PaymentIntentStatus::Succeeded;
        self.amount_received = amount.centavos();
        self.amount_capturable = 0;
        self.capture_before_at = None;
        self.touch(now);
        Ok(attempt)
    }

    /// Takes the hold for an operation sent to the live processor (a capture or a release), so
    /// that a concurrent one, which read the intent before, conflicts on its version.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting a capture or the customer.
    pub fn take_hold(&mut self, now: Timestamp) -> Result<(), DomainError> {
        match self.status {
            PaymentIntentStatus::AwaitingCapture | PaymentIntentStatus::AwaitingNextAction => {
                self.touch(now);
                Ok(())
            }
            PaymentIntentStatus::AwaitingPaymentMethod
            | PaymentIntentStatus::Processing
            | PaymentIntentStatus::Succeeded
            | PaymentIntentStatus::Canceled => Err(self.refuse("send an operation for")),
        }
    }

    /// Cancels the intent, releasing any hold.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting a payment method or a capture.
    pub fn cancel(&mut self, now: Timestamp) -> Result<(), DomainError> {
        match self.status {
            PaymentIntentStatus::AwaitingPaymentMethod | PaymentIntentStatus::AwaitingCapture => {}
            PaymentIntentStatus::AwaitingNextAction
            | PaymentIntentStatus::Processing
            | PaymentIntentStatus::Succeeded
            | PaymentIntentStatus::Canceled => return Err(self.refuse("cancel")),
        }
        self.status = PaymentIntentStatus::Canceled;
        self.pending = None;
        self.amount_capturable = 0;
        self.capture_before_at = None;
        self.action_due_at = None;
        self.touch(now);
        Ok(())
    }

    /// Cancels an intent whose purpose went away (its checkout session expired): like
    /// [`PaymentIntent::cancel`], and also from `awaiting_next_action`, dropping an authentication
    /// the customer never finished. A `processing` payment is left to finish, and so is one at a
    /// live processor ([`PaymentIntent::is_at_processor`]), which releases it first.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting a payment method, an action or a capture, and not
    /// at a live processor.
    pub fn abandon(&mut self, now: Timestamp) -> Result<(), DomainError> {
        if self.is_at_processor() {
            return Err(self.refuse("abandon a payment the live processor holds, or awaits the customer for,"));
        }
        if self.status == PaymentIntentStatus::AwaitingNextAction {
            self.status = PaymentIntentStatus::AwaitingPaymentMethod;
        }
        self.cancel(now).map_err(|_| self.refuse("cancel"))
    }

    /// Whether the customer has paid: the money is taken, or held for a capture.
    #[must_use]
    pub fn is_paid_for(&self) -> bool {
        matches!(self.status, PaymentIntentStatus::Succeeded | PaymentIntentStatus::AwaitingCapture)
    }

    /// Whether the intent can still be paid (it was not canceled).
    #[must_use]
    pub fn can_be_paid(&self) -> bool {
        self.status != PaymentIntentStatus::Canceled
    }

    /// Whether a live processor holds the intent's payment or awaits the customer on its page: only
    /// the processor can release it then, so the intent is not ended here first.
    #[must_use]
    pub fn is_at_processor(&self) -> bool {
        let live_attempt = self.pending.as_ref().is_some_and(|pending| pending.attempt.payment_id.is_some());
        self.livemode
            && live_attempt
            && matches!(self.status, PaymentIntentStatus::AwaitingCapture | PaymentIntentStatus::AwaitingNextAction)
    }

    /// A hold past `capture_before_at` is released and the intent canceled.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting capture with an expired hold.
    pub fn expire_hold(&mut self, now: Timestamp) -> Result<(), DomainError> {
        let expired = self.capture_before_at.is_some_and(|deadline| now >= deadline);
        match self.status {
            PaymentIntentStatus::AwaitingCapture if expired => self.cancel(now),
            PaymentIntentStatus::AwaitingCapture
            | PaymentIntentStatus::AwaitingPaymentMethod
            | PaymentIntentStatus::AwaitingNextAction
            | PaymentIntentStatus::Processing
            | PaymentIntentStatus::Succeeded
            | PaymentIntentStatus::Canceled => Err(self.refuse("expire the hold of")),
        }
    }

    /// Whether the intent allows `operation` at `now`: decided by the transition itself, tried on a
    /// copy, so a page offers exactly what the API takes (an owner's refusal aside, which the service
    /// adds).
    #[must_use]
    pub fn allows(&self, operation: PaymentIntentOperation, now: Timestamp) -> bool {
        let mut copy = self.clone();
        match operation {
            PaymentIntentOperation::Update => copy.update(PaymentIntentChanges::default(), now).is_ok(),
            PaymentIntentOperation::Attach => {
                self.payment_methods.iter().any(|method| self.ensure_attachable(*method).is_ok())
            }
            PaymentIntentOperation::Capture => {
                Amount::new(self.amount_capturable).is_ok_and(|amount| copy.capture(amount, now).is_ok())
            }
            PaymentIntentOperation::Cancel => copy.cancel(now).is_ok(),
        }
    }

    /// Links the payment an attempt produced.
    pub fn link_payment(&mut self, payment_id: PaymentId) {
        self.latest_payment_id = Some(payment_id);
    }
}

impl Authorizing for PaymentIntent {
    type Pending = Attempt;
    type Result = AttemptResult;
    const SUBJECT: &'static str = "payment";
    const RESOURCE: &'static str = RESOURCE;
    const PURPOSE: &'static str = "payment";

    fn stage(&self) -> Stage {
        match self.status {
            PaymentIntentStatus::AwaitingPaymentMethod => Stage::AwaitingMethod,
            PaymentIntentStatus::AwaitingNextAction => Stage::AwaitingRedirect,
            PaymentIntentStatus::Processing => Stage::Processing,
            PaymentIntentStatus::AwaitingCapture | PaymentIntentStatus::Succeeded | PaymentIntentStatus::Canceled => {
                Stage::Beyond
            }
        }
    }

    fn action_due_at(&self) -> Option<Timestamp> {
        self.action_due_at
    }

    fn refuse(&self, action: &'static str) -> DomainError {
        DomainError::InvalidState { resource: RESOURCE, status: self.status.as_str(), action }
    }

    fn wait(&mut self, attempt: Attempt, waiting: Waiting, due_at: Timestamp, _: Seal) -> AttemptResult {
        self.action_due_at = Some(due_at);
        match waiting {
            Waiting::Redirect { token, url } => {
                self.status = PaymentIntentStatus::AwaitingNextAction;
                self.redirect_token = Some(token.clone());
                self.pending = Some(PendingAttempt { attempt, redirect_token: Some(token), redirect_url: Some(url) });
                AttemptResult::Redirected
            }
            Waiting::Processor => {
                self.status = PaymentIntentStatus::Processing;
                self.pending = Some(PendingAttempt { attempt, redirect_token: None, redirect_url: None });
                AttemptResult::Processing
            }
        }
    }

    fn take_pending(&mut self, _: Seal) -> Option<Attempt> {
        self.action_due_at = None;
        self.pending.take().map(|pending| pending.attempt)
    }

    fn approve(&mut self, attempt: Attempt, now: Timestamp, _: Seal) -> AttemptResult {
        self.pending = None;
        self.last_payment_error = None;
        let manual = attempt.payment_method.method == PaymentMethodType::Card
            && self.card_options.capture_type == CaptureType::Manual;
        if manual {
            self.pending = Some(PendingAttempt { attempt: attempt.clone(), redirect_token: None, redirect_url: None });
            self.status = PaymentIntentStatus::AwaitingCapture;
            self.amount_capturable = self.amount.centavos();
            let deadline = now.plus_seconds(HOLD_SECONDS);
            self.capture_before_at = Some(deadline);
            self.action_due_at = Some(deadline);
            AttemptResult::Held(attempt)
        } else {
            self.status = PaymentIntentStatus::Succeeded;
            self.amount_received = self.amount.centavos();
            self.action_due_at = None;
            AttemptResult::Succeeded(attempt)
        }
    }

    fn fail(&mut self, attempt: Attempt, error: PaymentError, _: Seal) -> AttemptResult {
        self.status = PaymentIntentStatus::AwaitingPaymentMethod;
        self.pending = None;
        self.action_due_at = None;
        self.last_payment_error = Some(error.clone());
        AttemptResult::Failed(attempt, error)
    }
    fn touch(&mut self, now: Timestamp, _: Seal) {
        PaymentIntent::touch(self, now);
    }

    fn last_error(&self) -> Option<&PaymentError> {
        self.last_payment_error.as_ref()
    }

    fn is_canceled(&self) -> bool {
        self.status == PaymentIntentStatus::Canceled
    }
}
