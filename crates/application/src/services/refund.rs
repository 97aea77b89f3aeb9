//! Refunds: create (never more than the payment, under concurrency) and update metadata.

use super::event::EventLog;
use super::payment_intent::load_customer;
use crate::error::ApplicationError;
use crate::pagination::{Page, PageRequest};
use crate::ports::{
    in_transaction, reading, retry_on_conflict, Clock, IdGenerator, Presenter, Repositories, UnitOfWork,
};
use crate::scope::Scope;
use payments_domain::event::EventType;
use payments_domain::ids::RefundId;
use payments_domain::metadata::Metadata;
use payments_domain::payment::Payment;
use payments_domain::refund::{NewRefund, Refund};
use payments_domain::validation::FieldError;
use std::sync::Arc;

const RESOURCE: &str = "refund";

/// Refund use cases.
pub struct RefundService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    presenter: Arc<dyn Presenter>,
}

impl RefundService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        presenter: Arc<dyn Presenter>,
    ) -> Self {
        Self { unit_of_work, clock, ids, presenter }
    }

    /// The scope's refunds, newest first.
    ///
    /// # Errors
    /// `resource_not_found` naming the cursor when it is unknown; storage failures.
    pub fn list(&self, scope: &Scope, page: &PageRequest) -> Result<Page<Refund>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.refunds().list(scope, page).map_err(|error| page.explain(error))
        })
    }

    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn retrieve(&self, scope: &Scope, id: &str) -> Result<Refund, ApplicationError> {
        let not_found = || ApplicationError::NotFound { resource: "refund", id: id.to_owned() };
        let refund_id = RefundId::parse(id).ok_or_else(not_found)?;
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.refunds().find(scope, &refund_id)?.ok_or_else(not_found)
        })
    }

    /// Refunds part or all of a paid payment.
    ///
    /// The payment's `amount_refunded` is a versioned update in the refund's transaction, so
    /// concurrent refunds are serialized: their sum never exceeds the payment.
    ///
    /// # Errors
    /// `parameter_invalid` on `payment_id` for an unknown or QR Ph payment or on `currency`;
    /// `parameter_above_maximum` past what is left; `resource_invalid_state` for a failed payment.
    pub fn create(&self, scope: &Scope, new: &NewRefund) -> Result<Refund, ApplicationError> {
        self.create_checked(scope, new, |_| Ok(()))
    }

    /// Refunds a payment of the payment intent `intent_id`, as [`RefundService::create`] does: the
    /// payment is checked to be one of the intent's in the same unit of work as it is refunded.
    ///
    /// # Errors
    /// As [`RefundService::create`]; `parameter_invalid` on `payment_id` for a payment of another
    /// intent.
    pub fn create_for_intent(
        &self,
        scope: &Scope,
        intent_id: &str,
        new: &NewRefund,
    ) -> Result<Refund, ApplicationError> {
        self.create_checked(scope, new, |payment| {
            if payment.payment_intent_id().as_str() == intent_id {
                return Ok(());
            }
            Err(ApplicationError::invalid(FieldError::invalid(
                "payment_id",
                format!("The payment {} is not one of payment intent {intent_id}'s.", payment.id()),
            )))
        })
    }

    fn create_checked(
        &self,
        scope: &Scope,
        new: &NewRefund,
        check: impl Fn(&Payment) -> Result<(), ApplicationError>,
    ) -> Result<Refund, ApplicationError> {
        retry_on_conflict(|| {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let mut payment = super::payment::load(repositories, scope, &new.payment_id).map_err(|_| {
                    ApplicationError::invalid(FieldError::missing(
                        "payment_id",
                        format!("No payment with id {} exists.", new.payment_id),
                    ))
                })?;
                check(&payment)?;
                if scope.livemode() {
                    // A live refund must reach the card through the processor, which is not built
                    // yet: recording one here would mark money returned that never was.
                    return Err(ApplicationError::NotConfigured(
                        "Live refunds through the payment processor are not available yet.".into(),
                    ));
                }
                let customer = load_customer(repositories, scope, payment.customer_id())?;
                let before = self.presenter.payment(&payment, customer.as_ref());
                let expected_version = payment.version();
                let id = RefundId::from_random(&self.ids.id_part());
                let refund = payment.refund(id, new.clone(), now)?;
                repositories.payments().update(&payment, expected_version)?;
                repositories.refunds().insert(&refund)?;
                super::balance::record_refund(repositories, self.ids.as_ref(), &refund, now)?;
                let log = self.event_log(scope, now);
                log.append(repositories, EventType::RefundCreated, &self.presenter.refund(&refund), None)?;
                let after = self.presenter.payment(&payment, customer.as_ref());
                log.append(repositories, EventType::PaymentRefunded, &after, Some(&before))?;
                Ok(refund)
            })
        })
    }

    /// Replaces a refund's metadata.
    ///
    /// # Errors
    /// `resource_not_found`; `resource_conflict`; storage failures.
    pub fn update(&self, scope: &Scope, id: &str, metadata: Option<Metadata>) -> Result<Refund, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut refund = load(repositories, scope, id)?;
            let before = self.presenter.refund(&refund);
            let expected_version = refund.version();
            refund.update(metadata.clone(), now);
            repositories.refunds().update(&refund, expected_version)?;
            let after = self.presenter.refund(&refund);
            self.event_log(scope, now).append(repositories, EventType::RefundUpdated, &after, Some(&before))?;
            Ok(refund)
        })
    }

    fn event_log<'a>(&'a self, scope: &'a Scope, now: payments_domain::time::Timestamp) -> EventLog<'a> {
        EventLog::new(self.ids.as_ref(), self.presenter.as_ref(), scope, now, self.clock.as_ref())
    }
}

fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<Refund, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let refund_id = RefundId::parse(id).ok_or_else(not_found)?;
    repositories.refunds().find(scope, &refund_id)?.ok_or_else(not_found)
}
