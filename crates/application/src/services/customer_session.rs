//! Customer sessions: create and retrieve; and the check that lets a browser holding a session's
//! client secret list (and, when allowed, delete) its customer's saved payment methods.

use super::customer::live_customer;
use super::redirect::Access;
use crate::error::ApplicationError;
use crate::ports::{in_transaction, reading, Clock, IdGenerator, Repositories, UnitOfWork};
use crate::scope::Scope;
use payments_domain::customer::Customer;
use payments_domain::customer_session::{Component, CustomerSession, Feature};
use payments_domain::ids::{ClientSecret, CustomerId, CustomerSessionId, RANDOM_PART_LENGTH};
use payments_domain::payment_method::PaymentMethod;
use payments_domain::time::Timestamp;
use payments_domain::validation::FieldError;
use std::sync::Arc;

const RESOURCE: &str = "customer_session";
/// Saved methods shown to a browser with the session, at most.
const SHOWN_METHODS: u32 = 100;

/// A session with its customer, whether it has expired, and, for a browser, the saved methods the
/// session lets it show again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerSessionView {
    pub session: CustomerSession,
    pub customer: Customer,
    pub expired: bool,
    /// `Some` for a browser holding the client secret when `payment_method_redisplay` is enabled.
    pub payment_methods: Option<Vec<PaymentMethod>>,
    /// The features the session grants now, as [`CustomerSession::allows`] decides.
    pub granted: Vec<Feature>,
}

impl CustomerSessionView {
    fn of(
        session: CustomerSession,
        customer: Customer,
        payment_methods: Option<Vec<PaymentMethod>>,
        now: Timestamp,
    ) -> Self {
        let granted = Feature::ALL.into_iter().filter(|feature| session.allows(*feature, now)).collect();
        Self { expired: session.expired(now), session, customer, payment_methods, granted }
    }
}

/// The use cases of customer sessions.
pub struct CustomerSessionService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
}

impl CustomerSessionService {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>, clock: Arc<dyn Clock>, ids: Arc<dyn IdGenerator>) -> Self {
        Self { unit_of_work, clock, ids }
    }

    /// Creates a session for a live customer of the scope, expiring in 24 hours.
    ///
    /// # Errors
    /// `parameter_invalid` on `customer_id` naming no live customer; storage failures.
    pub fn create(
        &self,
        scope: &Scope,
        customer_id: &CustomerId,
        components: Vec<Component>,
    ) -> Result<CustomerSessionView, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        let id = CustomerSessionId::from_random(&self.ids.id_part());
        let secret = ClientSecret::new(id.as_str(), &self.ids.alphanumeric(RANDOM_PART_LENGTH));
        let session = CustomerSession::create(
            id,
            scope.account_id.clone(),
            scope.livemode(),
            secret,
            customer_id.clone(),
            components,
            now,
        );
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let customer = live_customer(repositories, scope, customer_id)?;
            repositories.customer_sessions().insert(&session)?;
            Ok(CustomerSessionView::of(session, customer, None, now))
        })
    }

    /// The latest `limit` sessions of the customer `customer_id`, newest first (none for an id of no
    /// customer of the scope).
    ///
    /// # Errors
    /// Storage failures.
    pub fn of_customer(
        &self,
        scope: &Scope,
        customer_id: &str,
        limit: u32,
    ) -> Result<Vec<CustomerSession>, ApplicationError> {
        let Some(customer_id) = CustomerId::parse(customer_id) else { return Ok(Vec::new()) };
        reading(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.customer_sessions().of_customer(scope, &customer_id, limit)?)
        })
    }

    /// The session, if the caller may see it: a secret key, or a public key with its client secret
    /// while the session lasts (which also gets the saved methods the session lets it show).
    ///
    /// # Errors
    /// `resource_not_found`; `parameter_required` / `parameter_invalid` on `client_secret` (an
    /// expired session's too, with a public key).
    pub fn retrieve(
        &self,
        scope: &Scope,
        id: &str,
        access: Access<'_>,
    ) -> Result<CustomerSessionView, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        reading(self.unit_of_work.as_ref(), |repositories| {
            let session = load(repositories, scope, id)?;
            super::redirect::check_client_secret(&session.client_secret, access, "customer session")?;
            // A browser's secret of an expired session opens nothing: it is refused as an attach
            // with it is. The merchant's secret key still reads it, `expired` and all.
            if access.customer_present() && session.expired(now) {
                return Err(ApplicationError::invalid(FieldError::invalid(
                    "client_secret",
                    "The customer session has expired.",
                )));
            }
            let customer = repositories
                .customers()
                .find(scope, &session.customer_id)?
                .ok_or_else(|| ApplicationError::internal("a customer session's customer is missing"))?;
            let payment_methods = if access.customer_present() && session.allows(Feature::PaymentMethodRedisplay, now) {
                let page = crate::pagination::PageRequest::new(Some(i64::from(SHOWN_METHODS)), None, None)
                    .map_err(ApplicationError::Validation)?;
                Some(repositories.payment_methods().list(scope, &session.customer_id, &page)?.data)
            } else {
                None
            };
            Ok(CustomerSessionView::of(session, customer, payment_methods, now))
        })
    }
}

fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<CustomerSession, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let session_id = CustomerSessionId::parse(id).ok_or_else(not_found)?;
    repositories.customer_sessions().find(scope, &session_id)?.ok_or_else(not_found)
}

/// Checks that a browser's client secret, sent as `parameter`, is that of a live session of
/// `customer_id` that grants `feature` (or just is live, when `feature` is `None`).
///
/// # Errors
/// `parameter_required` / `parameter_invalid` on `parameter`, or a session that expired or does
/// not grant the feature.
pub(crate) fn authorize_session(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    parameter: &str,
    customer_id: &CustomerId,
    client_secret: Option<&str>,
    feature: Option<Feature>,
    now: Timestamp,
) -> Result<(), ApplicationError> {
    let presented = client_secret.ok_or_else(|| ApplicationError::invalid(FieldError::required(parameter)))?;
    let refused = |detail: &str| ApplicationError::invalid(FieldError::invalid(parameter, detail));
    let session_id = ClientSecret::object_id(presented).and_then(CustomerSessionId::parse);
    let session = match session_id {
        Some(id) => repositories.customer_sessions().find(scope, &id)?,
        None => None,
    };
    let session = session
        .filter(|session| session.client_secret.matches(presented) && &session.customer_id == customer_id)
        .ok_or_else(|| refused("The client secret is not that of a session of this customer."))?;
    if session.expired(now) {
        return Err(refused("The customer session has expired."));
    }
    if let Some(feature) = feature {
        if !session.allows(feature, now) {
            return Err(refused(&format!("The customer session does not enable {}.", feature.as_str())));
        }
    }
    Ok(())
}
