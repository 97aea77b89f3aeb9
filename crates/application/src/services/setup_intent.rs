//! Setup intents: create, retrieve, attach (verify a card without charging it and save it to the
//! customer), cancel; the test authorization page for cards that must authenticate; and the
//! background actions (redirect expiry, processing end).

use super::customer::live_customer;
use super::due::DueKind;
use super::event::EventLog;
use super::payment_intent::Processors;
use super::pending_authorization::AuthorizationFlow;
use super::redirect::{
    check_client_secret, check_redirect_url, test_redirect, unknown_token, well_formed_token, Access, RedirectPage,
};
use crate::error::{ApplicationError, StateRefusal};
use crate::ports::StoreError;
use crate::ports::{
    in_transaction, reading, retry_on_conflict, Clock, IdGenerator, Presenter, ProcessorError, Repositories,
    UnitOfWork, VerificationRequest,
};
use crate::scope::Scope;
use payments_domain::customer::Customer;
use payments_domain::event::EventType;
use payments_domain::ids::{ClientSecret, PaymentMethodId, SetupIntentId, RANDOM_PART_LENGTH};
use payments_domain::payment_method::{CardInput, PaymentBilling, PaymentMethodType, VerifiedCard};
use payments_domain::pending_authorization::{DueAction, PaymentError};
use payments_domain::redirect_url::RedirectUrl;
use payments_domain::setup_intent::{NewSetupIntent, PendingSetup, SetupIntent, SetupIntentStatus, SetupResult};
use payments_domain::time::Timestamp;
use payments_domain::validation::FieldError;
use std::sync::Arc;

const RESOURCE: &str = "setup_intent";
/// The query parameter that brings the client secret back to the merchant's `return_url`.
const CLIENT_SECRET_PARAMETER: &str = "setup_intent_client_secret";

/// A setup intent with the customer it embeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupIntentView {
    pub intent: SetupIntent,
    pub customer: Customer,
}

/// A card to save.
#[derive(Debug, Clone)]
pub struct SetupAttachRequest {
    pub card: CardInput,
    pub billing: Option<PaymentBilling>,
    pub return_url: Option<RedirectUrl>,
}

/// How an attach ended.
#[derive(Debug, Clone)]
pub enum SetupAttachOutcome {
    /// Saved, redirected or processing.
    Attached(SetupIntentView),
    /// Declined: nothing is saved, `last_setup_error` tells why.
    Declined(SetupIntentView, PaymentError),
}

/// The use cases of setup intents.
pub struct SetupIntentService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    processors: Processors,
    presenter: Arc<dyn Presenter>,
    /// Base of the URLs of the test authorization page.
    public_base_url: String,
}

impl SetupIntentService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        processors: Processors,
        presenter: Arc<dyn Presenter>,
        public_base_url: String,
    ) -> Self {
        Self { unit_of_work, clock, ids, processors, presenter, public_base_url }
    }

    fn random(&self) -> String {
        self.ids.alphanumeric(RANDOM_PART_LENGTH)
    }

    /// Creates a setup intent awaiting a payment method.
    ///
    /// # Errors
    /// `parameter_invalid` on `customer_id` naming no live customer of the scope, on
    /// `payment_methods` naming a method that cannot be saved, or on a plain-`http` `return_url` in
    /// live mode; storage failures.
    pub fn create(&self, scope: &Scope, new: NewSetupIntent) -> Result<SetupIntentView, ApplicationError> {
        check_redirect_url(scope, "return_url", new.return_url.as_ref())?;
        if let Some(unsavable) = new.payment_methods.iter().find(|method| **method != PaymentMethodType::Card) {
            return Err(ApplicationError::invalid(FieldError::invalid(
                "payment_methods",
                format!("{} cannot be saved for later; only card can.", unsavable.as_str()),
            )));
        }
        let id = SetupIntentId::from_random(&self.ids.id_part());
        let secret = ClientSecret::new(id.as_str(), &self.random());
        let intent =
            SetupIntent::create(id, scope.account_id.clone(), scope.livemode(), secret, new, self.clock.now_in(scope)?);
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let customer = live_customer(repositories, scope, intent.customer_id())?;
            repositories.setup_intents().insert(&intent)?;
            Ok(SetupIntentView { intent, customer })
        })
    }

    /// The setup intent, if the caller may see it.
    ///
    /// # Errors
    /// `resource_not_found`; `parameter_required` / `parameter_invalid` on `client_secret`.
    pub fn retrieve(&self, scope: &Scope, id: &str, access: Access<'_>) -> Result<SetupIntentView, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let intent = load(repositories, scope, id)?;
            check_client_secret(intent.client_secret(), access, "setup intent")?;
            view(repositories, scope, intent)
        })
    }

    /// Verifies a card with the processor, without charging it, and saves it to the customer when it
    /// is verified. The processor is asked outside any transaction; the outcome is recorded only if
    /// nothing else changed the intent meanwhile, so of concurrent attaches exactly one wins.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting a payment method; `parameter_invalid` for a method the
    /// intent does not allow or a wrong client secret; `resource_conflict` when a concurrent attach
    /// won; `service_unavailable` without a processor for the mode; storage failures.
    pub fn attach(
        &self,
        scope: &Scope,
        id: &str,
        access: Access<'_>,
        request: SetupAttachRequest,
    ) -> Result<SetupAttachOutcome, ApplicationError> {
        check_redirect_url(scope, "return_url", request.return_url.as_ref())?;
        let intent = reading(self.unit_of_work.as_ref(), |repositories| {
            let intent = load(repositories, scope, id)?;
            check_client_secret(intent.client_secret(), access, "setup intent")?;
            intent.ensure_attachable(PaymentMethodType::Card)?;
            ensure_customer_live(repositories, scope, &intent)?;
            Ok(intent)
        })?;
        let now = self.clock.now_in(scope)?;
        let verification = self
            .processors
            .for_mode(scope.livemode())?
            .verify(&VerificationRequest { card: &request.card, card_options: intent.card_options(), now })
            .map_err(|ProcessorError::Unavailable(reason)| ApplicationError::Unavailable(reason.into()))?;
        let pending = PendingSetup {
            payment_method_id: PaymentMethodId::from_random(&self.ids.id_part()),
            verified: VerifiedCard {
                card: verification.card,
                billing: request.billing,
                processor_reference: verification.processor_reference,
            },
        };
        let redirect = test_redirect(self.ids.as_ref(), &self.public_base_url, scope.mode);
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut current = load(repositories, scope, id)?;
            if current.version() != intent.version() {
                return Err(ApplicationError::Conflict);
            }
            ensure_customer_live(repositories, scope, &current)?;
            let version = current.version();
            let result = current.record_verification(
                pending.clone(),
                verification.outcome.clone(),
                redirect.clone(),
                request.return_url.clone(),
                now,
            )?;
            let (view, failure) = self.record(repositories, scope, current, version, result, now)?;
            Ok(match failure {
                Some(error) => SetupAttachOutcome::Declined(view, error),
                None => SetupAttachOutcome::Attached(view),
            })
        })
    }

    /// Cancels a setup intent awaiting a payment method or the customer's authentication.
    ///
    /// # Errors
    /// `resource_invalid_state` from any other status; storage failures.
    pub fn cancel(&self, scope: &Scope, id: &str) -> Result<SetupIntentView, ApplicationError> {
        retry_on_conflict(|| {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let mut intent = load(repositories, scope, id)?;
                let version = intent.version();
                intent.cancel(now)?;
                repositories.setup_intents().update(&intent, version)?;
                view(repositories, scope, intent)
            })
        })
    }

    /// What the test authorization page of `token` shows, when the token is a setup intent's.
    ///
    /// # Errors
    /// `resource_not_found` for an unknown, used or expired token.
    pub fn redirect_page(&self, token: &str) -> Result<RedirectPage, ApplicationError> {
        let intent = reading(self.unit_of_work.as_ref(), |repositories| find_by_redirect_token(repositories, token))?;
        let now = self.clock.now_in(&scope_of(&intent))?;
        let waiting = intent.status() == SetupIntentStatus::AwaitingNextAction
            && intent.redirect_token() == Some(token)
            && intent.action_due_at().is_none_or(|due| now < due);
        if !waiting {
            return Err(unknown_token());
        }
        Ok(RedirectPage {
            intent_id: intent.id().to_string(),
            amount: None,
            currency: "PHP",
            method: PaymentMethodType::Card,
            description: intent.description().map(|text| text.as_str().to_owned()),
            redirect_url: intent.redirect_url().unwrap_or_default().to_owned(),
        })
    }

    /// Writes the intent (if its version is still `version`) and, when the card was verified, the
    /// saved payment method and `setup_intent.succeeded`. Returns the view and the error of a failure.
    fn record(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        intent: SetupIntent,
        version: i64,
        result: SetupResult,
        now: Timestamp,
    ) -> Result<(SetupIntentView, Option<PaymentError>), ApplicationError> {
        repositories.setup_intents().update(&intent, version)?;
        let view = view(repositories, scope, intent)?;
        let failure = match result {
            SetupResult::Saved(method) => {
                repositories.payment_methods().insert(&method)?;
                let log = EventLog::new(self.ids.as_ref(), self.presenter.as_ref(), scope, now, self.clock.as_ref());
                let data = self.presenter.setup_intent(&view.intent, &view.customer);
                log.append(repositories, EventType::SetupIntentSucceeded, &data, None)?;
                None
            }
            SetupResult::Failed(error) => Some(error),
            SetupResult::Redirected | SetupResult::Processing => None,
        };
        Ok((view, failure))
    }
}

impl AuthorizationFlow for SetupIntentService {
    type Intent = SetupIntent;
    type View = SetupIntentView;
    /// The version the change is written against.
    type Loaded = i64;
    const DUE_KIND: DueKind = DueKind::SetupIntent;
    const CLIENT_SECRET_PARAMETER: &'static str = CLIENT_SECRET_PARAMETER;

    fn unit_of_work(&self) -> &dyn UnitOfWork {
        self.unit_of_work.as_ref()
    }

    fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    fn load(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        id: &str,
    ) -> Result<SetupIntent, ApplicationError> {
        load(repositories, scope, id)
    }

    fn find_by_redirect_token(
        &self,
        repositories: &mut dyn Repositories,
        token: &str,
    ) -> Result<Option<SetupIntent>, StoreError> {
        // Test mode's page decides test intents only: a live intent is decided by its processor.
        Ok(repositories.setup_intents().find_by_redirect_token(token)?.filter(|intent| !intent.livemode()))
    }

    fn is_pending_page(intent: &SetupIntent, token: &str) -> bool {
        intent.status() == SetupIntentStatus::AwaitingNextAction && intent.redirect_token() == Some(token)
    }

    fn due_intents(
        &self,
        repositories: &mut dyn Repositories,
        within: Option<&Scope>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<SetupIntent>, StoreError> {
        repositories.setup_intents().due(within, now, limit)
    }

    fn whose(intent: &SetupIntent) -> (Scope, String) {
        (scope_of(intent), intent.id().to_string())
    }

    fn due_action(intent: &SetupIntent) -> Option<DueAction> {
        intent.status().due_action()
    }

    fn prepare(&self, _: &mut dyn Repositories, _: &Scope, intent: &SetupIntent) -> Result<i64, ApplicationError> {
        Ok(intent.version())
    }

    /// A card is saved only to a customer that is not deleted: a waiting setup intent whose customer
    /// was deleted meanwhile is canceled instead.
    fn intervene(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        version: &i64,
        intent: &mut SetupIntent,
        now: Timestamp,
    ) -> Result<Option<SetupIntentView>, ApplicationError> {
        if !abandoned(repositories, scope, intent, *version, now)? {
            return Ok(None);
        }
        view(repositories, scope, intent.clone()).map(Some)
    }

    fn settle(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        version: i64,
        intent: SetupIntent,
        result: SetupResult,
        now: Timestamp,
    ) -> Result<SetupIntentView, ApplicationError> {
        Ok(self.record(repositories, scope, intent, version, result, now)?.0)
    }

    fn return_to(intent: &SetupIntent) -> (Option<&str>, &ClientSecret) {
        (intent.return_url(), intent.client_secret())
    }
}

fn scope_of(intent: &SetupIntent) -> Scope {
    Scope::of(intent.account_id(), intent.livemode())
}

/// Cancels a waiting setup intent whose customer was deleted meanwhile (nothing is saved to a deleted
/// customer); returns whether it did.
fn abandoned(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    intent: &mut SetupIntent,
    version: i64,
    now: Timestamp,
) -> Result<bool, ApplicationError> {
    if ensure_customer_live(repositories, scope, intent).is_ok() {
        return Ok(false);
    }
    intent.abandon(now)?;
    repositories.setup_intents().update(intent, version)?;
    Ok(true)
}

/// A card is saved only to a customer that is not deleted.
fn ensure_customer_live(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    intent: &SetupIntent,
) -> Result<(), ApplicationError> {
    match repositories.customers().find(scope, intent.customer_id())? {
        Some(customer) if !customer.is_deleted() => Ok(()),
        _ => Err(ApplicationError::InvalidState(StateRefusal::SetupCustomerDeleted {
            customer_id: intent.customer_id().to_string(),
        })),
    }
}

fn find_by_redirect_token(repositories: &mut dyn Repositories, token: &str) -> Result<SetupIntent, ApplicationError> {
    well_formed_token(token)?;
    repositories
        .setup_intents()
        .find_by_redirect_token(token)?
        .filter(|intent| !intent.livemode())
        .ok_or_else(unknown_token)
}

fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<SetupIntent, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let intent_id = SetupIntentId::parse(id).ok_or_else(not_found)?;
    repositories.setup_intents().find(scope, &intent_id)?.ok_or_else(not_found)
}

fn view(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    intent: SetupIntent,
) -> Result<SetupIntentView, ApplicationError> {
    let customer = repositories
        .customers()
        .find(scope, intent.customer_id())?
        .ok_or_else(|| ApplicationError::internal("a setup intent's customer is missing"))?;
    Ok(SetupIntentView { intent, customer })
}
