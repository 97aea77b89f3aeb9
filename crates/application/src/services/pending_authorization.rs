//! The use cases payment intents and setup intents share while an authorization waits (the
//! domain's `Authorizing` lifecycle), written once: the test authorization page's answer, the test
//! helpers that end a redirect or a processing authorization, and the background actions that
//! fall due. Each intent's service says how it loads and writes its intent, and what a result
//! records (a payment and its events, a saved card), as an [`AuthorizationFlow`].

use super::due::{Due, DueKind};
use super::redirect::{well_formed_token, RedirectCompletion};
use crate::error::{ApplicationError, StoreError};
use crate::ports::{in_transaction, reading, retry_on_conflict, Clock, Repositories, UnitOfWork};
use crate::scope::Scope;
use payments_domain::error::DomainError;
use payments_domain::ids::ClientSecret;
use payments_domain::pending_authorization::{Authorizing, DueAction, PaymentError, Stage, Verdict};
use payments_domain::time::Timestamp;

/// What a step of an intent's authorization came to.
pub type StepResult<F> = <<F as AuthorizationFlow>::Intent as Authorizing>::Result;

/// An intent's service, as the shared use cases see it.
pub trait AuthorizationFlow {
    /// The intent: a payment intent, a setup intent.
    type Intent: Authorizing;
    /// What the use cases answer: the intent with what it embeds.
    type View;
    /// What a change of the intent is written against (its version, or the whole view before).
    type Loaded;
    /// The kind of background action of the intent.
    const DUE_KIND: DueKind;
    /// The query parameter that brings the client secret back to the merchant's `return_url`.
    const CLIENT_SECRET_PARAMETER: &'static str;

    fn unit_of_work(&self) -> &dyn UnitOfWork;

    fn clock(&self) -> &dyn Clock;

    /// The intent `id` of `scope`.
    ///
    /// # Errors
    /// `resource_not_found`; storage failures.
    fn load(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        id: &str,
    ) -> Result<Self::Intent, ApplicationError>;

    /// The intent whose test authorization page has `token`.
    ///
    /// # Errors
    /// `resource_not_found` for an unknown token; storage failures.
    fn find_by_redirect_token(
        &self,
        repositories: &mut dyn Repositories,
        token: &str,
    ) -> Result<Option<Self::Intent>, StoreError>;

    /// Whether `token` is the page of the intent's pending redirect (a page used before is not).
    fn is_pending_page(intent: &Self::Intent, token: &str) -> bool;

    /// The intents of `within` (or of every scope) whose background action is due at `now`.
    ///
    /// # Errors
    /// Storage failures.
    fn due_intents(
        &self,
        repositories: &mut dyn Repositories,
        within: Option<&Scope>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<Self::Intent>, StoreError>;

    /// The scope and the id of an intent.
    fn whose(intent: &Self::Intent) -> (Scope, String);

    /// What the service does on its own for the intent once due.
    fn due_action(intent: &Self::Intent) -> Option<DueAction>;

    /// Prepares the intent for a change: what the change will be written against.
    ///
    /// # Errors
    /// Storage failures.
    fn prepare(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        intent: &Self::Intent,
    ) -> Result<Self::Loaded, ApplicationError>;

    /// A change the service makes before the intent moves, instead of moving it (a setup intent
    /// whose customer was deleted is abandoned): the view then, or `None` to go on.
    ///
    /// # Errors
    /// Storage failures.
    fn intervene(
        &self,
        _repositories: &mut dyn Repositories,
        _scope: &Scope,
        _loaded: &Self::Loaded,
        _intent: &mut Self::Intent,
        _now: Timestamp,
    ) -> Result<Option<Self::View>, ApplicationError> {
        Ok(None)
    }

    /// Records what a step came to: the intent (if unchanged since it was loaded), and what the
    /// result makes (a payment, a saved card, events). Returns the view.
    ///
    /// # Errors
    /// `resource_conflict` when the intent changed meanwhile; storage failures.
    fn settle(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        loaded: Self::Loaded,
        intent: Self::Intent,
        result: StepResult<Self>,
        now: Timestamp,
    ) -> Result<Self::View, ApplicationError>;

    /// A due action besides ending a redirect or a processing authorization (a payment intent's
    /// hold released); whether the intent moved.
    ///
    /// # Errors
    /// What the action refuses; storage failures.
    fn perform_other_due(
        &self,
        _repositories: &mut dyn Repositories,
        _scope: &Scope,
        _loaded: Self::Loaded,
        _intent: Self::Intent,
        _action: DueAction,
        _at: Timestamp,
    ) -> Result<bool, ApplicationError> {
        Ok(false)
    }

    /// Where the customer returns and how the intent stands, for the test page's answer.
    fn return_to(intent: &Self::Intent) -> (Option<&str>, &ClientSecret);

    /// The customer authorized (or failed) on the test authorization page of `token`. A page that
    /// was already used (submitted twice, or by two tabs at once) tells how the intent stands.
    ///
    /// # Errors
    /// `resource_not_found` for an unknown token; storage failures.
    fn complete_redirect(&self, token: &str, authorized: bool) -> Result<RedirectCompletion, ApplicationError> {
        well_formed_token(token)?;
        let unknown = super::redirect::unknown_token;
        retry_on_conflict(|| {
            let found = reading(self.unit_of_work(), |repositories| {
                self.find_by_redirect_token(repositories, token)?.ok_or_else(unknown)
            })?;
            let scope = Self::whose(&found).0;
            let now = self.clock().now_in(&scope)?;
            in_transaction(self.unit_of_work(), |repositories| {
                let mut intent = self.find_by_redirect_token(repositories, token)?.ok_or_else(unknown)?;
                if !Self::is_pending_page(&intent, token) {
                    return Ok(completion::<Self>(&intent, true));
                }
                let loaded = self.prepare(repositories, &scope, &intent)?;
                if self.intervene(repositories, &scope, &loaded, &mut intent, now)?.is_some() {
                    return Ok(completion::<Self>(&intent, false));
                }
                let result = intent.complete_redirect(&Verdict::of_page(authorized), now)?;
                let answer = completion::<Self>(&intent, false);
                self.settle(repositories, &scope, loaded, intent, result, now)?;
                Ok(answer)
            })
        })
    }

    /// Test helper: ends the intent's pending redirect as the test authorization page would:
    /// authorized, or failed (with the chosen decline, else `authentication_failed`). A redirect
    /// past its time expires instead, as on the page.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting a redirect; `resource_not_found`; storage failures.
    fn finish_redirect(&self, scope: &Scope, id: &str, verdict: &Verdict) -> Result<Self::View, ApplicationError> {
        end_pending(self, scope, id, |intent, now| intent.complete_redirect(verdict, now))
    }

    /// Test helper: the processor answers the intent's `processing` authorization now: approved, or
    /// declined (with the chosen decline, else `generic_decline`).
    ///
    /// # Errors
    /// `resource_invalid_state` unless processing; `resource_not_found`; storage failures.
    fn settle_processing(&self, scope: &Scope, id: &str, verdict: &Verdict) -> Result<Self::View, ApplicationError> {
        end_pending(self, scope, id, |intent, now| intent.settle_processing(verdict.processing_decline(), now))
    }

    /// The intents whose background action is due at `now`, in `within` or in any scope.
    ///
    /// # Errors
    /// Storage failures.
    fn due(&self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<Due>, ApplicationError> {
        let due =
            reading(self.unit_of_work(), |repositories| Ok(self.due_intents(repositories, within, now, limit)?))?;
        Ok(due
            .iter()
            .filter_map(|intent| {
                let (scope, id) = Self::whose(intent);
                Some(Due { kind: Self::DUE_KIND, scope, id, at: intent.action_due_at()? })
            })
            .collect())
    }

    /// Performs the background action of the intent `due` names, at `at`: an expired redirect
    /// fails, a processing authorization finishes, and what else the intent has due. Returns
    /// whether the intent moved.
    ///
    /// # Errors
    /// `resource_conflict` when another move landed first; `resource_invalid_state` when the
    /// action is no longer due; storage failures.
    fn perform_due(&self, due: &Due, at: Timestamp) -> Result<bool, ApplicationError> {
        let scope = &due.scope;
        in_transaction(self.unit_of_work(), |repositories| {
            let mut intent = match self.load(repositories, scope, &due.id) {
                Ok(intent) => intent,
                Err(ApplicationError::NotFound { .. }) => return Ok(false),
                Err(error) => return Err(error),
            };
            let loaded = self.prepare(repositories, scope, &intent)?;
            if self.intervene(repositories, scope, &loaded, &mut intent, at)?.is_some() {
                return Ok(true);
            }
            let result = match Self::due_action(&intent) {
                Some(DueAction::ExpireRedirect) => intent.expire_redirect(at)?,
                Some(DueAction::FinishProcessing) => intent.finish_processing(at)?,
                Some(other) => return self.perform_other_due(repositories, scope, loaded, intent, other, at),
                None => return Ok(false),
            };
            self.settle(repositories, scope, loaded, intent, result, at)?;
            Ok(true)
        })
    }
}

/// Ends what is pending of the intent `id` with `end`, as a test helper asks.
fn end_pending<F: AuthorizationFlow + ?Sized>(
    flow: &F,
    scope: &Scope,
    id: &str,
    end: impl Fn(&mut F::Intent, Timestamp) -> Result<StepResult<F>, DomainError>,
) -> Result<F::View, ApplicationError> {
    retry_on_conflict(|| {
        let now = flow.clock().now_in(scope)?;
        in_transaction(flow.unit_of_work(), |repositories| {
            let mut intent = flow.load(repositories, scope, id)?;
            let loaded = flow.prepare(repositories, scope, &intent)?;
            if let Some(view) = flow.intervene(repositories, scope, &loaded, &mut intent, now)? {
                return Ok(view);
            }
            let result = end(&mut intent, now)?;
            flow.settle(repositories, scope, loaded, intent, result, now)
        })
    })
}

/// Where the customer returns after the test page, and how the intent stands.
pub(crate) fn completion<F: AuthorizationFlow + ?Sized>(intent: &F::Intent, already_used: bool) -> RedirectCompletion {
    let error: Option<PaymentError> = intent.redirect_outcome();
    let (return_url, client_secret) = F::return_to(intent);
    RedirectCompletion {
        return_url: return_url.map(str::to_owned),
        client_secret_parameter: F::CLIENT_SECRET_PARAMETER,
        client_secret: client_secret.reveal().to_owned(),
        succeeded: error.is_none(),
        error,
        already_used,
        awaiting_customer: intent.stage() == Stage::AwaitingRedirect,
    }
}
