//! Storage of pages.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::ids::PageId;
use payments_domain::page;

/// Pages, confined to a scope.
pub trait PageRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, page: &page::Page) -> Result<(), StoreError>;

    /// The page `id` of the scope.
    ///
    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &PageId) -> Result<Option<page::Page>, StoreError>;

    /// The page `id`, of whichever scope: its public address names no account.
    ///
    /// # Errors
    /// Storage failures.
    fn find_public(&mut self, id: &PageId) -> Result<Option<page::Page>, StoreError>;

    /// Writes `page` if its stored version is still `expected_version`.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; storage failures.
    fn update(&mut self, page: &page::Page, expected_version: i64) -> Result<(), StoreError>;

    /// A page of the scope's pages, newest first.
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] when the cursor names no page of the scope; storage failures.
    fn list(&mut self, scope: &Scope, page: &PageRequest) -> Result<Page<page::Page>, StoreError>;
}
