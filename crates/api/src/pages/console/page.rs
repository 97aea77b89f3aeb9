//! Pages in the console: the list; a form that makes a page (amounts typed in pesos, a dropdown's
//! options one per line) from the prices the account sells; one page with its public address, what
//! it asks, forms that edit or deactivate it, and the payments of its orders with each customer's
//! answers, a page at a time and all of them as CSV. Each form is read by the API's reader and runs
//! the service the API's route runs.

use super::badge::{Badge, Offered};
use super::csv_file::{spreadsheet_safe, Rows};
use super::json::to_html;
use super::{
    after_success, amounts_in_centavos, date_time, load, page, refused, Action, Chrome, ListQuery, Pager, Signed,
};
use crate::decode::Params;
use crate::error::ApiError;
use crate::formatting::pesos;
use crate::pages::hosted::not_allowed;
use crate::representation::page::PageResource;
use crate::routes::page::{new_page, page_changes};
use crate::state::{blocking, Services};
use actix_web::http::Method;
use actix_web::web::Bytes;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use payments_application::pagination::PageRequest;
use payments_application::services::PagePayments;
use payments_application::{ApplicationError, Scope};
use payments_domain::hosted_page::HostedPage;
use payments_domain::page::{AfterPayment, FieldKind, Page, PageLineItem, PageTemplate};
use payments_domain::payment::Payment;
use payments_domain::payment_method::PaymentMethodType;
use serde_json::Value;

const LIST: &str = "/dashboard/pages";
/// Payments a page's page shows at once.
const PAYMENTS_SHOWN: u32 = 25;
/// Prices the form that makes a page offers to choose from.
const PRICES_OFFERED: u32 = 100;
/// Rows of custom fields the form that makes a page has.
const FIELD_ROWS: usize = 3;
/// The CSV's first columns; one per custom field of the page follows.
const CSV_COLUMNS: [&str; 8] =
    ["payment_id", "created_at", "status", "amount", "amount_refunded", "customer_name", "customer_email", "items"];

pub(super) fn configure(config: &mut web::ServiceConfig) {
    let get_or_post = || not_allowed(&[Method::GET, Method::POST], "Open the page.", false);
    config.service(
        web::resource(LIST)
            .route(crate::routes::get_or_head().to(list))
            .route(web::post().to(create))
            .default_service(get_or_post()),
    );
    super::one_page(config, &format!("{LIST}/new"), new_form);
    config.service(
        web::resource(format!("{LIST}/{{id}}"))
            .route(crate::routes::get_or_head().to(detail))
            .route(web::post().to(update))
            .default_service(get_or_post()),
    );
    super::one_page(config, &format!("{LIST}/{{id}}/payments.csv"), csv);
}

/// A page as a row of the list and as the facts of its own page.
struct PageRow {
    id: String,
    title: String,
    description: String,
    template: String,
    status: &'static str,
    tone: &'static str,
    active: bool,
    public_url: String,
    methods: String,
    after_payment: String,
    message: String,
    redirect_url: String,
    created: String,
}

impl PageRow {
    fn of(page: &Page, public_base_url: &str) -> Self {
        let details = &page.details;
        let status = if page.active { Offered::Active } else { Offered::Inactive };
        let template = match &details.template {
            PageTemplate::Storefront { prices } if prices.len() == 1 => "Storefront of 1 price".to_owned(),
            PageTemplate::Storefront { prices } => format!("Storefront of {} prices", prices.len()),
            PageTemplate::FixedAmount { amount } => format!("Fixed amount of {}", pesos(amount.centavos())),
            PageTemplate::CustomerChosenAmount { minimum, maximum } => {
                format!("Amount chosen by the customer, {} to {}", pesos(minimum.centavos()), pesos(maximum.centavos()))
            }
        };
        let (after_payment, message, redirect_url) = match &details.after_payment {
            AfterPayment::Message(text) => (format!("Shows “{text}”"), text.clone(), String::new()),
            AfterPayment::Redirect(url) => {
                (format!("Sends the customer to {}", url.as_str()), String::new(), url.as_str().to_owned())
            }
        };
        Self {
            id: page.id.to_string(),
            title: details.title.clone(),
            description: details.description.as_ref().map(|text| text.as_str().to_owned()).unwrap_or_default(),
            template,
            status: status.name(),
            tone: status.tone().class(),
            active: page.active,
            public_url: HostedPage::Page.url(public_base_url, page.id.as_str()),
            methods: details.payment_methods.iter().map(|method| method.as_str()).collect::<Vec<_>>().join(", "),
            after_payment,
            message,
            redirect_url,
            created: date_time(page.created_at),
        }
    }
}

#[derive(Template)]
#[template(path = "console/pages.html")]
struct ListPage {
    chrome: Chrome,
    rows: Vec<PageRow>,
    pager: Pager,
}

async fn list(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let base = services.public_base_url.clone();
    let found = super::listed(
        &signed,
        &request,
        LIST,
        super::page_only,
        move |scope, (), page| services.pages.list(scope, page),
        |page| page.id.as_str(),
    );
    let (_, pages, pager) = match found.await {
        Ok(listed) => listed,
        Err(page) => return page,
    };
    let rows = pages.iter().map(|found| PageRow::of(found, &base)).collect();
    page(ListPage { chrome: Chrome::new(&signed, "Pages"), rows, pager }.render())
}

/// A price the form that makes a page offers.
struct Choice {
    id: String,
    label: String,
}

#[derive(Template)]
#[template(path = "console/page_new.html")]
struct NewPageForm {
    chrome: Chrome,
    prices: Vec<Choice>,
    methods: Vec<&'static str>,
    field_rows: Vec<usize>,
}

async fn new_form(signed: Signed, services: web::Data<Services>) -> HttpResponse {
    let scope = signed.scope();
    let offerable = match load(move || services.pages.offerable(&scope, PRICES_OFFERED)).await {
        Ok(offerable) => offerable,
        Err(response) => return response,
    };
    let prices = offerable
        .iter()
        .map(|(price, product)| {
            let description =
                price.description.as_ref().map(|text| format!(" ({})", text.as_str())).unwrap_or_default();
            Choice {
                id: price.id.to_string(),
                label: format!("{}{description}: {}", product.name.as_str(), pesos(price.amount.centavos())),
            }
        })
        .collect();
    let methods = PaymentMethodType::ALL.iter().map(|method| method.as_str()).collect();
    page(
        NewPageForm { chrome: Chrome::new(&signed, "Pages"), prices, methods, field_rows: (0..FIELD_ROWS).collect() }
            .render(),
    )
}

/// The form's values as the API's reader takes them: amounts in centavos, a dropdown's options a
/// list rather than lines.
fn as_the_api_takes_it(params: Params) -> Result<Params, ApiError> {
    let params = amounts_in_centavos(params, &["amount", "minimum_amount", "maximum_amount"])?;
    let mut values = params.into_values();
    if let Some(Value::Array(fields)) = values.get_mut("custom_fields") {
        for field in fields.iter_mut() {
            if let Some(Value::String(lines)) = field.get("options") {
                let options = lines.lines().map(str::trim).filter(|line| !line.is_empty()).map(Value::from).collect();
                field["options"] = Value::Array(options);
            }
        }
    }
    Ok(Params::new(values))
}

async fn create(action: Action, services: web::Data<Services>) -> HttpResponse {
    let Action { signed, params } = action;
    let back = format!("{LIST}/new");
    let params = match as_the_api_takes_it(params) {
        Ok(params) => params,
        Err(error) => return refused(&error, &back),
    };
    let new = match super::read_form(params, new_page, &back) {
        Ok(new) => new,
        Err(page) => return *page,
    };
    let scope = signed.scope();
    match blocking(move || services.pages.create(&scope, new)).await {
        Ok(made) => after_success(&format!("{LIST}/{}?done=created", made.id), page_json(&made)),
        Err(error) => refused(&error, &back),
    }
}

fn page_json(page: &Page) -> Value {
    serde_json::to_value(PageResource::from(page)).unwrap_or_default()
}

/// A question of the page, as its page lists it.
struct FieldRow {
    name: String,
    kind: String,
    required: bool,
}

/// A line of the page's storefront.
struct OfferedRow {
    product: String,
    product_id: String,
    price: String,
    amount: String,
    /// Whether it is still sold, as a badge.
    status: &'static str,
    tone: &'static str,
}

/// A payment of an order on the page, with the customer's answers in the page's fields' order.
struct PaymentRow {
    id: String,
    paid: String,
    amount: String,
    status: &'static str,
    tone: &'static str,
    customer: String,
    items: String,
    answers: Vec<String>,
}

#[derive(Template)]
#[template(path = "console/page.html")]
struct DetailPage {
    chrome: Chrome,
    row: PageRow,
    notice: Option<&'static str>,
    fields: Vec<FieldRow>,
    offered: Vec<OfferedRow>,
    storefront: bool,
    payments: Vec<PaymentRow>,
    pager: Pager,
    json: String,
}

async fn detail(
    signed: Signed,
    id: web::Path<String>,
    request: HttpRequest,
    services: web::Data<Services>,
) -> HttpResponse {
    let base = format!("{LIST}/{id}");
    let (query, mut shown) = match ListQuery::read_page(&request, &base) {
        Ok(read) => read,
        Err(page) => return *page,
    };
    if query.filter("limit").is_empty() && shown.limit() > PAYMENTS_SHOWN {
        shown = PageRequest::newest(PAYMENTS_SHOWN);
    }
    let scope = signed.scope();
    let public_base_url = services.public_base_url.clone();
    let read = match load(move || services.pages.payments(&scope, &id, &shown)).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    let PagePayments { view, payments } = read;
    let found = &view.page;
    let ids: Vec<&str> = payments.data.iter().map(|payment| payment.id().as_str()).collect();
    let pager = query.pager(&base, &ids, payments.has_more);
    let notice = super::notice(
        &request,
        &[("created", "Created. Share its address: every customer who opens it can pay."), ("updated", "Saved.")],
    );
    let fields = found
        .details
        .custom_fields
        .iter()
        .map(|field| FieldRow { name: field.name.clone(), kind: field_kind(&field.kind), required: field.required })
        .collect();
    let offered = view
        .offered
        .iter()
        .map(|(price, product)| OfferedRow {
            product: product.name.as_str().to_owned(),
            product_id: product.id.to_string(),
            price: price.description.as_ref().map(|text| text.as_str().to_owned()).unwrap_or_default(),
            amount: pesos(price.amount.centavos()),
            status: sold_badge(price, product).name(),
            tone: sold_badge(price, product).tone().class(),
        })
        .collect();
    let rows = payments.data.iter().map(|payment| payment_row(found, payment)).collect();
    page(
        DetailPage {
            chrome: Chrome::new(&signed, "Pages"),
            row: PageRow::of(found, &public_base_url),
            notice,
            fields,
            offered,
            storefront: matches!(found.details.template, PageTemplate::Storefront { .. }),
            payments: rows,
            pager,
            json: to_html(&page_json(found)),
        }
        .render(),
    )
}

/// Whether the page still sells a price, as the domain says.
fn sold_badge(price: &payments_domain::price::Price, product: &payments_domain::product::Product) -> Offered {
    if payments_domain::page::is_sold(price, product) {
        Offered::Active
    } else {
        Offered::Archived
    }
}

/// A custom field's kind and bounds, in words.
fn field_kind(kind: &FieldKind) -> String {
    match kind {
        FieldKind::Text { max_length } => format!("Text, at most {max_length} characters"),
        FieldKind::Number { minimum, maximum } => match (minimum, maximum) {
            (Some(minimum), Some(maximum)) => format!("Whole number from {minimum} to {maximum}"),
            (Some(minimum), None) => format!("Whole number, at least {minimum}"),
            (None, Some(maximum)) => format!("Whole number, at most {maximum}"),
            (None, None) => "Whole number".to_owned(),
        },
        FieldKind::Dropdown { options } => format!("One of: {}", options.join(", ")),
    }
}

fn payment_row(page: &Page, payment: &Payment) -> PaymentRow {
    let billing = payment.billing();
    let customer = [billing.and_then(|b| b.name.clone()), billing.and_then(|b| b.email.clone())]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ");
    PaymentRow {
        id: payment.id().to_string(),
        paid: date_time(payment.created_at()),
        amount: pesos(payment.amount()),
        status: payment.status().name(),
        tone: payment.status().tone().class(),
        customer,
        items: items(payment),
        answers: answers(page, payment),
    }
}

/// The storefront lines of the payment's order, in words: `2 × Mug (Large)`.
fn items(payment: &Payment) -> String {
    let Some(session) = payment.page_session() else { return String::new() };
    session
        .line_items
        .iter()
        .map(|PageLineItem { quantity, product_name, price_description, .. }| match price_description {
            Some(price) => format!("{quantity} × {product_name} ({price})"),
            None => format!("{quantity} × {product_name}"),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The customer's answer to each of the page's custom fields, in their order (empty for one not
/// answered, or asked after the payment).
fn answers(page: &Page, payment: &Payment) -> Vec<String> {
    let given = payment.page_session().map(|session| session.custom_fields.as_slice()).unwrap_or_default();
    page.details
        .custom_fields
        .iter()
        .map(|field| {
            given
                .iter()
                .find(|answer| answer.id == field.id.as_str())
                .map(|answer| answer.value.clone())
                .unwrap_or_default()
        })
        .collect()
}

/// Edit the page's title, description or what follows payment; deactivate (`active=false`) or
/// reactivate it.
async fn update(action: Action, id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    let Action { signed, params } = action;
    let back = format!("{LIST}/{id}");
    let changes = match super::read_form(params, page_changes, &back) {
        Ok(changes) => changes,
        Err(page) => return *page,
    };
    let scope = signed.scope();
    super::act(&back, "updated", move || Ok(page_json(&services.pages.update(&scope, &id, changes)?))).await
}

/// The payments of the page's orders as CSV, newest first: streamed a read at a time, with one
/// column per custom field the page asks.
async fn csv(signed: Signed, request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    let scope = signed.scope();
    let id = request.match_info().get("id").unwrap_or_default().to_owned();
    // The first read answers a page that is not there with the console's page, before any byte of
    // the file.
    let first = {
        let (services, scope, id) = (services.clone(), scope.clone(), id.clone());
        load(move || services.pages.payments(&scope, &id, &PageRequest::newest(PageRequest::MAX_LIMIT))).await
    };
    let first = match first {
        Ok(first) => first,
        Err(response) => return response,
    };
    let header_and_first = match csv_rows(&first, true) {
        Ok(bytes) => bytes,
        Err(error) => return refused(&ApiError::from(error), LIST),
    };
    let after = cursor_after(&first);
    super::csv_file::download(&format!("{id}-payments.csv"), header_and_first, after, move |after| {
        let (services, scope, id) = (services.clone(), scope.clone(), id.clone());
        async move {
            let read = next_payments(services, scope, id, after).await?;
            Ok((csv_rows(&read, false)?, cursor_after(&read)))
        }
    })
}

/// Where the next read starts, after a read that found more.
fn cursor_after(read: &PagePayments) -> Option<String> {
    read.payments.has_more.then(|| read.payments.data.last().map(|payment| payment.id().to_string())).flatten()
}

async fn next_payments(
    services: web::Data<Services>,
    scope: Scope,
    id: String,
    after: String,
) -> Result<PagePayments, ApiError> {
    blocking(move || {
        let older = PageRequest::new(Some(i64::from(PageRequest::MAX_LIMIT)), Some(after), None)
            .map_err(ApplicationError::Validation)?;
        services.pages.payments(&scope, &id, &older)
    })
    .await
}

/// The read's payments as CSV rows (after the header, when `with_header`).
fn csv_rows(read: &PagePayments, with_header: bool) -> Result<Bytes, ApplicationError> {
    let page = &read.view.page;
    let mut rows = Rows::new();
    if with_header {
        let fields = page.details.custom_fields.iter().map(|field| spreadsheet_safe(Some(field.name.clone())));
        rows.write(CSV_COLUMNS.iter().map(|column| (*column).to_owned()).chain(fields))?;
    }
    for payment in &read.payments.data {
        let billing = payment.billing();
        let fixed = [
            payment.id().to_string(),
            payment.created_at().unix_seconds().to_string(),
            payment.status().as_str().to_owned(),
            payment.amount().to_string(),
            payment.amount_refunded().to_string(),
            spreadsheet_safe(billing.and_then(|billing| billing.name.clone())),
            spreadsheet_safe(billing.and_then(|billing| billing.email.clone())),
            spreadsheet_safe(Some(items(payment))),
        ];
        let answers = answers(page, payment).into_iter().map(|answer| spreadsheet_safe(Some(answer)));
        rows.write(fixed.into_iter().chain(answers))?;
    }
    rows.into_bytes()
}
