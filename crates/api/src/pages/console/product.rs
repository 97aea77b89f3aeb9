//! Products in the console: the list with a form that makes one; one product with its prices, and
//! forms that edit, archive or delete it, add a price (typed in pesos) and archive a price. Each
//! form is read by the API's reader and runs the service the API's route runs.

use super::badge::{Badge, Offered};
use super::json::to_html;
use super::{
    after_action, after_success, amounts_in_centavos, date_time, load, page, refused, Action, Chrome, Pager, Signed,
};
use crate::formatting::pesos;
use crate::pages::hosted::not_allowed;
use crate::representation::price::PriceResource;
use crate::representation::product::ProductResource;
use crate::routes::price::{new_price, price_changes};
use crate::routes::product::{new_product, product_changes};
use crate::state::{blocking, Services};
use actix_web::http::Method;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use payments_application::pagination::PageRequest;
use payments_application::services::ProductPage;
use payments_domain::price::Price;
use payments_domain::product::Product;

pub(super) const LIST: &str = "/dashboard/products";

pub(super) fn configure(config: &mut web::ServiceConfig) {
    let get_or_post = || not_allowed(&[Method::GET, Method::POST], "Open the page.", false);
    config
        .service(
            web::resource(LIST)
                .route(crate::routes::get_or_head().to(list))
                .route(web::post().to(create))
                .default_service(get_or_post()),
        )
        .service(
            web::resource(format!("{LIST}/{{id}}"))
                .route(crate::routes::get_or_head().to(detail))
                .route(web::post().to(update))
                .default_service(get_or_post()),
        );
    super::form(config, format!("{LIST}/{{id}}/delete"), delete);
    super::form(config, format!("{LIST}/{{id}}/prices"), add_price);
    super::form(config, format!("{LIST}/{{id}}/prices/{{price}}"), update_price);
}

/// Whether a product or a price is sold.
fn offered(active: bool) -> Offered {
    if active {
        Offered::Active
    } else {
        Offered::Archived
    }
}

struct ProductRow {
    id: String,
    name: String,
    description: String,
    image: String,
    status: &'static str,
    tone: &'static str,
    active: bool,
    created: String,
}

impl ProductRow {
    fn of(product: &Product) -> Self {
        let status = offered(product.active);
        Self {
            id: product.id.to_string(),
            name: product.name.as_str().to_owned(),
            description: product.description.as_ref().map(|text| text.as_str().to_owned()).unwrap_or_default(),
            image: product.image.clone().unwrap_or_default(),
            status: status.name(),
            tone: status.tone().class(),
            active: product.active,
            created: date_time(product.created_at),
        }
    }
}

pub(super) struct PriceRow {
    pub id: String,
    pub amount: String,
    pub description: String,
    pub status: &'static str,
    pub tone: &'static str,
    pub active: bool,
    pub created: String,
}

impl PriceRow {
    pub(super) fn of(price: &Price) -> Self {
        let status = offered(price.active);
        Self {
            id: price.id.to_string(),
            amount: pesos(price.amount.centavos()),
            description: price.description.as_ref().map(|text| text.as_str().to_owned()).unwrap_or_default(),
            status: status.name(),
            tone: status.tone().class(),
            active: price.active,
            created: date_time(price.created_at),
        }
    }
}

#[derive(Template)]
#[template(path = "console/products.html")]
struct ListPage {
    chrome: Chrome,
    rows: Vec<ProductRow>,
    pager: Pager,
}

async fn list(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let found = super::listed(
        &signed,
        &request,
        LIST,
        super::page_only,
        move |scope, (), page| services.products.list(scope, page),
        |product| product.id.as_str(),
    );
    let (_, products, pager) = match found.await {
        Ok(listed) => listed,
        Err(page) => return page,
    };
    let rows = products.iter().map(ProductRow::of).collect();
    page(ListPage { chrome: Chrome::new(&signed, "Products"), rows, pager }.render())
}

async fn create(action: Action, services: web::Data<Services>) -> HttpResponse {
    let Action { signed, params } = action;
    let new = match super::read_form(params, new_product, LIST) {
        Ok(new) => new,
        Err(page) => return *page,
    };
    let scope = signed.scope();
    match blocking(move || services.products.create(&scope, new)).await {
        Ok(product) => after_success(&format!("{LIST}/{}?done=created", product.id), product_json(&product)),
        Err(error) => refused(&error, LIST),
    }
}

#[derive(Template)]
#[template(path = "console/product.html")]
struct DetailPage {
    chrome: Chrome,
    row: ProductRow,
    notice: Option<&'static str>,
    prices: Vec<PriceRow>,
    /// More prices than the page shows.
    more_prices: bool,
    json: String,
}

fn product_json(product: &Product) -> serde_json::Value {
    serde_json::to_value(ProductResource::from(product)).unwrap_or_default()
}

async fn detail(
    signed: Signed,
    id: web::Path<String>,
    request: HttpRequest,
    services: web::Data<Services>,
) -> HttpResponse {
    let scope = signed.scope();
    let prices = PageRequest::newest(PageRequest::MAX_LIMIT);
    let read = match load(move || services.products.page(&scope, &id, &prices)).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    let ProductPage { product, prices } = read;
    let notice = super::notice(
        &request,
        &[
            ("created", "Created. Add its prices below."),
            ("updated", "Saved."),
            ("price_added", "Price added."),
            ("price_updated", "Price saved."),
        ],
    );
    page(
        DetailPage {
            chrome: Chrome::new(&signed, "Products"),
            row: ProductRow::of(&product),
            notice,
            prices: prices.data.iter().map(PriceRow::of).collect(),
            more_prices: prices.has_more,
            json: to_html(&product_json(&product)),
        }
        .render(),
    )
}

/// Edit, archive (`active=false`) or restore (`active=true`) the product.
async fn update(action: Action, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let Action { signed, params } = action;
    let back = format!("{LIST}/{id}");
    let changes = match super::read_form(params, product_changes, &back) {
        Ok(changes) => changes,
        Err(page) => return *page,
    };
    let scope = signed.scope();
    super::act(&back, "updated", move || Ok(product_json(&services.products.update(&scope, &id, changes)?))).await
}

async fn delete(action: Action, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let back = format!("{LIST}/{id}");
    let scope = action.signed.scope();
    match blocking(move || services.products.delete(&scope, &id)).await {
        Ok(product) => {
            let mut response = after_action(LIST);
            response.extensions_mut().insert(crate::request_log::LoggedBody(product_json(&product).to_string()));
            response
        }
        Err(error) => refused(&error, &back),
    }
}

/// A new price of the product, its amount typed in pesos.
async fn add_price(action: Action, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let Action { signed, params } = action;
    let back = format!("{LIST}/{id}");
    // The product is the page's, as the API's `product_id`.
    let mut values = params.into_values();
    values.insert("product_id".into(), serde_json::Value::String(id.into_inner()));
    let params = match amounts_in_centavos(crate::decode::Params::new(values), &["amount"]) {
        Ok(params) => params,
        Err(error) => return refused(&error, &back),
    };
    let new = match super::read_form(params, new_price, &back) {
        Ok(new) => new,
        Err(page) => return *page,
    };
    let scope = signed.scope();
    super::act(&back, "price_added", move || Ok(price_json(&services.prices.create(&scope, new)?))).await
}

/// Archive (`active=false`) or restore a price of the product.
async fn update_price(
    action: Action,
    path: web::Path<(String, String)>,
    services: web::Data<Services>,
) -> HttpResponse {
    let Action { signed, params } = action;
    let (product, price) = path.into_inner();
    let back = format!("{LIST}/{product}");
    let changes = match super::read_form(params, price_changes, &back) {
        Ok(changes) => changes,
        Err(page) => return *page,
    };
    let scope = signed.scope();
    super::act(&back, "price_updated", move || Ok(price_json(&services.prices.update(&scope, &price, changes)?))).await
}

fn price_json(price: &Price) -> serde_json::Value {
    serde_json::to_value(PriceResource::from(price)).unwrap_or_default()
}
