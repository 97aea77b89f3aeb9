//! Products: create, retrieve, update (archive), delete while unpriced, and list.

use crate::error::{ApplicationError, StateRefusal};
use crate::pagination::{Page, PageRequest};
use crate::ports::{in_transaction, reading, Clock, IdGenerator, Repositories, UnitOfWork};
use crate::scope::Scope;
use payments_domain::ids::ProductId;
use payments_domain::price::Price;
use payments_domain::product::{NewProduct, Product, ProductChanges};
use std::sync::Arc;

const RESOURCE: &str = "product";

/// A product with its prices, newest first, as the console shows it (one read).
#[derive(Debug, Clone)]
pub struct ProductPage {
    pub product: Product,
    pub prices: Page<Price>,
}

/// Product use cases.
pub struct ProductService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
}

impl ProductService {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>, clock: Arc<dyn Clock>, ids: Arc<dyn IdGenerator>) -> Self {
        Self { unit_of_work, clock, ids }
    }

    /// # Errors
    /// Storage failures.
    pub fn create(&self, scope: &Scope, new: NewProduct) -> Result<Product, ApplicationError> {
        let id = ProductId::from_random(&self.ids.id_part());
        let product = Product::create(id, scope.account_id.clone(), scope.livemode(), new, self.clock.now_in(scope)?);
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            repositories.products().insert(&product)?;
            Ok(product)
        })
    }

    /// # Errors
    /// `resource_not_found` when no such product exists in the scope; storage failures.
    pub fn retrieve(&self, scope: &Scope, id: &str) -> Result<Product, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| load(repositories, scope, id))
    }

    /// Applies an update; `active: false` archives the product.
    ///
    /// # Errors
    /// `resource_not_found`; `resource_conflict` when a concurrent update won; storage failures.
    pub fn update(&self, scope: &Scope, id: &str, changes: ProductChanges) -> Result<Product, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut product = load(repositories, scope, id)?;
            let expected_version = product.version;
            product.update(changes, now);
            repositories.products().update(&product, expected_version)?;
            Ok(product)
        })
    }

    /// Deletes a product no price names; a priced product is archived instead (its prices may
    /// have been sold, and a payment's page session names it).
    ///
    /// # Errors
    /// `resource_not_found`; `resource_invalid_state` for a priced product; storage failures.
    pub fn delete(&self, scope: &Scope, id: &str) -> Result<Product, ApplicationError> {
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let product = load(repositories, scope, id)?;
            let one = PageRequest::new(Some(1), None, None).map_err(ApplicationError::Validation)?;
            if !repositories.prices().list(scope, Some(&product.id), &one)?.data.is_empty() {
                return Err(ApplicationError::InvalidState(StateRefusal::ProductPriced));
            }
            repositories.products().delete(scope, &product.id)?;
            Ok(product)
        })
    }

    /// The product `id` with its first `prices`, newest first.
    ///
    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn page(&self, scope: &Scope, id: &str, prices: &PageRequest) -> Result<ProductPage, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let product = load(repositories, scope, id)?;
            let prices = repositories.prices().list(scope, Some(&product.id), prices)?;
            Ok(ProductPage { product, prices })
        })
    }

    /// A page of the scope's products, newest first.
    ///
    /// # Errors
    /// `parameter_invalid` on `after`/`before` naming no product; storage failures.
    pub fn list(&self, scope: &Scope, page: &PageRequest) -> Result<Page<Product>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.products().list(scope, page).map_err(|error| page.explain(error))
        })
    }
}

fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<Product, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let product_id = ProductId::parse(id).ok_or_else(not_found)?;
    repositories.products().find(scope, &product_id)?.ok_or_else(not_found)
}
