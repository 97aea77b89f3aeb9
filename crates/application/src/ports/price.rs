//! Storage of prices.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::ids::{PriceId, ProductId};
use payments_domain::price::Price;

/// Prices, confined to a scope.
pub trait PriceRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, price: &Price) -> Result<(), StoreError>;

    /// The price `id` of the scope.
    ///
    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &PriceId) -> Result<Option<Price>, StoreError>;

    /// The prices of the scope among `ids`, in no set order; an id of none is left out.
    ///
    /// # Errors
    /// Storage failures.
    fn find_many(&mut self, scope: &Scope, ids: &[PriceId]) -> Result<Vec<Price>, StoreError>;

    /// Writes `price` if its stored version is still `expected_version`.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; storage failures.
    fn update(&mut self, price: &Price, expected_version: i64) -> Result<(), StoreError>;

    /// A page of the scope's prices, of `product` only when given, newest first.
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] when the cursor names no price of the scope; storage failures.
    fn list(
        &mut self,
        scope: &Scope,
        product: Option<&ProductId>,
        page: &PageRequest,
    ) -> Result<Page<Price>, StoreError>;
}
