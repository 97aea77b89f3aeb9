//! PayRex Pages' public pages: a page's address, `/p/<page id>`, where a customer picks what to pay
//! (quantities of a storefront's prices, or an amount) and answers the page's questions; and the
//! payment page of the order that makes, `/o/<client secret>`, with the shared payment form
//! (`payment_form`). Both work without JavaScript, on a phone and with the keyboard alone. The
//! rules of an order are the domain's ([`payments_domain::page`]); these pages only show them.

use super::hosted::{html, message, not_allowed, see_other, with_query_pair};
use super::payment_form::{configure_page, in_flight, respond_with_form, status_page, Entered, PaymentPage, Visit};
use crate::decode::BodyParams;
use crate::formatting::pesos;
use crate::state::{blocking, Services};
use actix_web::http::{Method, StatusCode};
use actix_web::{web, HttpResponse};
use askama::Template;
use payments_application::services::{AttachOutcome, AttachRequest, PageOrderPage, PageView};
use payments_application::ApplicationError;
use payments_domain::checkout_session::BillingDetailsCollection;
use payments_domain::hosted_page::HostedPage;
use payments_domain::page::{is_sold, AfterPayment, FieldKind, PageOrder, PageTemplate, MAX_QUANTITY};
use payments_domain::payment_intent::PaymentIntent;
use std::collections::BTreeMap;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config.service(
        web::resource(HostedPage::Page.route())
            .route(crate::routes::get_or_head().to(show))
            .route(web::post().to(place_order))
            .default_service(not_allowed(&[Method::GET, Method::POST], "Use the form of the page.", false)),
    );
    configure_page::<PageOrderPage>(config, &HostedPage::PageOrder.route());
}

/// One price of a storefront, as the order form shows it.
struct OfferedLine<'a> {
    price_id: &'a str,
    input_id: String,
    name: &'a str,
    description: Option<&'a str>,
    price_description: Option<&'a str>,
    image: &'a str,
    unit_price: String,
    quantity: String,
}

/// One question of the page, with what the customer answered.
struct Question<'a> {
    id: &'a str,
    input_id: String,
    name: &'a str,
    required: bool,
    numeric: bool,
    options: Option<&'a [String]>,
    value: String,
}

#[derive(Template)]
#[template(path = "page.html")]
struct OrderForm<'a> {
    test_mode: bool,
    title: &'a str,
    description: Option<&'a str>,
    active: bool,
    errors: Vec<String>,
    items: Vec<OfferedLine<'a>>,
    max_quantity: i64,
    fixed_amount: Option<String>,
    chosen_bounds: Option<String>,
    amount: String,
    fields: Vec<Question<'a>>,
}

/// What the customer sent: quantities and answers by id, and the amount as typed.
#[derive(Default)]
struct Sent {
    quantities: BTreeMap<String, String>,
    answers: BTreeMap<String, String>,
    amount: String,
}

async fn show(id: web::Path<String>, services: web::Data<Services>) -> HttpResponse {
    match blocking(move || services.pages.public_view(&id)).await {
        Ok(view) => order_form(&view, &Sent::default(), Vec::new(), StatusCode::OK),
        Err(_) => unknown_page(),
    }
}

async fn place_order(
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
) -> HttpResponse {
    let mut params = params.without_blanks();
    let sent = Sent {
        quantities: params.string_map("quantity").unwrap_or_default(),
        answers: params.string_map("custom_fields").unwrap_or_default(),
        amount: params.string("amount", 32).unwrap_or_default(),
    };
    let id = id.into_inner();
    // What the form never sends, or sends in another shape, is named rather than left aside.
    let mut unreadable: Vec<String> =
        params.finish_fields(Some(())).err().unwrap_or_default().into_iter().map(|error| error.detail).collect();
    let mut order = PageOrder::default();
    for (price, quantity) in &sent.quantities {
        match quantity.trim().parse::<i64>() {
            Ok(quantity) => order.quantities.push((price.clone(), quantity)),
            Err(_) => unreadable.push("Enter each quantity as a whole number.".to_owned()),
        }
    }
    order.answers = sent.answers.iter().map(|(id, value)| (id.clone(), value.clone())).collect();
    if !sent.amount.trim().is_empty() {
        match centavos_of(&sent.amount) {
            Some(centavos) => order.amount = Some(centavos),
            None => unreadable.push("Enter the amount in pesos, such as 150 or 150.50.".to_owned()),
        }
    }
    let viewing = services.clone();
    let asked = id.clone();
    let placed = if unreadable.is_empty() {
        blocking(move || {
            Ok(match services.pages.order(&asked, &order) {
                Ok(intent) => Placed::Order(HostedPage::PageOrder.url("", intent.client_secret().reveal())),
                Err(ApplicationError::Validation(errors)) => {
                    Placed::Refused(errors.into_iter().map(|error| error.detail).collect())
                }
                Err(ApplicationError::NotFound { .. }) => Placed::UnknownPage,
                Err(error) => return Err(error),
            })
        })
        .await
    } else {
        Ok(Placed::Refused(unreadable))
    };
    match placed {
        Ok(Placed::Order(payment_page)) => see_other(&payment_page),
        Ok(Placed::Refused(errors)) => match blocking(move || viewing.pages.public_view(&id)).await {
            Ok(view) => order_form(&view, &sent, errors, StatusCode::BAD_REQUEST),
            Err(_) => unknown_page(),
        },
        Ok(Placed::UnknownPage) => unknown_page(),
        Err(_) => message(
            StatusCode::SERVICE_UNAVAILABLE,
            "Try again",
            "Your order could not be placed right now. Try again shortly.",
            None,
            false,
        ),
    }
}

/// What came of a customer's order.
enum Placed {
    /// Made: the payment page of the order's intent, where the customer now pays.
    Order(String),
    /// Refused, with why, as the page shows it.
    Refused(Vec<String>),
    UnknownPage,
}

/// Pesos as typed (`150`, `150.5`, `1,500.50`) in centavos; `None` for anything else.
fn centavos_of(typed: &str) -> Option<i64> {
    let typed = typed.trim().trim_start_matches('₱').replace(',', "");
    let (whole, fraction) = typed.split_once('.').unwrap_or((&typed, ""));
    let digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || fraction.len() > 2 || !(fraction.is_empty() || digits(fraction)) {
        return None;
    }
    let fraction = format!("{fraction:0<2}").parse::<i64>().ok()?;
    whole.parse::<i64>().ok()?.checked_mul(100)?.checked_add(fraction)
}

fn order_form(view: &PageView, sent: &Sent, errors: Vec<String>, status: StatusCode) -> HttpResponse {
    let page = &view.page;
    let details = &page.details;
    let items = view
        .offered
        .iter()
        .filter(|(price, product)| is_sold(price, product))
        .map(|(price, product)| OfferedLine {
            price_id: price.id.as_str(),
            input_id: format!("quantity-{}", price.id),
            name: product.name.as_str(),
            description: product.description.as_ref().map(|text| text.as_str()),
            price_description: price.description.as_ref().map(|text| text.as_str()),
            image: product.image.as_deref().unwrap_or("/assets/item.svg"),
            unit_price: pesos(price.amount.centavos()),
            quantity: sent.quantities.get(price.id.as_str()).cloned().unwrap_or_else(|| "0".to_owned()),
        })
        .collect();
    let (fixed_amount, chosen_bounds) = match &details.template {
        PageTemplate::Storefront { .. } => (None, None),
        PageTemplate::FixedAmount { amount } => (Some(pesos(amount.centavos())), None),
        PageTemplate::CustomerChosenAmount { minimum, maximum } => {
            (None, Some(format!("From {} to {}.", pesos(minimum.centavos()), pesos(maximum.centavos()))))
        }
    };
    let fields = details
        .custom_fields
        .iter()
        .map(|field| Question {
            id: field.id.as_str(),
            input_id: format!("field-{}", field.id),
            name: &field.name,
            required: field.required,
            numeric: matches!(field.kind, FieldKind::Number { .. }),
            options: match &field.kind {
                FieldKind::Dropdown { options } => Some(options.as_slice()),
                FieldKind::Text { .. } | FieldKind::Number { .. } => None,
            },
            value: sent.answers.get(field.id.as_str()).cloned().unwrap_or_default(),
        })
        .collect();
    let form = OrderForm {
        test_mode: !page.livemode,
        title: &details.title,
        description: details.description.as_ref().map(|text| text.as_str()),
        active: page.active,
        errors,
        items,
        max_quantity: MAX_QUANTITY,
        fixed_amount,
        chosen_bounds,
        amount: sent.amount.clone(),
        fields,
    };
    html(status, form.render())
}

fn unknown_page() -> HttpResponse {
    message(StatusCode::NOT_FOUND, "This page cannot be found", "Check the link the shop gave you.", None, false)
}

/// One chosen price of the order, as its payment page shows it.
struct OrderLine<'a> {
    name: &'a str,
    quantity: i64,
    unit_price: String,
    line_total: String,
}

#[derive(Template)]
#[template(path = "page_order.html")]
struct OrderPaymentForm<'a> {
    test_mode: bool,
    title: &'a str,
    items: Vec<OrderLine<'a>>,
    answers: Vec<(&'a str, &'a str)>,
    total: String,
    page_url: String,
    form: super::payment_form::PaymentForm,
}

impl PaymentPage for PageOrderPage {
    fn load(services: &Services, secret: &str) -> Result<Self, ApplicationError> {
        services.pages.order_page(secret)
    }

    fn pay(&self, services: &Services, request: AttachRequest) -> Result<AttachOutcome, ApplicationError> {
        services.pages.pay(self, request)
    }

    fn intent(&self) -> Option<&PaymentIntent> {
        Some(&self.intent)
    }

    fn completed(&self) -> bool {
        self.intent.is_paid_for()
    }

    fn after_paid(&self, path: &str) -> String {
        match &self.page.details.after_payment {
            AfterPayment::Redirect(url) => {
                let pair = format!("payment_intent_client_secret={}", self.intent.client_secret().reveal());
                with_query_pair(url.as_str(), &pair)
            }
            AfterPayment::Message(_) => path.to_owned(),
        }
    }

    fn payable(&self) -> bool {
        self.intent.can_be_paid()
    }

    fn collection(&self) -> BillingDetailsCollection {
        BillingDetailsCollection::Always
    }

    fn render(&self, visit: &Visit<'_>, entered: Entered, status: StatusCode) -> HttpResponse {
        let details = &self.page.details;
        let total = pesos(self.intent.amount().centavos());
        let test_mode = !self.intent.livemode();
        let page_url = HostedPage::Page.url("", self.page.id.as_str());
        if self.completed() {
            let text = match &details.after_payment {
                AfterPayment::Message(text) => text.as_str(),
                AfterPayment::Redirect(_) => "Thank you: your payment was received.",
            };
            return status_page(StatusCode::OK, test_mode, ("Paid", text), &total, None);
        }
        if !self.payable() {
            let text = "This order was canceled and can no longer be paid. Nothing was charged.";
            let link = Some((page_url.as_str(), "Place a new order"));
            return status_page(StatusCode::GONE, test_mode, ("This order was canceled", text), &total, link);
        }
        if let Some(page) = in_flight(&self.intent, test_mode, &total) {
            return page;
        }
        let session = self.intent.page_session();
        let items = session
            .map(|session| {
                session
                    .line_items
                    .iter()
                    .map(|line| OrderLine {
                        name: &line.product_name,
                        quantity: line.quantity,
                        unit_price: pesos(line.price_amount),
                        line_total: pesos(line.total_amount),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let answers = session
            .map(|session| {
                session.custom_fields.iter().map(|answer| (answer.name.as_str(), answer.value.as_str())).collect()
            })
            .unwrap_or_default();
        let render = |form| {
            OrderPaymentForm {
                test_mode,
                title: &details.title,
                items,
                answers,
                total: total.clone(),
                page_url: page_url.clone(),
                form,
            }
            .render()
        };
        respond_with_form(
            visit,
            self.intent.payment_methods(),
            BillingDetailsCollection::Always,
            &entered,
            format!("Pay {total}"),
            (status, render),
        )
    }
}
