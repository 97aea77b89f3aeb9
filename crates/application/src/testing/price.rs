//! Prices.

use super::{filtered_page_of, in_scope_of, replace_versioned, State};
use crate::pagination::{Page, PageRequest};
use crate::ports::{PriceRepository, StoreError};
use crate::scope::Scope;
use payments_domain::ids::{PriceId, ProductId};
use payments_domain::price::Price;

impl State {
    fn prices_of<'a>(&'a self, scope: &'a Scope) -> impl Iterator<Item = &'a Price> + 'a {
        self.prices.iter().filter(move |price| in_scope_of(&price.account_id, price.livemode, scope))
    }
}

impl PriceRepository for State {
    fn insert(&mut self, price: &Price) -> Result<(), StoreError> {
        self.prices.push(price.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &PriceId) -> Result<Option<Price>, StoreError> {
        Ok(self.prices_of(scope).find(|price| &price.id == id).cloned())
    }

    fn find_many(&mut self, scope: &Scope, ids: &[PriceId]) -> Result<Vec<Price>, StoreError> {
        Ok(self.prices_of(scope).filter(|price| ids.contains(&price.id)).cloned().collect())
    }

    fn update(&mut self, price: &Price, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.prices, price, expected_version)
    }

    fn list(
        &mut self,
        scope: &Scope,
        product: Option<&ProductId>,
        page: &PageRequest,
    ) -> Result<Page<Price>, StoreError> {
        let in_scope: Vec<&Price> = self.prices_of(scope).collect();
        let of_product = |price: &Price| product.is_none_or(|product| &price.product_id == product);
        filtered_page_of(&in_scope, |price| price.id.as_str(), of_product, page)
    }
}
