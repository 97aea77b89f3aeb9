//! Checkout sessions: create (with its payment intent, in one transaction), retrieve, list and
//! expire; what the hosted page shows and how it pays; and the background expiry.

use super::due::{Due, DueKind};
use super::event::EventLog;
use super::intent_owner::{ensure_owner_may_end, owner_may_end};
use super::payment_intent::{view, views, AttachOutcome, AttachRequest, PaymentIntentService, PaymentIntentView};
use super::redirect::{check_redirect_url, Access};
use crate::error::{ApplicationError, StateRefusal};
use crate::pagination::{Page, PageRequest};
use crate::ports::{
    in_transaction, reading, retry_on_conflict, CheckoutSessionFilter, Clock, IdGenerator, Presenter, Repositories,
    UnitOfWork,
};
use crate::scope::Scope;
use payments_domain::checkout_session::{CheckoutSession, CheckoutSessionStatus, NewCheckoutSession, NewLineItem};
use payments_domain::event::EventType;
use payments_domain::hosted_page::HostedPage;
use payments_domain::ids::{
    CheckoutSessionId, CheckoutSessionLineItemId, ClientSecret, PaymentIntentId, RANDOM_PART_LENGTH,
};
use payments_domain::payment_intent::{IntentOwner, NewPaymentIntent, PaymentIntent};
use payments_domain::redirect_url::RedirectUrl;
use payments_domain::time::Timestamp;
use std::sync::Arc;

const RESOURCE: &str = "checkout_session";

/// A session with the payment intent it embeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutSessionView {
    pub session: CheckoutSession,
    pub payment_intent: PaymentIntentView,
}

impl CheckoutSessionView {
    /// Whether the merchant may expire the session now, as [`CheckoutSessionService::expire`]
    /// decides: the domain's transition takes it (tried on a copy), and its payment is not
    /// processing.
    #[must_use]
    pub fn expirable(&self) -> bool {
        let mut session = self.session.clone();
        session.expire(self.session.updated_at()).is_ok() && owner_may_end(&self.payment_intent.intent)
    }
}

/// What the hosted page of a session shows, found by its client secret.
#[derive(Debug, Clone)]
pub struct CheckoutPage {
    pub view: CheckoutSessionView,
    /// Whether the customer may pay now (active and not past `expires_at`).
    pub payable: bool,
}

/// Checkout session use cases.
pub struct CheckoutSessionService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    presenter: Arc<dyn Presenter>,
    payment_intents: Arc<PaymentIntentService>,
    /// Base of the hosted pages' URLs.
    public_base_url: String,
}

impl CheckoutSessionService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        presenter: Arc<dyn Presenter>,
        payment_intents: Arc<PaymentIntentService>,
        public_base_url: String,
    ) -> Self {
        Self { unit_of_work, clock, ids, presenter, payment_intents, public_base_url }
    }

    /// Creates an active session and its payment intent, which returns to the session's page after
    /// a redirect.
    ///
    /// # Errors
    /// `parameter_invalid` on a plain-`http` `success_url` or `cancel_url` in live mode; storage
    /// failures.
    pub fn create(
        &self,
        scope: &Scope,
        new: NewCheckoutSession<NewLineItem>,
    ) -> Result<CheckoutSessionView, ApplicationError> {
        check_redirect_url(scope, "success_url", Some(&new.success_url))?;
        check_redirect_url(scope, "cancel_url", Some(&new.cancel_url))?;
        let now = self.clock.now_in(scope)?;
        let new = new.with_line_item_ids(|| CheckoutSessionLineItemId::from_random(&self.ids.id_part()));
        let id = CheckoutSessionId::from_random(&self.ids.id_part());
        let secret = ClientSecret::new(id.as_str(), &self.ids.alphanumeric(RANDOM_PART_LENGTH));
        let url = HostedPage::Checkout.url(&self.public_base_url, secret.reveal());
        let intent = self
            .payment_intents
            .build(
                scope,
                NewPaymentIntent {
                    amount: new.amount,
                    currency: new.currency,
                    payment_methods: new.payment_methods.clone(),
                    statement_descriptor: new.statement_descriptor.clone(),
                    description: new.description.clone(),
                    metadata: new.metadata.clone(),
                    customer_id: None,
                    return_url: Some(RedirectUrl::trusted(url.clone())),
                    card_options: new.card_options.clone(),
                },
                now,
            )
            .owned_by(IntentOwner::CheckoutSession);
        let session = CheckoutSession::create(
            id,
            scope.account_id.clone(),
            scope.livemode(),
            secret,
            url,
            intent.id().clone(),
            new,
            now,
        );
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            repositories.payment_intents().insert(&intent)?;
            repositories.checkout_sessions().insert(&session)?;
            Ok(CheckoutSessionView {
                session,
                payment_intent: PaymentIntentView { intent, latest_payment: None, customer: None },
            })
        })
    }

    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn retrieve(&self, scope: &Scope, id: &str) -> Result<CheckoutSessionView, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let session = load(repositories, scope, id)?;
            with_intent(repositories, scope, session)
        })
    }

    /// # Errors
    /// `parameter_invalid` on an unknown cursor; storage failures.
    pub fn list(
        &self,
        scope: &Scope,
        filter: &CheckoutSessionFilter,
        page: &PageRequest,
    ) -> Result<Page<CheckoutSessionView>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let sessions =
                repositories.checkout_sessions().list(scope, filter, page).map_err(|error| page.explain(error))?;
            // Their intents and what those show, in three reads however many sessions there are.
            let ids: Vec<PaymentIntentId> =
                sessions.data.iter().map(|session| session.payment_intent_id().clone()).collect();
            let found = repositories.payment_intents().find_many(scope, &ids)?;
            let intents = ids
                .iter()
                .map(|id| {
                    found
                        .iter()
                        .find(|intent| intent.id() == id)
                        .cloned()
                        .ok_or_else(|| ApplicationError::internal("a checkout session's payment intent is missing"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let data = sessions
                .data
                .into_iter()
                .zip(views(repositories, scope, intents)?)
                .map(|(session, payment_intent)| CheckoutSessionView { payment_intent, session })
                .collect();
            Ok(Page { data, has_more: sessions.has_more })
        })
    }

    /// Expires an active session and cancels its payment intent, so it can no longer be paid.
    ///
    /// # Errors
    /// `resource_invalid_state` unless active, or while its payment is processing;
    /// `resource_not_found`; storage failures.
    pub fn expire(&self, scope: &Scope, id: &str) -> Result<CheckoutSessionView, ApplicationError> {
        retry_on_conflict(|| {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let session = load(repositories, scope, id)?;
                self.expire_within(repositories, scope, session, now)
            })
        })
    }

    /// The active sessions whose `expires_at` passed at `now`, in `within` or in any scope.
    ///
    /// # Errors
    /// Storage failures.
    pub(crate) fn due(&self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<Due>, ApplicationError> {
        let due = reading(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.checkout_sessions().expired(within, now, limit)?)
        })?;
        Ok(due
            .iter()
            .map(|session| Due {
                kind: DueKind::CheckoutSession,
                scope: scope_of(session),
                id: session.id().to_string(),
                at: session.expires_at(),
            })
            .collect())
    }

    /// Expires the session `due` names, at `at`. Returns whether it expired.
    ///
    /// # Errors
    /// `resource_conflict` when it was completed or expired meanwhile; `resource_invalid_state`
    /// while its payment is processing (tried again later); storage failures.
    pub(crate) fn perform_due(&self, due: &Due, at: Timestamp) -> Result<bool, ApplicationError> {
        let scope = &due.scope;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let session = load(repositories, scope, &due.id)?;
            self.expire_within(repositories, scope, session, at).map(|_| true)
        })
    }

    /// The session whose client secret is `secret`, for its hosted page.
    ///
    /// # Errors
    /// `resource_not_found` for a secret that names no session; storage failures.
    pub fn page(&self, secret: &str) -> Result<CheckoutPage, ApplicationError> {
        let (session, view) = reading(self.unit_of_work.as_ref(), |repositories| {
            let session = find_by_secret(repositories, secret)?;
            let view = with_intent(repositories, &scope_of(&session), session.clone())?;
            Ok((session, view))
        })?;
        let payable = session.payable(self.clock.now_in(&scope_of(&session))?);
        Ok(CheckoutPage { view, payable })
    }

    /// The customer pays on the hosted page they loaded: the session's intent is attached as a
    /// browser with its client secret would, so concurrent submissions charge at most once (the
    /// attach is a versioned update, which also loses to an expiry since the page was read).
    ///
    /// # Errors
    /// `resource_invalid_state` once completed or expired; what attaching answers.
    pub fn pay(&self, page: &CheckoutPage, request: AttachRequest) -> Result<AttachOutcome, ApplicationError> {
        let session = &page.view.session;
        if !page.payable {
            let status = match session.status() {
                CheckoutSessionStatus::Active => "expired",
                status => status.as_str(),
            };
            return Err(ApplicationError::InvalidState(StateRefusal::SessionNotPayable { status }));
        }
        let intent = &page.view.payment_intent.intent;
        let access = Access::ClientSecret(Some(intent.client_secret().reveal()));
        self.payment_intents.attach(&scope_of(session), intent.id().as_str(), access, request)
    }

    /// Expires `before` and cancels its intent in the caller's transaction.
    fn expire_within(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        before: CheckoutSession,
        now: Timestamp,
    ) -> Result<CheckoutSessionView, ApplicationError> {
        let mut session = before.clone();
        session.expire(now)?;
        let intent = load_intent(repositories, scope, &before)?;
        let intent_before = view(repositories, scope, intent)?;
        ensure_owner_may_end(&intent_before.intent, RESOURCE)?;
        let intent_after = self.payment_intents.abandon_within(repositories, scope, intent_before.intent.id(), now)?;
        repositories.checkout_sessions().update(&session, before.version())?;
        let log = EventLog::new(self.ids.as_ref(), self.presenter.as_ref(), scope, now, self.clock.as_ref());
        let present = |session: &CheckoutSession, intent: &PaymentIntentView| {
            let intent =
                self.presenter.payment_intent(&intent.intent, intent.latest_payment.as_ref(), intent.customer.as_ref());
            self.presenter.checkout_session(session, &intent)
        };
        let (after, old) = (present(&session, &intent_after), present(&before, &intent_before));
        log.append(repositories, EventType::CheckoutSessionExpired, &after, Some(&old))?;
        Ok(CheckoutSessionView { session, payment_intent: intent_after })
    }
}

fn scope_of(session: &CheckoutSession) -> Scope {
    Scope::of(session.account_id(), session.livemode())
}

fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<CheckoutSession, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let session_id = CheckoutSessionId::parse(id).ok_or_else(not_found)?;
    repositories.checkout_sessions().find(scope, &session_id)?.ok_or_else(not_found)
}

/// The session a client secret (`cs_…_secret_…`) names, if the secret is its own.
fn find_by_secret(repositories: &mut dyn Repositories, secret: &str) -> Result<CheckoutSession, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: "this page".to_owned() };
    let id = ClientSecret::object_id(secret).and_then(CheckoutSessionId::parse).ok_or_else(not_found)?;
    let session = repositories.checkout_sessions().find_for_page(&id)?.ok_or_else(not_found)?;
    if session.client_secret().matches(secret) {
        Ok(session)
    } else {
        Err(not_found())
    }
}

fn load_intent(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    session: &CheckoutSession,
) -> Result<PaymentIntent, ApplicationError> {
    repositories
        .payment_intents()
        .find(scope, session.payment_intent_id())?
        .ok_or_else(|| ApplicationError::internal("a checkout session's payment intent is missing"))
}

fn with_intent(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    session: CheckoutSession,
) -> Result<CheckoutSessionView, ApplicationError> {
    let intent = load_intent(repositories, scope, &session)?;
    Ok(CheckoutSessionView { payment_intent: view(repositories, scope, intent)?, session })
}
