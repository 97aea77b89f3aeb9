//! Storage of customers.

use crate::error::StoreError;
use crate::pagination::{MetadataMatch, Page, PageRequest};
use crate::scope::Scope;
use payments_domain::customer::{BillingStatementPrefix, Customer};
use payments_domain::ids::CustomerId;

/// Exact-match filters of the customer list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CustomerFilter {
    pub name: Option<String>,
    pub email: Option<String>,
    /// Every condition must hold.
    pub metadata: Vec<MetadataMatch>,
}

/// Customers, confined to a scope.
pub trait CustomerRepository {
    /// # Errors
    /// [`StoreError::UniqueViolation`] when the statement prefix is taken in the scope; storage failures.
    fn insert(&mut self, customer: &Customer) -> Result<(), StoreError>;

    /// The customer with `id` in `scope`, deleted ones included.
    ///
    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &CustomerId) -> Result<Option<Customer>, StoreError>;

    /// The customers of the scope among `ids`, in no set order; an id of none is left out.
    ///
    /// # Errors
    /// Storage failures.
    fn find_many(&mut self, scope: &Scope, ids: &[CustomerId]) -> Result<Vec<Customer>, StoreError>;

    /// Writes `customer` if its stored version is still `expected_version`.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; [`StoreError::UniqueViolation`] for a taken
    /// statement prefix; storage failures.
    fn update(&mut self, customer: &Customer, expected_version: i64) -> Result<(), StoreError>;

    /// A page of the scope's customers that are not deleted, newest first.
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] when the cursor names no customer of the scope; storage failures.
    fn list(
        &mut self,
        scope: &Scope,
        filter: &CustomerFilter,
        page: &PageRequest,
    ) -> Result<Page<Customer>, StoreError>;

    /// Whether a customer of the scope that is not deleted, other than `except`, uses `prefix`.
    ///
    /// # Errors
    /// Storage failures.
    fn prefix_in_use(
        &mut self,
        scope: &Scope,
        prefix: &BillingStatementPrefix,
        except: Option<&CustomerId>,
    ) -> Result<bool, StoreError>;
}
