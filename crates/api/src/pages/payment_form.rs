//! What every hosted page that takes a payment shares (the checkout page, the billing statement
//! page): the payment form with its card and billing inputs, reading a posted form with the API's
//! own decoder, the pay flow (form token, one charge however often it is submitted, redirects,
//! declines shown beside the form), the status pages of an intent in flight, and error pages.

use super::hosted::FORM_TOKEN_FIELD;
use super::hosted::{form_token, form_token_matches, html, message, method_name, not_allowed, see_other};
use crate::decode::{BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::routes::payment_method::payment_method;
use crate::state::Services;
use actix_web::http::{Method, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use payments_application::ports::IdGenerator;
use payments_application::services::{AttachOutcome, AttachRequest};
use payments_application::ApplicationError;
use payments_domain::checkout_session::BillingDetailsCollection;
use payments_domain::limits::IDENTIFIER_LENGTH;
use payments_domain::payment_intent::{PaymentError, PaymentIntent, PaymentIntentStatus};
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::validation::{ErrorCode, FieldError};

/// The query parameter a redirect brings back; its presence means the customer is returning.
const RETURNING: &str = "payment_intent_client_secret";

/// A hosted page that pays one payment intent.
/// A browser's request of a page, with where its form token comes from.
pub(super) struct Visit<'a> {
    pub(super) request: &'a HttpRequest,
    pub(super) ids: &'a dyn IdGenerator,
}

pub(super) trait PaymentPage: Clone + Send + Sized + 'static {
    /// The page whose link carries `secret`.
    ///
    /// # Errors
    /// `resource_not_found` for an unknown link; storage failures.
    fn load(services: &Services, secret: &str) -> Result<Self, ApplicationError>;

    /// Pays the page's intent with what the customer entered.
    ///
    /// # Errors
    /// What attaching answers; `resource_invalid_state` once the page cannot be paid.
    fn pay(&self, services: &Services, request: AttachRequest) -> Result<AttachOutcome, ApplicationError>;

    /// The intent the page pays, if it has one.
    fn intent(&self) -> Option<&PaymentIntent>;

    /// Whether what the page is for is paid already.
    fn completed(&self) -> bool;

    /// Where the customer goes once paid: the merchant's page, or this page (`path`), which then
    /// shows that it is paid.
    fn after_paid(&self, path: &str) -> String;

    /// Whether the customer may pay now.
    fn payable(&self) -> bool;

    /// Which billing details the form asks for.
    fn collection(&self) -> BillingDetailsCollection;

    /// The page as it stands, with the form showing `entered`.
    fn render(&self, visit: &Visit<'_>, entered: Entered, status: StatusCode) -> HttpResponse;
}

/// Registers `path` (a hosted page's route, its capability the one path segment) as the page `P`.
pub(super) fn configure_page<P: PaymentPage>(config: &mut web::ServiceConfig, path: &str) {
    config.service(
        web::resource(path)
            .route(crate::routes::get_or_head().to(show::<P>))
            .route(web::post().to(pay::<P>))
            .default_service(not_allowed(&[Method::GET, Method::POST], "Use the form of the page.", false)),
    );
}

/// One input of the form, with what the customer typed (never a card number or CVC) and its error.
pub(super) struct Field {
    /// The parameter name, as the API spells it: `payment_method[card][number]`.
    pub(super) name: &'static str,
    pub(super) id: &'static str,
    pub(super) label: &'static str,
    pub(super) kind: &'static str,
    pub(super) autocomplete: &'static str,
    pub(super) inputmode: &'static str,
    pub(super) required: bool,
    pub(super) value: String,
    pub(super) error: Option<String>,
}

pub(super) struct MethodOption {
    pub(super) value: &'static str,
    pub(super) label: &'static str,
    pub(super) checked: bool,
}

/// The payment form of a page, as `payment_form.html` shows it.
pub(super) struct PaymentForm {
    pub(super) methods: Vec<MethodOption>,
    pub(super) offers_card: bool,
    pub(super) card_fields: Vec<Field>,
    pub(super) billing_fields: Vec<Field>,
    pub(super) alert: Option<String>,
    pub(super) button: String,
    pub(super) form_token: String,
}

#[derive(Template)]
#[template(path = "checkout_status.html")]
struct StatusPage<'a> {
    test_mode: bool,
    heading: &'a str,
    message: &'a str,
    total: &'a str,
    link: Option<(&'a str, &'a str)>,
    refresh: bool,
}

/// A page that says where a payment stands: `heading` and `text` over the `total`, with a link on.
pub(super) fn status_page(
    status: StatusCode,
    test_mode: bool,
    (heading, text): (&str, &str),
    total: &str,
    link: Option<(&str, &str)>,
) -> HttpResponse {
    html(status, StatusPage { test_mode, heading, message: text, total, link, refresh: false }.render())
}

/// The page for an intent the customer is in the middle of paying (processing, or waiting for a
/// redirect), if it is.
pub(super) fn in_flight(intent: &PaymentIntent, test_mode: bool, total: &str) -> Option<HttpResponse> {
    match intent.status() {
        PaymentIntentStatus::Processing => {
            let text = "Your payment is being processed. This page refreshes by itself.";
            let page = StatusPage {
                test_mode,
                heading: "Processing your payment",
                message: text,
                total,
                link: None,
                refresh: true,
            };
            Some(html(StatusCode::OK, page.render()))
        }
        PaymentIntentStatus::AwaitingNextAction => {
            let redirect = intent.pending().and_then(|pending| pending.redirect_url.as_deref()).unwrap_or_default();
            let text = "Finish authorizing the payment to complete it.";
            Some(status_page(
                StatusCode::OK,
                test_mode,
                ("Your payment is waiting for you", text),
                total,
                Some((redirect, "Continue")),
            ))
        }
        PaymentIntentStatus::AwaitingPaymentMethod
        | PaymentIntentStatus::AwaitingCapture
        | PaymentIntentStatus::Succeeded
        | PaymentIntentStatus::Canceled => None,
    }
}

/// What the customer typed, to show again after an error.
#[derive(Default)]
pub(super) struct Entered {
    method: Option<String>,
    values: Vec<(String, String)>,
    errors: Vec<FieldError>,
    alert: Option<String>,
}

async fn show<P: PaymentPage>(
    request: HttpRequest,
    secret: web::Path<String>,
    QueryParams(mut query): QueryParams,
    services: web::Data<Services>,
) -> HttpResponse {
    let returning = query.string(RETURNING, IDENTIFIER_LENGTH).is_some();
    let loading = services.clone();
    let page = match run(move || P::load(&loading, &secret)).await {
        Ok(page) => page,
        Err(error) => return failure(&error),
    };
    if returning && page.completed() {
        return see_other(&page.after_paid(request.path()));
    }
    let mut entered = Entered::default();
    if let Some(intent) = page.intent().filter(|_| returning) {
        if intent.status() == PaymentIntentStatus::AwaitingPaymentMethod {
            entered.alert = intent.last_payment_error().map(decline_message);
        }
    }
    page.render(&Visit { request: &request, ids: services.ids.as_ref() }, entered, StatusCode::OK)
}

async fn pay<P: PaymentPage>(
    request: HttpRequest,
    secret: web::Path<String>,
    body: Result<BodyParams, ApiError>,
    services: web::Data<Services>,
) -> HttpResponse {
    // A form the API's decoder refuses (a NUL, invalid UTF-8, too large, too slow) is answered as a
    // page, not as the API's JSON.
    let mut params = match body {
        Ok(BodyParams(params)) => params,
        Err(error) => {
            let page = request.path().to_owned();
            return message(
                error.status(),
                "This form could not be read",
                "Nothing was charged. Open the payment page again and fill in the form.",
                Some((&page, "Open the payment page")),
                false,
            );
        }
    };
    let token = params.string(FORM_TOKEN_FIELD, IDENTIFIER_LENGTH);
    if !form_token_matches(&request, token.as_deref()) {
        let page = request.path().to_owned();
        return message(
            StatusCode::FORBIDDEN,
            "This form has expired",
            "Nothing was charged. Open the payment page again to pay.",
            Some((&page, "Open the payment page")),
            false,
        );
    }
    let page = match run({
        let (services, secret) = (services.clone(), secret.clone());
        move || P::load(&services, &secret)
    })
    .await
    {
        Ok(page) => page,
        Err(error) => return failure(&error),
    };
    if page.completed() {
        // A second submission (a double click, another tab): paid already.
        return see_other(&page.after_paid(request.path()));
    }
    let (entered, attach) = read_form(params, page.collection());
    let Some(attach) = attach.filter(|_| page.payable()) else {
        return page.render(
            &Visit { request: &request, ids: services.ids.as_ref() },
            entered,
            StatusCode::UNPROCESSABLE_ENTITY,
        );
    };
    let outcome = run({
        let (services, loaded) = (services.clone(), page.clone());
        move || loaded.pay(&services, attach)
    })
    .await;
    match outcome {
        Ok(AttachOutcome::Attached(view)) => match (view.intent.status(), view.intent.pending()) {
            (PaymentIntentStatus::Succeeded | PaymentIntentStatus::AwaitingCapture, _) => {
                see_other(&page.after_paid(request.path()))
            }
            (PaymentIntentStatus::AwaitingNextAction, Some(pending)) if pending.redirect_url.is_some() => {
                see_other(pending.redirect_url.as_deref().unwrap_or_default())
            }
            _ => see_other(request.path()),
        },
        Ok(AttachOutcome::Declined(_, error)) => {
            let entered = Entered { alert: Some(decline_message(&error)), ..entered };
            page.render(&Visit { request: &request, ids: services.ids.as_ref() }, entered, StatusCode::PAYMENT_REQUIRED)
        }
        Err(PageError::Validation(errors)) => page.render(
            &Visit { request: &request, ids: services.ids.as_ref() },
            Entered { errors, ..entered },
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        // Paid, closed or attached meanwhile (a double submission, another tab): a paid page goes
        // on, anything else shows the page as it stands now.
        Err(PageError::Moved) => match run(move || P::load(&services, &secret)).await {
            Ok(now) if now.completed() => see_other(&now.after_paid(request.path())),
            _ => see_other(request.path()),
        },
        Err(error) => failure(&error),
    }
}

/// What loading or paying a page can fail with, as the page handles it.
pub(super) enum PageError {
    Validation(Vec<FieldError>),
    /// What the page pays for, or its intent, changed meanwhile.
    Moved,
    Other(ApplicationError),
}

/// Runs a use case on the blocking pool, keeping the application's error for the page.
async fn run<T: Send + 'static>(
    use_case: impl FnOnce() -> Result<T, ApplicationError> + Send + 'static,
) -> Result<T, PageError> {
    match web::block(use_case).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(ApplicationError::Validation(errors))) => Err(PageError::Validation(errors)),
        Ok(Err(ApplicationError::InvalidState(_) | ApplicationError::Conflict)) => Err(PageError::Moved),
        Ok(Err(error)) => Err(PageError::Other(error)),
        Err(error) => Err(PageError::Other(ApplicationError::Internal(error.into()))),
    }
}

/// One input of the form: its parameter name (as the API spells it, so the API's decoder reads it),
/// path in the decoded parameters, label and browser hints.
struct Input {
    name: &'static str,
    path: &'static [&'static str],
    label: &'static str,
    kind: &'static str,
    autocomplete: &'static str,
    inputmode: &'static str,
}

const CARD_INPUTS: [Input; 4] = [
    Input {
        name: "payment_method[card][number]",
        path: &["card", "number"],
        label: "Card number",
        kind: "text",
        autocomplete: "cc-number",
        inputmode: "numeric",
    },
    Input {
        name: "payment_method[card][exp_month]",
        path: &["card", "exp_month"],
        label: "Expiry month (MM)",
        kind: "text",
        autocomplete: "cc-exp-month",
        inputmode: "numeric",
    },
    Input {
        name: "payment_method[card][exp_year]",
        path: &["card", "exp_year"],
        label: "Expiry year (YY)",
        kind: "text",
        autocomplete: "cc-exp-year",
        inputmode: "numeric",
    },
    Input {
        name: "payment_method[card][cvc]",
        path: &["card", "cvc"],
        label: "CVC",
        kind: "text",
        autocomplete: "cc-csc",
        inputmode: "numeric",
    },
];

const NAME_INPUT: Input = Input {
    name: "payment_method[billing][name]",
    path: &["billing", "name"],
    label: "Full name",
    kind: "text",
    autocomplete: "name",
    inputmode: "text",
};

/// Billing inputs beside the name when the page collects them `always`; all but the phone are
/// required.
const BILLING_INPUTS: [Input; 6] = [
    Input {
        name: "payment_method[billing][email]",
        path: &["billing", "email"],
        label: "E-mail",
        kind: "email",
        autocomplete: "email",
        inputmode: "email",
    },
    Input {
        name: "payment_method[billing][phone]",
        path: &["billing", "phone"],
        label: "Phone (optional)",
        kind: "tel",
        autocomplete: "tel",
        inputmode: "tel",
    },
    Input {
        name: "payment_method[billing][address][line1]",
        path: &["billing", "address", "line1"],
        label: "Address",
        kind: "text",
        autocomplete: "address-line1",
        inputmode: "text",
    },
    Input {
        name: "payment_method[billing][address][city]",
        path: &["billing", "address", "city"],
        label: "City",
        kind: "text",
        autocomplete: "address-level2",
        inputmode: "text",
    },
    Input {
        name: "payment_method[billing][address][postal_code]",
        path: &["billing", "address", "postal_code"],
        label: "Postal code",
        kind: "text",
        autocomplete: "postal-code",
        inputmode: "numeric",
    },
    Input {
        name: "payment_method[billing][address][country]",
        path: &["billing", "address", "country"],
        label: "Country (two letters, e.g. PH)",
        kind: "text",
        autocomplete: "country",
        inputmode: "text",
    },
];

/// The billing inputs a page asks for: the cardholder's name (for cards) with `auto`, everything
/// with `always`.
fn billing_inputs(collection: BillingDetailsCollection) -> Vec<&'static Input> {
    let mut inputs = vec![&NAME_INPUT];
    if collection == BillingDetailsCollection::Always {
        inputs.extend(BILLING_INPUTS.iter());
    }
    inputs
}

/// Reads the posted form into what attaching needs; card inputs are ignored unless the card is
/// chosen, and the billing inputs the page asked for are required.
fn read_form(mut params: Params, collection: BillingDetailsCollection) -> (Entered, Option<AttachRequest>) {
    let method = nested(params.values(), &["type"]).map(str::to_owned);
    let card_chosen = method.as_deref() == Some(PaymentMethodType::Card.as_str());
    // What the customer typed, to show again: never the card's number or CVC.
    let values = billing_inputs(collection)
        .into_iter()
        .chain(CARD_INPUTS.iter().filter(|input| input.path[1].starts_with("exp_")))
        .filter_map(|input| Some((input.name.to_owned(), nested(params.values(), input.path)?.to_owned())))
        .collect::<Vec<_>>();
    let missing: Vec<FieldError> = billing_inputs(collection)
        .into_iter()
        .filter(|input| input.autocomplete != "tel")
        .filter(|_| card_chosen || collection == BillingDetailsCollection::Always)
        .filter(|input| values.iter().all(|(name, value)| name != input.name || value.trim().is_empty()))
        .map(|input| FieldError::required(input.name))
        .collect();
    let choice = params.object("payment_method", |method| {
        if !method.holds("type", PaymentMethodType::Card.as_str()) {
            method.discard("card");
        }
        payment_method(method)
    });
    let mut entered = Entered { method, values, ..Entered::default() };
    match params.finish_fields(choice) {
        Ok((input, billing)) if missing.is_empty() => {
            (entered, Some(AttachRequest { method: input.into(), billing, return_url: None, save_with_session: None }))
        }
        Ok(_) => {
            entered.errors = missing;
            (entered, None)
        }
        Err(mut errors) => {
            let missing: Vec<FieldError> =
                missing.into_iter().filter(|m| errors.iter().all(|e| e.parameter != m.parameter)).collect();
            errors.extend(missing);
            entered.errors = errors;
            (entered, None)
        }
    }
}

/// The string at `path` under `payment_method` in decoded form parameters.
fn nested<'a>(values: &'a serde_json::Map<String, serde_json::Value>, path: &[&str]) -> Option<&'a str> {
    let mut value = values.get("payment_method")?;
    for key in path {
        value = value.get(key)?;
    }
    value.as_str()
}

/// The inputs as the template shows them, with what was typed and the error of each.
fn fields(inputs: &[&Input], entered: &Entered) -> Vec<Field> {
    inputs
        .iter()
        .map(|input| Field {
            name: input.name,
            id: input.autocomplete,
            label: input.label,
            kind: input.kind,
            autocomplete: input.autocomplete,
            inputmode: input.inputmode,
            required: input.autocomplete != "tel",
            value: entered
                .values
                .iter()
                .find(|(name, _)| name == input.name)
                .map(|(_, v)| v.clone())
                .unwrap_or_default(),
            error: entered.errors.iter().find(|error| error.parameter == input.name).map(|error| {
                if error.code == ErrorCode::ParameterRequired {
                    format!("Enter the {}.", input.label.to_lowercase().trim_end_matches(" (optional)"))
                } else {
                    error.detail.replace(input.name, input.label)
                }
            }),
        })
        .collect()
}

/// The form for paying with one of `methods`, showing `entered`; `button` is its label. Renders it
/// with `render` and sets the form token's cookie on the answer when the page has none yet.
pub(super) fn respond_with_form(
    visit: &Visit<'_>,
    methods: &[PaymentMethodType],
    collection: BillingDetailsCollection,
    entered: &Entered,
    button: String,
    (status, render): (StatusCode, impl FnOnce(PaymentForm) -> Result<String, askama::Error>),
) -> HttpResponse {
    let (token, cookie) = form_token(visit.request, visit.ids);
    let chosen =
        entered.method.as_deref().or_else(|| methods.first().map(|method| method.as_str())).unwrap_or_default();
    let form = PaymentForm {
        methods: methods
            .iter()
            .map(|method| MethodOption {
                value: method.as_str(),
                label: method_name(*method),
                checked: method.as_str() == chosen,
            })
            .collect(),
        offers_card: methods.contains(&PaymentMethodType::Card),
        card_fields: fields(&CARD_INPUTS.iter().collect::<Vec<_>>(), entered),
        billing_fields: fields(&billing_inputs(collection), entered),
        alert: entered.alert.clone().or_else(|| unplaced_error(entered)),
        button,
        form_token: token,
    };
    let mut response = html(status, render(form));
    if let Some(cookie) = cookie {
        if let Err(error) = response.add_cookie(&cookie) {
            tracing::warn!(%error, "the form token cookie could not be set");
        }
    }
    response
}

/// An error of no input on the page (the method, say), shown above the form.
fn unplaced_error(entered: &Entered) -> Option<String> {
    let placed = |parameter: &str| {
        CARD_INPUTS.iter().chain(BILLING_INPUTS.iter()).chain([&NAME_INPUT]).any(|i| i.name == parameter)
    };
    entered.errors.iter().find(|error| !placed(&error.parameter)).map(|error| error.detail.clone())
}

fn decline_message(error: &PaymentError) -> String {
    format!("{} Try again, or choose another payment method.", error.detail)
}

/// The page for an error of the service: an unknown link is 404, an outage 503.
fn failure(error: &PageError) -> HttpResponse {
    match error {
        PageError::Other(ApplicationError::NotFound { .. }) => {
            let text = "This payment link is not valid. Check the address, or ask the merchant for a new link.";
            message(StatusCode::NOT_FOUND, "Payment page not found", text, None, false)
        }
        PageError::Other(ApplicationError::NotConfigured(_)) => message(
            StatusCode::SERVICE_UNAVAILABLE,
            "This payment cannot be taken here yet",
            "The merchant's payment service is not fully set up. Nothing was charged.",
            None,
            false,
        ),
        PageError::Other(ApplicationError::Unavailable(_)) => message(
            StatusCode::SERVICE_UNAVAILABLE,
            "Try again in a moment",
            "The payment service is busy. Nothing was charged.",
            None,
            false,
        ),
        _ => message(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Something went wrong",
            "The payment could not be completed. Nothing was charged.",
            None,
            false,
        ),
    }
}
