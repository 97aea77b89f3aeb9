//! Pages.

use super::{in_scope_of, page_of, replace_versioned, State};
use crate::pagination::{Page, PageRequest};
use crate::ports::{PageRepository, StoreError};
use crate::scope::Scope;
use payments_domain::ids::PageId;
use payments_domain::page;

impl State {
    fn pages_of<'a>(&'a self, scope: &'a Scope) -> impl Iterator<Item = &'a page::Page> + 'a {
        self.pages.iter().filter(move |page| in_scope_of(&page.account_id, page.livemode, scope))
    }
}

impl PageRepository for State {
    fn insert(&mut self, page: &page::Page) -> Result<(), StoreError> {
        self.pages.push(page.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &PageId) -> Result<Option<page::Page>, StoreError> {
        Ok(self.pages_of(scope).find(|page| &page.id == id).cloned())
    }

    fn find_public(&mut self, id: &PageId) -> Result<Option<page::Page>, StoreError> {
        Ok(self.pages.iter().find(|page| &page.id == id).cloned())
    }

    fn update(&mut self, page: &page::Page, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.pages, page, expected_version)
    }

    fn list(&mut self, scope: &Scope, page: &PageRequest) -> Result<Page<page::Page>, StoreError> {
        let visible: Vec<&page::Page> = self.pages_of(scope).collect();
        page_of(&visible, |page| page.id.as_str(), page)
    }
}
