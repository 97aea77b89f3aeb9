//! The payment methods saved to a customer: list, change the expiry and delete, with a secret key or
//! with a customer session's client secret. They are created by setup intents, and by payments whose
//! customer asked to save the card.

use super::customer_session::authorize_session;
use super::redirect::Access;
use crate::error::ApplicationError;
use crate::pagination::{Page, PageRequest};
use crate::ports::{in_transaction, reading, Clock, Repositories, UnitOfWork};
use crate::scope::Scope;
use payments_domain::customer::Customer;
use payments_domain::customer_session::Feature;
use payments_domain::ids::{CustomerId, PaymentMethodId};
use payments_domain::payment_method::PaymentMethod;
use std::sync::Arc;

/// The use cases of saved payment methods.
pub struct PaymentMethodService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
}

impl PaymentMethodService {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>, clock: Arc<dyn Clock>) -> Self {
        Self { unit_of_work, clock }
    }

    /// The customer's saved methods, newest first.
    ///
    /// # Errors
    /// `resource_not_found` for an unknown or deleted customer; `parameter_invalid` for a cursor
    /// that names no method of the customer, or a client secret that is not that of a live session
    /// of the customer; storage failures.
    pub fn list(
        &self,
        scope: &Scope,
        customer_id: &str,
        access: Access<'_>,
        page: &PageRequest,
    ) -> Result<Page<PaymentMethod>, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        reading(self.unit_of_work.as_ref(), |repositories| {
            let customer = customer(repositories, scope, customer_id)?;
            if let Access::ClientSecret(secret) = access {
                authorize_session(repositories, scope, "client_secret", &customer.id, secret, None, now)?;
            }
            repositories.payment_methods().list(scope, &customer.id, page).map_err(|error| page.explain(error))
        })
    }

    /// Gives a saved card of the customer the expiry of its renewed card.
    ///
    /// # Errors
    /// `resource_not_found` for an unknown customer, or a method that is not the customer's;
    /// `parameter_invalid` for an expiry already past, or a client secret of no live session of the
    /// customer that enables `payment_method_edit`; storage failures.
    pub fn change_expiry(
        &self,
        scope: &Scope,
        customer_id: &str,
        id: &str,
        access: Access<'_>,
        (exp_month, exp_year): (u32, u32),
    ) -> Result<PaymentMethod, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let customer = customer(repositories, scope, customer_id)?;
            if let Access::ClientSecret(secret) = access {
                let edit = Some(Feature::PaymentMethodEdit);
                authorize_session(repositories, scope, "client_secret", &customer.id, secret, edit, now)?;
            }
            let mut method = saved_method(repositories, scope, &customer.id, id)?;
            method.change_expiry(exp_month, exp_year, now).map_err(ApplicationError::invalid)?;
            if !repositories.payment_methods().update(&method)? {
                // A concurrent delete removed it first.
                return Err(ApplicationError::NotFound { resource: "payment_method", id: id.to_owned() });
            }
            Ok(method)
        })
    }

    /// Removes a saved method of the customer; it can no longer be charged.
    ///
    /// # Errors
    /// `resource_not_found` for an unknown customer, or a method that is not the customer's;
    /// `parameter_invalid` for a client secret of no live session of the customer that enables
    /// `payment_method_remove`; storage failures.
    pub fn delete(
        &self,
        scope: &Scope,
        customer_id: &str,
        id: &str,
        access: Access<'_>,
    ) -> Result<PaymentMethod, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let customer = customer(repositories, scope, customer_id)?;
            if let Access::ClientSecret(secret) = access {
                let remove = Some(Feature::PaymentMethodRemove);
                authorize_session(repositories, scope, "client_secret", &customer.id, secret, remove, now)?;
            }
            let method = saved_method(repositories, scope, &customer.id, id)?;
            if !repositories.payment_methods().delete(scope, &method.id)? {
                // A concurrent delete removed it first.
                return Err(ApplicationError::NotFound { resource: "payment_method", id: id.to_owned() });
            }
            Ok(method)
        })
    }
}

fn customer(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<Customer, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: "customer", id: id.to_owned() };
    let customer_id = CustomerId::parse(id).ok_or_else(not_found)?;
    repositories.customers().find(scope, &customer_id)?.filter(|c| !c.is_deleted()).ok_or_else(not_found)
}

/// The saved method `id` of the customer; another customer's method is not found.
pub(crate) fn saved_method(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    customer_id: &CustomerId,
    id: &str,
) -> Result<PaymentMethod, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: "payment_method", id: id.to_owned() };
    let method_id = PaymentMethodId::parse(id).ok_or_else(not_found)?;
    repositories
        .payment_methods()
        .find(scope, &method_id)?
        .filter(|method| &method.customer_id == customer_id)
        .ok_or_else(not_found)
}
