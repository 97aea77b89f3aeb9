//! Storage of products.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::ids::ProductId;
use payments_domain::product::Product;

/// Products, confined to a scope.
pub trait ProductRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, product: &Product) -> Result<(), StoreError>;

    /// The product `id` of the scope.
    ///
    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &ProductId) -> Result<Option<Product>, StoreError>;

    /// The products of the scope among `ids`, in no set order; an id of none is left out.
    ///
    /// # Errors
    /// Storage failures.
    fn find_many(&mut self, scope: &Scope, ids: &[ProductId]) -> Result<Vec<Product>, StoreError>;

    /// Writes `product` if its stored version is still `expected_version`.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; storage failures.
    fn update(&mut self, product: &Product, expected_version: i64) -> Result<(), StoreError>;

    /// Deletes the product `id` of the scope, which no price names.
    ///
    /// # Errors
    /// Storage failures.
    fn delete(&mut self, scope: &Scope, id: &ProductId) -> Result<(), StoreError>;

    /// A page of the scope's products, newest first.
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] when the cursor names no product of the scope; storage failures.
    fn list(&mut self, scope: &Scope, page: &PageRequest) -> Result<Page<Product>, StoreError>;
}
