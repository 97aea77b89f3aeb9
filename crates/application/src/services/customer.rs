//! Customers: create, retrieve, update, delete (as a tombstone) and list.

use crate::error::ApplicationError;
use crate::pagination::{Page, PageRequest};
use crate::ports::{
    in_transaction, reading, BillingStatementFilter, Clock, CustomerFilter, IdGenerator, PaymentIntentFilter,
    Repositories, StoreError, UnitOfWork,
};
use crate::scope::Scope;
use payments_domain::billing_statement::BillingStatement;
use payments_domain::customer::{BillingStatementPrefix, Customer, CustomerChanges, NewCustomer};
use payments_domain::customer_session::CustomerSession;
use payments_domain::ids::{CustomerId, RANDOM_PART_LENGTH};
use payments_domain::payment_intent::PaymentIntent;
use payments_domain::payment_method::PaymentMethod;
use payments_domain::time::Timestamp;
use payments_domain::validation::FieldError;
use std::sync::Arc;

const RESOURCE: &str = "customer";

/// A customer with the newest of what belongs to them, up to a limit each: what the console's
/// customer page shows, read at once.
#[derive(Debug, Clone)]
pub struct CustomerPage {
    pub customer: Customer,
    pub payment_intents: Vec<PaymentIntent>,
    pub payment_methods: Vec<PaymentMethod>,
    pub billing_statements: Vec<BillingStatement>,
    pub customer_sessions: Vec<CustomerSession>,
    /// The scope's now, which tells the live sessions from the expired ones.
    pub now: Timestamp,
}

/// Customer use cases.
pub struct CustomerService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
}

impl CustomerService {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>, clock: Arc<dyn Clock>, ids: Arc<dyn IdGenerator>) -> Self {
        Self { unit_of_work, clock, ids }
    }

    /// Creates a customer; a statement prefix is generated when none is given.
    ///
    /// # Errors
    /// `parameter_invalid` on `billing_statement_prefix` when another customer uses it; storage failures.
    pub fn create(&self, scope: &Scope, new: NewCustomer) -> Result<Customer, ApplicationError> {
        let id = CustomerId::from_random(&self.ids.id_part());
        let generated_prefix = BillingStatementPrefix::generate(&self.ids.alphanumeric(RANDOM_PART_LENGTH))
            .map_err(|_| ApplicationError::internal("the id generator drew too few characters for a prefix"))?;
        let customer = Customer::create(
            id,
            scope.account_id.clone(),
            scope.livemode(),
            new,
            generated_prefix,
            self.clock.now_in(scope)?,
        );
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            ensure_prefix_free(repositories, scope, &customer.billing_statement_prefix, None)?;
            repositories.customers().insert(&customer).map_err(prefix_taken)?;
            Ok(customer)
        })
    }

    /// The customer with `id`; a deleted customer is returned as its tombstone.
    ///
    /// # Errors
    /// `resource_not_found` when no such customer exists in the scope; storage failures.
    pub fn retrieve(&self, scope: &Scope, id: &str) -> Result<Customer, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| load(repositories, scope, id))
    }

    /// The customer `id` that is not deleted, with the newest `limit` of their payment intents,
    /// saved methods, billing statements and customer sessions: one read of a few statements,
    /// whatever the customer holds.
    ///
    /// # Errors
    /// `resource_not_found` for an unknown or deleted customer; storage failures.
    pub fn page(&self, scope: &Scope, id: &str, limit: u32) -> Result<CustomerPage, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        let newest = PageRequest::new(Some(i64::from(limit.min(PageRequest::MAX_LIMIT))), None, None)
            .map_err(ApplicationError::Validation)?;
        reading(self.unit_of_work.as_ref(), |repositories| {
            let customer = load(repositories, scope, id)?;
            if customer.is_deleted() {
                return Err(not_found(id));
            }
            let intents = PaymentIntentFilter { customers: Some(vec![customer.id.clone()]), ..Default::default() };
            let statements = BillingStatementFilter { customer_id: Some(customer.id.clone()), ..Default::default() };
            Ok(CustomerPage {
                payment_intents: repositories.payment_intents().list(scope, &intents, &newest)?.data,
                payment_methods: repositories.payment_methods().list(scope, &customer.id, &newest)?.data,
                billing_statements: repositories.billing_statements().list(scope, &statements, &newest)?.data,
                customer_sessions: repositories.customer_sessions().of_customer(scope, &customer.id, limit)?,
                customer,
                now,
            })
        })
    }

    /// Applies an update to a customer that is not deleted.
    ///
    /// # Errors
    /// `resource_not_found` for a missing or deleted customer; `parameter_invalid` for a taken prefix;
    /// `resource_conflict` when a concurrent update won; storage failures.
    pub fn update(&self, scope: &Scope, id: &str, changes: CustomerChanges) -> Result<Customer, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut customer = load(repositories, scope, id)?;
            let expected_version = customer.version;
            if let Some(prefix) = &changes.billing_statement_prefix {
                ensure_prefix_free(repositories, scope, prefix, Some(&customer.id))?;
            }
            customer.update(changes, now).map_err(|_| not_found(id))?;
            repositories.customers().update(&customer, expected_version).map_err(prefix_taken)?;
            Ok(customer)
        })
    }

    /// Deletes a customer, keeping a tombstone that retrieval still returns.
    ///
    /// # Errors
    /// `resource_not_found` for a missing or already deleted customer; `resource_conflict` when a
    /// concurrent update won; storage failures.
    pub fn delete(&self, scope: &Scope, id: &str) -> Result<Customer, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut customer = load(repositories, scope, id)?;
            let expected_version = customer.version;
            customer.delete(now).map_err(|_| not_found(id))?;
            repositories.customers().update(&customer, expected_version)?;
            // Its saved payment methods go with it: nothing can charge them any more.
            repositories.payment_methods().delete_for_customer(scope, &customer.id)?;
            Ok(customer)
        })
    }

    /// A page of the scope's customers, newest first, deleted ones left out.
    ///
    /// # Errors
    /// `parameter_invalid` on `after`/`before` naming no customer; storage failures.
    pub fn list(
        &self,
        scope: &Scope,
        filter: &CustomerFilter,
        page: &PageRequest,
    ) -> Result<Page<Customer>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.customers().list(scope, filter, page).map_err(|error| page.explain(error))
        })
    }
}

fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<Customer, ApplicationError> {
    let Some(customer_id) = CustomerId::parse(id) else {
        return Err(not_found(id));
    };
    repositories.customers().find(scope, &customer_id)?.ok_or_else(|| not_found(id))
}

fn ensure_prefix_free(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    prefix: &BillingStatementPrefix,
    except: Option<&CustomerId>,
) -> Result<(), ApplicationError> {
    if repositories.customers().prefix_in_use(scope, prefix, except)? {
        return Err(prefix_in_use_error(prefix));
    }
    Ok(())
}

/// A unique violation here can only be the statement prefix, taken by a concurrent request.
fn prefix_taken(error: StoreError) -> ApplicationError {
    match error {
        StoreError::UniqueViolation(_) => ApplicationError::invalid(FieldError::invalid(
            "billing_statement_prefix",
            "Another customer uses this billing statement prefix.",
        )),
        other => other.into(),
    }
}

fn prefix_in_use_error(prefix: &BillingStatementPrefix) -> ApplicationError {
    ApplicationError::invalid(FieldError::invalid(
        "billing_statement_prefix",
        format!("Another customer uses the billing statement prefix {}.", prefix.as_str()),
    ))
}

fn not_found(id: &str) -> ApplicationError {
    ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() }
}

/// The customer `id` of the scope, which must exist and not be deleted; other resources name their
/// customer by `customer_id`.
pub(crate) fn live_customer(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    id: &CustomerId,
) -> Result<Customer, ApplicationError> {
    match repositories.customers().find(scope, id)? {
        Some(customer) if !customer.is_deleted() => Ok(customer),
        _ => Err(ApplicationError::invalid(FieldError::missing(
            "customer_id",
            format!("No customer with id {id} exists."),
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{new_customer, TestPorts};
    use payments_domain::account::Mode;

    fn prefix(value: &str) -> BillingStatementPrefix {
        BillingStatementPrefix::new(value.into()).unwrap()
    }

    #[test]
    fn a_created_customer_can_be_retrieved_in_its_scope_only() {
        let ports = TestPorts::new();
        let service = ports.customer_service();
        let scope = ports.scope(Mode::Test);
        let customer = service.create(&scope, new_customer("Ana")).unwrap();
        assert_eq!(service.retrieve(&scope, customer.id.as_str()).unwrap(), customer);
        let live = ports.scope(Mode::Live);
        assert!(matches!(service.retrieve(&live, customer.id.as_str()), Err(ApplicationError::NotFound { .. })));
        let other_account = ports.other_scope();
        assert!(matches!(
            service.retrieve(&other_account, customer.id.as_str()),
            Err(ApplicationError::NotFound { .. })
        ));
    }

    #[test]
    fn a_taken_statement_prefix_is_refused_on_create_and_update() {
        let ports = TestPorts::new();
        let service = ports.customer_service();
        let scope = ports.scope(Mode::Test);
        let mut first = new_customer("Ana");
        first.billing_statement_prefix = Some(prefix("ANA"));
        service.create(&scope, first.clone()).unwrap();
        assert!(matches!(service.create(&scope, first), Err(ApplicationError::Validation(_))));
        let other = service.create(&scope, new_customer("Ben")).unwrap();
        let changes = CustomerChanges { billing_statement_prefix: Some(prefix("ANA")), ..CustomerChanges::default() };
        assert!(matches!(service.update(&scope, other.id.as_str(), changes), Err(ApplicationError::Validation(_))));
    }

    #[test]
    fn a_deleted_customer_is_a_retrievable_tombstone_that_cannot_change() {
        let ports = TestPorts::new();
        let service = ports.customer_service();
        let scope = ports.scope(Mode::Test);
        let customer = service.create(&scope, new_customer("Ana")).unwrap();
        service.delete(&scope, customer.id.as_str()).unwrap();
        assert!(service.retrieve(&scope, customer.id.as_str()).unwrap().is_deleted());
        assert!(matches!(service.delete(&scope, customer.id.as_str()), Err(ApplicationError::NotFound { .. })));
        assert!(matches!(
            service.update(&scope, customer.id.as_str(), CustomerChanges::default()),
            Err(ApplicationError::NotFound { .. })
        ));
        let page = service.list(&scope, &CustomerFilter::default(), &PageRequest::default()).unwrap();
        assert!(page.data.is_empty());
    }

    #[test]
    fn the_list_is_newest_first_and_pages_with_after_and_before() {
        let ports = TestPorts::new();
        let service = ports.customer_service();
        let scope = ports.scope(Mode::Test);
        let ids: Vec<_> = ["A1", "B2", "C3", "D4", "E5"]
            .iter()
            .map(|n| service.create(&scope, new_customer(n)).unwrap().id)
            .collect();
        let filter = CustomerFilter::default();
        let first = service.list(&scope, &filter, &PageRequest::new(Some(2), None, None).unwrap()).unwrap();
        assert_eq!(first.data.iter().map(|c| c.id.clone()).collect::<Vec<_>>(), vec![ids[4].clone(), ids[3].clone()]);
        assert!(first.has_more);
        let after = PageRequest::new(Some(2), Some(ids[3].to_string()), None).unwrap();
        let second = service.list(&scope, &filter, &after).unwrap();
        assert_eq!(second.data.iter().map(|c| c.id.clone()).collect::<Vec<_>>(), vec![ids[2].clone(), ids[1].clone()]);
        let before = PageRequest::new(Some(2), None, Some(ids[2].to_string())).unwrap();
        let back = service.list(&scope, &filter, &before).unwrap();
        assert_eq!(back.data.iter().map(|c| c.id.clone()).collect::<Vec<_>>(), vec![ids[4].clone(), ids[3].clone()]);
        assert!(!back.has_more);
        let unknown = PageRequest::new(None, Some("cus_nope".into()), None).unwrap();
        assert!(matches!(service.list(&scope, &filter, &unknown), Err(ApplicationError::Validation(_))));
    }

    #[test]
    fn the_list_filters_by_exact_name_and_email() {
        let ports = TestPorts::new();
        let service = ports.customer_service();
        let scope = ports.scope(Mode::Test);
        service.create(&scope, new_customer("Ana")).unwrap();
        let ben = service.create(&scope, new_customer("Ben")).unwrap();
        let by_name = CustomerFilter { name: Some("Ben".into()), ..CustomerFilter::default() };
        let page = service.list(&scope, &by_name, &PageRequest::default()).unwrap();
        assert_eq!(page.data, vec![ben.clone()]);
        let by_email = CustomerFilter { email: Some("ana@example.com".into()), ..CustomerFilter::default() };
        assert_eq!(service.list(&scope, &by_email, &PageRequest::default()).unwrap().data.len(), 1);
    }
}
