//! Pages: create, retrieve, update (deactivate) and list; and what a page's public address shows.

use crate::error::ApplicationError;
use crate::pagination::{Page, PageRequest};
use crate::ports::{in_transaction, reading, Clock, IdGenerator, Repositories, UnitOfWork};
use crate::scope::Scope;
use payments_domain::ids::{CustomFieldId, PageId};
use payments_domain::page::{self, AfterPayment, NewPage, PageChanges, PageDetails, PageTemplate};
use payments_domain::price::Price;
use payments_domain::product::Product;
use payments_domain::validation::FieldError;
use std::sync::Arc;

const RESOURCE: &str = "page";

/// A page with the prices it offers and their products, as they stand: what its public address
/// and the console show.
#[derive(Debug, Clone)]
pub struct PageView {
    pub page: page::Page,
    pub offered: Vec<(Price, Product)>,
}

/// Page use cases.
pub struct PageService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
}

impl PageService {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>, clock: Arc<dyn Clock>, ids: Arc<dyn IdGenerator>) -> Self {
        Self { unit_of_work, clock, ids }
    }

    /// Creates a page; a storefront's prices must be the scope's and offered.
    ///
    /// # Errors
    /// Every rule the page breaks (`parameter_invalid` and the like, `resource_not_found` on
    /// `prices` for a price of none); storage failures.
    pub fn create(&self, scope: &Scope, new: NewPage) -> Result<page::Page, ApplicationError> {
        let details = new.details(&mut || CustomFieldId::from_random(&self.ids.id_part()));
        check(scope, &details)?;
        let id = PageId::from_random(&self.ids.id_part());
        let page =
            page::Page::create(id, scope.account_id.clone(), scope.livemode(), details, self.clock.now_in(scope)?);
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            ensure_offered(repositories, scope, &page.details)?;
            repositories.pages().insert(&page)?;
            Ok(page)
        })
    }

    /// # Errors
    /// `resource_not_found` when no such page exists in the scope; storage failures.
    pub fn retrieve(&self, scope: &Scope, id: &str) -> Result<page::Page, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| load(repositories, scope, id))
    }

    /// Applies an update; `active: false` deactivates the page.
    ///
    /// # Errors
    /// As [`Self::create`]; `resource_not_found`; `resource_conflict` when a concurrent update won.
    pub fn update(&self, scope: &Scope, id: &str, changes: PageChanges) -> Result<page::Page, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut page = load(repositories, scope, id)?;
            let expected_version = page.version;
            let active = changes.active;
            let changes_details = changes.title.is_some()
                || changes.description.is_some()
                || changes.template.is_some()
                || changes.custom_fields.is_some()
                || changes.payment_methods.is_some()
                || changes.after_payment.is_some();
            let details = changes_details
                .then(|| changes.applied_to(&page.details, &mut || CustomFieldId::from_random(&self.ids.id_part())));
            if let Some(details) = &details {
                check(scope, details)?;
                ensure_offered(repositories, scope, details)?;
            }
            page.update(details, active, now);
            repositories.pages().update(&page, expected_version)?;
            Ok(page)
        })
    }

    /// A page of the scope's pages, newest first.
    ///
    /// # Errors
    /// `parameter_invalid` on `after`/`before` naming no page; storage failures.
    pub fn list(&self, scope: &Scope, page: &PageRequest) -> Result<Page<page::Page>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.pages().list(scope, page).map_err(|error| page.explain(error))
        })
    }

    /// The page `id` of the scope with the prices it offers.
    ///
    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn view(&self, scope: &Scope, id: &str) -> Result<PageView, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let page = load(repositories, scope, id)?;
            with_offered(repositories, scope, page)
        })
    }
}

/// The page with the prices it offers and their products, one read each.
fn with_offered(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    page: page::Page,
) -> Result<PageView, ApplicationError> {
    let PageTemplate::Storefront { prices } = &page.details.template else {
        return Ok(PageView { page, offered: Vec::new() });
    };
    let found = repositories.prices().find_many(scope, prices)?;
    let products = repositories.products().find_many(scope, &page::product_ids(&found))?;
    let mut offered = page::offered(found, &products);
    offered.sort_by_key(|(price, _)| prices.iter().position(|id| id == &price.id));
    Ok(PageView { page, offered })
}

/// The page's own rules, and a redirect after payment that the scope's mode allows (`https` in
/// live mode).
fn check(scope: &Scope, details: &PageDetails) -> Result<(), ApplicationError> {
    details.check().map_err(ApplicationError::Validation)?;
    if let AfterPayment::Redirect(url) = &details.after_payment {
        url.allowed_in(scope.livemode())
            .map_err(|refused| ApplicationError::invalid(refused.at("after_payment_redirect_url")))?;
    }
    Ok(())
}

/// Refuses a storefront offering a price that is not the scope's, or is archived (or of an
/// archived product).
fn ensure_offered(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    details: &PageDetails,
) -> Result<(), ApplicationError> {
    let PageTemplate::Storefront { prices } = &details.template else { return Ok(()) };
    let found = repositories.prices().find_many(scope, prices)?;
    let products = repositories.products().find_many(scope, &page::product_ids(&found))?;
    let offered = page::offered(found, &products);
    let mut errors = Vec::new();
    for (position, id) in prices.iter().enumerate() {
        let parameter = format!("prices[{position}]");
        match offered.iter().find(|(price, _)| &price.id == id) {
            None => errors.push(FieldError::missing(parameter, format!("No price with id {id} exists."))),
            Some((price, product)) if !price.active || !product.active => {
                errors.push(FieldError::invalid(parameter, format!("The price {id} is archived.")));
            }
            Some(_) => {}
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ApplicationError::Validation(errors))
    }
}

fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<page::Page, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let page_id = PageId::parse(id).ok_or_else(not_found)?;
    repositories.pages().find(scope, &page_id)?.ok_or_else(not_found)
}
