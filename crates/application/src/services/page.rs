//! Pages: create, retrieve, update (deactivate) and list; and what a page's public address shows.

use crate::error::{ApplicationError, StateRefusal};
use crate::pagination::{Page, PageRequest};
use crate::ports::{in_transaction, reading, Clock, IdGenerator, PaymentFilter, Repositories, UnitOfWork};
use crate::scope::Scope;
use crate::services::{Access, AttachOutcome, AttachRequest, PaymentIntentService};
use payments_domain::description::Description;
use payments_domain::hosted_page::HostedPage;
use payments_domain::ids::{ClientSecret, CustomFieldId, PageId, PageLineItemId, PaymentIntentId};
use payments_domain::money::{Amount, Currency};
use payments_domain::page::{self, AfterPayment, NewPage, PageChanges, PageDetails, PageOrder, PageTemplate};
use payments_domain::payment::Payment;
use payments_domain::payment_intent::{CardOptions, NewPaymentIntent, PaymentIntent};
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

/// A page with the prices it offers, and a page of the payments of orders placed on it, newest
/// first: what the console shows of it, and reads its CSV by (one read).
#[derive(Debug, Clone)]
pub struct PagePayments {
    pub view: PageView,
    pub payments: Page<Payment>,
}

/// A customer's order on a page, for its payment page: the page, and the intent paying the order.
#[derive(Debug, Clone)]
pub struct PageOrderPage {
    pub page: page::Page,
    pub intent: PaymentIntent,
}

/// Page use cases.
pub struct PageService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    payment_intents: Arc<PaymentIntentService>,
    /// Base of the order pages' addresses.
    public_base_url: String,
}

impl PageService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        payment_intents: Arc<PaymentIntentService>,
        public_base_url: String,
    ) -> Self {
        Self { unit_of_work, clock, ids, payment_intents, public_base_url }
    }

    /// The page `id` as its public address shows it, with the prices it offers.
    ///
    /// # Errors
    /// `resource_not_found` for no such page; storage failures.
    pub fn public_view(&self, id: &str) -> Result<PageView, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let page = load_public(repositories, id)?;
            let scope = Scope::of(&page.account_id, page.livemode);
            with_offered(repositories, &scope, page)
        })
    }

    /// A customer's order on the page `id`, at its public address: checked against the page as it
    /// stands (an archived price or a deactivated page is refused), and a payment intent made for
    /// it, carrying the order as its page session, for the customer to pay.
    ///
    /// # Errors
    /// `resource_not_found` for no such page; every part of the order that breaks a rule, by the
    /// form's parameter names; storage failures.
    pub fn order(&self, id: &str, order: &PageOrder) -> Result<PaymentIntent, ApplicationError> {
        self.place(self.public_view(id)?, order)
    }

    /// An order on the scope's page `id`, placed as a customer would place it at its address: the
    /// test helper by which a merchant's tests pay a page without a browser.
    ///
    /// # Errors
    /// As [`Self::order`].
    pub fn order_in(&self, scope: &Scope, id: &str, order: &PageOrder) -> Result<PaymentIntent, ApplicationError> {
        self.place(self.view(scope, id)?, order)
    }

    fn place(&self, view: PageView, order: &PageOrder) -> Result<PaymentIntent, ApplicationError> {
        let page = &view.page;
        let scope = Scope::of(&page.account_id, page.livemode);
        let session = page
            .order(order, &view.offered, &mut || PageLineItemId::from_random(&self.ids.id_part()))
            .map_err(ApplicationError::Validation)?;
        let amount = Amount::new(session.amount).map_err(|refused| ApplicationError::invalid(refused.at("amount")))?;
        let description = Description::new(page.details.title.clone()).ok();
        let new = NewPaymentIntent {
            amount,
            currency: Currency::Php,
            payment_methods: page.details.payment_methods.clone(),
            statement_descriptor: None,
            description,
            metadata: None,
            customer_id: None,
            return_url: None,
            card_options: CardOptions::default(),
        };
        let order_page = |secret: &ClientSecret| HostedPage::PageOrder.url(&self.public_base_url, secret.reveal());
        let intent = self.payment_intents.build(&scope, new, self.clock.now_in(&scope)?).for_page(session, order_page);
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            repositories.payment_intents().insert(&intent)?;
            Ok(intent)
        })
    }

    /// The order whose payment intent's client secret is `secret`, for its payment page.
    ///
    /// # Errors
    /// `resource_not_found` for a secret that names no page's order; storage failures.
    pub fn order_page(&self, secret: &str) -> Result<PageOrderPage, ApplicationError> {
        let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: "this order".to_owned() };
        reading(self.unit_of_work.as_ref(), |repositories| {
            let id = ClientSecret::object_id(secret).and_then(PaymentIntentId::parse).ok_or_else(not_found)?;
            let intent = repositories
                .payment_intents()
                .find_for_page(&id)?
                .filter(|intent| intent.client_secret().matches(secret))
                .ok_or_else(not_found)?;
            let session = intent.page_session().ok_or_else(not_found)?;
            let page_id = PageId::parse(&session.page_id).ok_or_else(not_found)?;
            let scope = Scope::of(intent.account_id(), intent.livemode());
            let page = repositories.pages().find(&scope, &page_id)?.ok_or_else(not_found)?;
            Ok(PageOrderPage { page, intent })
        })
    }

    /// The customer pays their order on its payment page: the intent is attached as a browser
    /// with its client secret would, so concurrent submissions charge at most once.
    ///
    /// # Errors
    /// What attaching answers.
    pub fn pay(&self, order: &PageOrderPage, request: AttachRequest) -> Result<AttachOutcome, ApplicationError> {
        let intent = &order.intent;
        let access = Access::ClientSecret(Some(intent.client_secret().reveal()));
        let scope = Scope::of(intent.account_id(), intent.livemode());
        self.payment_intents.attach(&scope, intent.id().as_str(), access, request)
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

    /// The page `id` of the scope with the prices it offers, and the `page` of its payments asked.
    ///
    /// # Errors
    /// `resource_not_found`; `parameter_invalid` on `after`/`before` naming no payment; storage
    /// failures.
    pub fn payments(&self, scope: &Scope, id: &str, page: &PageRequest) -> Result<PagePayments, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let found = load(repositories, scope, id)?;
            let filter = PaymentFilter { page_id: Some(found.id.clone()), ..PaymentFilter::default() };
            let payments = repositories.payments().list(scope, &filter, page).map_err(|error| page.explain(error))?;
            let view = with_offered(repositories, scope, found)?;
            Ok(PagePayments { view, payments })
        })
    }

    /// The newest `limit` prices of the scope a new page can offer (not archived, nor their
    /// product), each with its product.
    ///
    /// # Errors
    /// Storage failures.
    pub fn offerable(&self, scope: &Scope, limit: u32) -> Result<Vec<(Price, Product)>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let prices = repositories.prices().list(scope, None, &PageRequest::newest(limit))?.data;
            let products = repositories.products().find_many(scope, &page::product_ids(&prices))?;
            let mut offered = page::offered(prices, &products);
            offered.retain(|(price, product)| page::is_sold(price, product));
            Ok(offered)
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
            Some((price, product)) if !page::is_sold(price, product) => {
                let resource = if price.active { "product" } else { "price" };
                return Err(ApplicationError::InvalidState(StateRefusal::Archived { resource }));
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

fn load_public(repositories: &mut dyn Repositories, id: &str) -> Result<page::Page, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let page_id = PageId::parse(id).ok_or_else(not_found)?;
    repositories.pages().find_public(&page_id)?.ok_or_else(not_found)
}

fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<page::Page, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let page_id = PageId::parse(id).ok_or_else(not_found)?;
    repositories.pages().find(scope, &page_id)?.ok_or_else(not_found)
}
