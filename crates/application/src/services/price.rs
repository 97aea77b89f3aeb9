//! Prices: create for an active product, retrieve, update (archive) and list.

use crate::error::{ApplicationError, StateRefusal};
use crate::pagination::{Page, PageRequest};
use crate::ports::{in_transaction, reading, Clock, IdGenerator, Repositories, UnitOfWork};
use crate::scope::Scope;
use payments_domain::ids::{PriceId, ProductId};
use payments_domain::price::{NewPrice, Price, PriceChanges};
use payments_domain::validation::FieldError;
use std::sync::Arc;

const RESOURCE: &str = "price";

/// Price use cases.
pub struct PriceService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
}

impl PriceService {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>, clock: Arc<dyn Clock>, ids: Arc<dyn IdGenerator>) -> Self {
        Self { unit_of_work, clock, ids }
    }

    /// # Errors
    /// `resource_not_found` on `product_id` for no such product of the scope,
    /// `resource_invalid_state` for an archived one; storage failures.
    pub fn create(&self, scope: &Scope, new: NewPrice) -> Result<Price, ApplicationError> {
        let id = PriceId::from_random(&self.ids.id_part());
        let price = Price::create(id, scope.account_id.clone(), scope.livemode(), new, self.clock.now_in(scope)?);
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            match repositories.products().find(scope, &price.product_id)? {
                None => {
                    let detail = format!("No product with id {} exists.", price.product_id);
                    return Err(ApplicationError::invalid(FieldError::missing("product_id", detail)));
                }
                Some(product) if !product.active => {
                    return Err(ApplicationError::InvalidState(StateRefusal::Archived { resource: "product" }));
                }
                Some(_) => {}
            }
            repositories.prices().insert(&price)?;
            Ok(price)
        })
    }

    /// # Errors
    /// `resource_not_found` when no such price exists in the scope; storage failures.
    pub fn retrieve(&self, scope: &Scope, id: &str) -> Result<Price, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| load(repositories, scope, id))
    }

    /// Applies an update; `active: false` archives the price.
    ///
    /// # Errors
    /// `resource_not_found`; `resource_conflict` when a concurrent update won; storage failures.
    pub fn update(&self, scope: &Scope, id: &str, changes: PriceChanges) -> Result<Price, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut price = load(repositories, scope, id)?;
            let expected_version = price.version;
            price.update(changes, now);
            repositories.prices().update(&price, expected_version)?;
            Ok(price)
        })
    }

    /// A page of the scope's prices, of `product` only when given, newest first.
    ///
    /// # Errors
    /// `parameter_invalid` on `after`/`before` naming no price; storage failures.
    pub fn list(
        &self,
        scope: &Scope,
        product: Option<&ProductId>,
        page: &PageRequest,
    ) -> Result<Page<Price>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.prices().list(scope, product, page).map_err(|error| page.explain(error))
        })
    }
}

fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<Price, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let price_id = PriceId::parse(id).ok_or_else(not_found)?;
    repositories.prices().find(scope, &price_id)?.ok_or_else(not_found)
}
