//! Products.

use super::{in_scope_of, page_of, replace_versioned, State};
use crate::pagination::{Page, PageRequest};
use crate::ports::{ProductRepository, StoreError};
use crate::scope::Scope;
use payments_domain::ids::ProductId;
use payments_domain::product::Product;

impl State {
    fn products_of<'a>(&'a self, scope: &'a Scope) -> impl Iterator<Item = &'a Product> + 'a {
        self.products.iter().filter(move |product| in_scope_of(&product.account_id, product.livemode, scope))
    }
}

impl ProductRepository for State {
    fn insert(&mut self, product: &Product) -> Result<(), StoreError> {
        self.products.push(product.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &ProductId) -> Result<Option<Product>, StoreError> {
        Ok(self.products_of(scope).find(|product| &product.id == id).cloned())
    }

    fn find_many(&mut self, scope: &Scope, ids: &[ProductId]) -> Result<Vec<Product>, StoreError> {
        Ok(self.products_of(scope).filter(|product| ids.contains(&product.id)).cloned().collect())
    }

    fn update(&mut self, product: &Product, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.products, product, expected_version)
    }

    fn delete(&mut self, scope: &Scope, id: &ProductId) -> Result<(), StoreError> {
        self.products
            .retain(|product| !(in_scope_of(&product.account_id, product.livemode, scope) && &product.id == id));
        Ok(())
    }

    fn list(&mut self, scope: &Scope, page: &PageRequest) -> Result<Page<Product>, StoreError> {
        let visible: Vec<&Product> = self.products_of(scope).collect();
        page_of(&visible, |product| product.id.as_str(), page)
    }
}
