//! Setup intents: create, retrieve, attach (verify a card without charging it and save it to the
//! customer), cancel; the test authorization page for cards that must authenticate; and the
//! background actions (redirect expiry, processing end).

use super::customer::live_customer;
use super::due_work::{Due, DueKind};
use super::event::EventLog;
use super::payment_intent::Processors;
use super::redirect::{
    check_client_secret, check_redirect_url, test_redirect, unknown_token, well_formed_token, Access,
    RedirectCompletion, RedirectPage,
};
use crate::error::{ApplicationError, StateRefusal};
use crate::ports::{
    in_transaction, reading, retry_on_conflict, Clock, IdGenerator, Presenter, ProcessorError, Repositories,
    UnitOfWork, VerificationRequest,
};
use crate::scope::Scope;
use payments_domain::customer::Customer;
use payments_domain::error::DomainError;
use payments_domain::event::EventType;
use payments_domain::ids::{ClientSecret, PaymentMethodId, SetupIntentId, RANDOM_PART_LENGTH};
use payments_domain::payment_method::{CardInput, PaymentBilling, PaymentMethodType, VerifiedCard};
use payments_domain::pending_authorization::{DueAction, PaymentError, Verdict};
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
            let (view, failure) = self.settle(repositories, scope, current, version, result, now)?;
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

    /// The customer authenticated (or failed) on the test authorization page. A page that was
    /// already used tells how the setup intent stands.
    ///
    /// # Errors
    /// `resource_not_found` for an unknown token; storage failures.
    pub fn complete_redirect(&self, token: &str, authenticated: bool) -> Result<RedirectCompletion, ApplicationError> {
        retry_on_conflict(|| {
            let found =
                reading(self.unit_of_work.as_ref(), |repositories| find_by_redirect_token(repositories, token))?;
            let scope = scope_of(&found);
            let now = self.clock.now_in(&scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let mut intent = find_by_redirect_token(repositories, token)?;
                if intent.status() != SetupIntentStatus::AwaitingNextAction {
                    return Ok(completion(&intent, true));
                }
                let version = intent.version();
                if abandoned(repositories, &scope, &mut intent, version, now)? {
                    return Ok(completion(&intent, false));
                }
                let result = intent.complete_redirect(&Verdict::of_page(authenticated), now)?;
                let (view, _) = self.settle(repositories, &scope, intent, version, result, now)?;
                Ok(completion(&view.intent, false))
            })
        })
    }

    /// Test helper: ends the setup intent's pending redirect as the test authorization page
    /// would: authorized, or failed (with the chosen decline, else `authentication_failed`). A
    /// redirect past its time expires instead, as on the page.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting a redirect; `resource_not_found`; storage failures.
    pub fn finish_redirect(
        &self,
        scope: &Scope,
        id: &str,
        verdict: &Verdict,
    ) -> Result<SetupIntentView, ApplicationError> {
        self.end_pending(scope, id, |intent, now| intent.complete_redirect(verdict, now))
    }

    /// Test helper: the processor answers the setup intent's `processing` verification now:
    /// approved, or declined (with the chosen decline, else `generic_decline`).
    ///
    /// # Errors
    /// `resource_invalid_state` unless processing; `resource_not_found`; storage failures.
    pub fn settle_processing(
        &self,
        scope: &Scope,
        id: &str,
        verdict: &Verdict,
    ) -> Result<SetupIntentView, ApplicationError> {
        self.end_pending(scope, id, |intent, now| intent.settle_processing(verdict.processing_decline(), now))
    }

    fn end_pending(
        &self,
        scope: &Scope,
        id: &str,
        end: impl Fn(&mut SetupIntent, Timestamp) -> Result<SetupResult, DomainError>,
    ) -> Result<SetupIntentView, ApplicationError> {
        retry_on_conflict(|| {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let mut intent = load(repositories, scope, id)?;
                let version = intent.version();
                if abandoned(repositories, scope, &mut intent, version, now)? {
                    return view(repositories, scope, intent);
                }
                let result = end(&mut intent, now)?;
                Ok(self.settle(repositories, scope, intent, version, result, now)?.0)
            })
        })
    }

    /// The setup intents whose background action is due at `now`, in `within` or in any scope.
    ///
    /// # Errors
    /// Storage failures.
    pub(crate) fn due(&self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<Due>, ApplicationError> {
        let due = reading(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.setup_intents().due(within, now, limit)?)
        })?;
        Ok(due
            .iter()
            .filter_map(|intent| {
                Some(Due {
                    kind: DueKind::SetupIntent,
                    scope: scope_of(intent),
                    id: intent.id().to_string(),
                    at: intent.action_due_at()?,
                })
            })
            .collect())
    }

    /// Performs the background action of the setup intent `due` names, at `at`: an expired
    /// redirect fails, a processing verification finishes. Returns whether the intent moved.
    ///
    /// # Errors
    /// `resource_conflict` when another move landed first; `resource_invalid_state` when the
    /// action is no longer due; storage failures.
    pub(crate) fn perform_due(&self, due: &Due, at: Timestamp) -> Result<bool, ApplicationError> {
        let scope = &due.scope;
        let Some(id) = SetupIntentId::parse(&due.id) else {
            return Ok(false);
        };
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let Some(mut intent) = repositories.setup_intents().find(scope, &id)? else {
                return Ok(false);
            };
            let version = intent.version();
            if abandoned(repositories, scope, &mut intent, version, at)? {
                return Ok(true);
            }
            let result = match intent.status().due_action() {
                Some(DueAction::ExpireRedirect) => intent.expire_redirect(at)?,
                Some(DueAction::FinishProcessing) => intent.finish_processing(at)?,
                // Setup intents hold nothing.
                Some(DueAction::ReleaseHold) | None => return Ok(false),
            };
            self.settle(repositories, scope, intent, version, result, at)?;
            Ok(true)
        })
    }

    /// Writes the intent (if its version is still `version`) and, when the card was verified, the
    /// saved payment method and `setup_intent.succeeded`. Returns the view and the error of a failure.
    fn settle(
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

fn scope_of(intent: &SetupIntent) -> Scope {
    Scope::of(intent.account_id(), intent.livemode())
}

/// Where the customer returns to after the test page, and how the setup intent stands.
fn completion(intent: &SetupIntent, already_used: bool) -> RedirectCompletion {
    let error = match intent.status() {
        SetupIntentStatus::Succeeded | SetupIntentStatus::Processing => None,
        SetupIntentStatus::Canceled => Some(PaymentError::new("setup_intent_canceled", "The setup was canceled.")),
        SetupIntentStatus::AwaitingPaymentMethod | SetupIntentStatus::AwaitingNextAction => {
            Some(intent.last_setup_error().cloned().unwrap_or_else(|| {
                PaymentError::new("authentication_failed", "The customer failed to authenticate the card.")
            }))
        }
    };
    RedirectCompletion {
        return_url: intent.return_url().map(str::to_owned),
        client_secret_parameter: CLIENT_SECRET_PARAMETER,
        client_secret: intent.client_secret().reveal().to_owned(),
        succeeded: error.is_none(),
        error,
        already_used,
    }
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
    repositories.setup_intents().find_by_redirect_token(token)?.ok_or_else(unknown_token)
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
