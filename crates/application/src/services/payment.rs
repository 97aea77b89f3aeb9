//! Payments: retrieve and update the merchant's fields.

use super::payment_intent::load_customer;
use crate::error::ApplicationError;
use crate::pagination::{Page, PageRequest};
use crate::ports::{in_transaction, reading, Clock, PaymentFilter, Repositories, UnitOfWork};
use crate::scope::Scope;
use payments_domain::customer::Customer;
use payments_domain::description::Description;
use payments_domain::ids::PaymentId;
use payments_domain::metadata::Metadata;
use payments_domain::payment::Payment;
use payments_domain::refund::Refund;
use std::sync::Arc;

const RESOURCE: &str = "payment";

/// A payment with its customer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentView {
    pub payment: Payment,
    pub customer: Option<Customer>,
}

/// Payment use cases.
pub struct PaymentService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
}

impl PaymentService {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>, clock: Arc<dyn Clock>) -> Self {
        Self { unit_of_work, clock }
    }

    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn retrieve(&self, scope: &Scope, id: &str) -> Result<PaymentView, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let payment = load(repositories, scope, id)?;
            let customer = load_customer(repositories, scope, payment.customer_id())?;
            Ok(PaymentView { payment, customer })
        })
    }

    /// The payment with its refunds, oldest first, in one read.
    ///
    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn with_refunds(&self, scope: &Scope, id: &str) -> Result<(PaymentView, Vec<Refund>), ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let payment = load(repositories, scope, id)?;
            let customer = load_customer(repositories, scope, payment.customer_id())?;
            let refunds = repositories.refunds().of_payments(scope, std::slice::from_ref(payment.id()))?;
            Ok((PaymentView { payment, customer }, refunds))
        })
    }

    /// The scope's payments that match `filter`, newest first.
    ///
    /// # Errors
    /// `resource_not_found` naming the cursor when it is unknown; storage failures.
    pub fn list(
        &self,
        scope: &Scope,
        filter: &PaymentFilter,
        page: &PageRequest,
    ) -> Result<Page<Payment>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.payments().list(scope, filter, page).map_err(|error| page.explain(error))
        })
    }

    /// Changes the description and metadata.
    ///
    /// # Errors
    /// `resource_not_found`; `resource_conflict`; storage failures.
    pub fn update(
        &self,
        scope: &Scope,
        id: &str,
        description: Option<Description>,
        metadata: Option<Metadata>,
    ) -> Result<PaymentView, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut payment = load(repositories, scope, id)?;
            let expected_version = payment.version();
            payment.update(description.clone(), metadata.clone(), now);
            repositories.payments().update(&payment, expected_version)?;
            let customer = load_customer(repositories, scope, payment.customer_id())?;
            Ok(PaymentView { payment, customer })
        })
    }
}

/// The payment `id` of the scope.
pub(crate) fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<Payment, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let payment_id = PaymentId::parse(id).ok_or_else(not_found)?;
    repositories.payments().find(scope, &payment_id)?.ok_or_else(not_found)
}
