//! `/pages`: create, list, retrieve and update (deactivate) reusable payment pages. This service's
//! own resource (PayRex documents none), for Pages.

use super::endpoint::Endpoint;
use super::payment_method::payment_methods;
use super::support::{ok, page_request};
use crate::auth::{SecretKey, TestSecretKey};
use crate::decode::{BodyParams, Params, QueryParams, NOT_BLANK};
use crate::error::ApiError;
use crate::representation::envelope::List;
use crate::representation::page::PageResource;
use crate::representation::payment_intent::PaymentIntentResource;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::services::PaymentIntentView;
use payments_domain::ids::PriceId;
use payments_domain::limits::IDENTIFIER_LENGTH;
use payments_domain::page::{
    AfterPayment, FieldKind, NewCustomField, NewPage, PageChanges, PageOrder, PageTemplate, FIELD_NAME_LENGTH,
    MAX_CUSTOM_FIELDS, MAX_OPTIONS, MAX_PRICES, MESSAGE_LENGTH, OPTION_LENGTH, TEXT_LENGTH, TITLE_LENGTH,
};
use payments_domain::validation::FieldError;

/// A choice and the parameters it takes, each with whether it is required there.
type Takes = (&'static str, &'static [(&'static str, bool)]);

/// The templates, and the parameters each takes.
const TEMPLATES: [Takes; 3] = [
    ("storefront", &[("prices", true)]),
    ("fixed_amount", &[("amount", true)]),
    ("customer_chosen_amount", &[("minimum_amount", true), ("maximum_amount", true)]),
];

/// The kinds of custom field, and the parameters each takes.
const FIELD_KINDS: [Takes; 3] = [
    ("text", &[("max_length", false)]),
    ("number", &[("minimum", false), ("maximum", false)]),
    ("dropdown", &[("options", true)]),
];

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post("/pages", create)
            .named("create_page", "Create a page (this service's own)")
            .body(new_page)
            .answers::<PageResource>(),
        Endpoint::get("/pages", list)
            .named("list_pages", "List pages, newest first")
            .query(page_request)
            .answers::<PageResource>()
            .list(),
        Endpoint::get("/pages/{id}", retrieve).named("retrieve_page", "Retrieve a page").answers::<PageResource>(),
        Endpoint::put("/pages/{id}", update)
            .named("update_page", "Update a page; active=false deactivates it")
            .body(page_changes)
            .answers::<PageResource>(),
        Endpoint::post("/test_helpers/pages/{id}/orders", place_test_order)
            .named(
                "place_test_page_order",
                "Test mode: place an order on a page as a customer would at its address; answers the payment intent that pays it",
            )
            .body(page_order)
            .answers::<PaymentIntentResource>(),
    ]
}

/// Places an order on a test-mode page, for a merchant's tests and `payments fixtures`: the intent
/// is then paid with `/payment_intents/{id}/attach`.
async fn place_test_order(
    TestSecretKey(scope): TestSecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let order = page_order(&mut params);
    let order = params.finish(order)?;
    let intent = blocking(move || services.pages.order_in(&scope, &id, &order)).await?;
    Ok(ok(&PaymentIntentResource::new(&PaymentIntentView { intent, latest_payment: None, customer: None })))
}

/// An order as a page's form sends it: `quantity[<price id>]`, `custom_fields[<field id>]` and the
/// `amount` in centavos.
fn page_order(params: &mut Params) -> Option<PageOrder> {
    let quantities = params.string_map("quantity").unwrap_or_default();
    let answers = params.string_map("custom_fields").unwrap_or_default();
    let amount = params.integer("amount");
    let mut order = PageOrder { quantities: Vec::new(), amount, answers: answers.into_iter().collect() };
    let mut readable = true;
    for (price, quantity) in quantities {
        match quantity.trim().parse::<i64>() {
            Ok(quantity) => order.quantities.push((price, quantity)),
            Err(_) => {
                params.push(FieldError::invalid(format!("quantity[{price}]"), "Give each quantity as a whole number."));
                readable = false;
            }
        }
    }
    readable.then_some(order)
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let new = new_page(&mut params);
    let new = params.finish(new)?;
    let page = blocking(move || services.pages.create(&scope, new)).await?;
    Ok(ok(&PageResource::from(&page)))
}

async fn retrieve(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let page = blocking(move || services.pages.retrieve(&scope, &id)).await?;
    Ok(ok(&PageResource::from(&page)))
}

async fn update(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let changes = page_changes(&mut params);
    let changes = params.finish(changes)?;
    let page = blocking(move || services.pages.update(&scope, &id, changes)).await?;
    Ok(ok(&PageResource::from(&page)))
}

async fn list(
    SecretKey(scope): SecretKey,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let page = page_request(&mut params);
    let page = params.finish(page)?;
    let pages = blocking(move || services.pages.list(&scope, &page)).await?;
    Ok(ok(&List::of(&pages, PageResource::from)))
}

pub(crate) fn new_page(params: &mut Params) -> Option<NewPage> {
    let title = title(params);
    let description = params.description("description");
    let template = template(params);
    let custom_fields = custom_fields(params);
    let payment_methods = payment_methods(params);
    let after_payment = after_payment(params);
    let title = params.require("title", title);
    // Required when not sent; a template refused (or missing its parameters) is reported already.
    let template = match template {
        Some(None) => params.require("template", None),
        Some(Some(template)) => Some(template),
        None => None,
    };
    let payment_methods = params.require("payment_methods", payment_methods);
    Some(NewPage {
        title: title?,
        description,
        template: template?,
        custom_fields: custom_fields?.unwrap_or_default(),
        payment_methods: payment_methods?,
        after_payment: after_payment?,
    })
}

pub(crate) fn page_changes(params: &mut Params) -> Option<PageChanges> {
    let title = title(params);
    let description = params.description("description");
    let template = template(params);
    let custom_fields = custom_fields(params);
    let payment_methods = payment_methods(params);
    let after_payment = after_payment(params);
    let active = params.boolean("active");
    Some(PageChanges {
        title,
        description,
        template: template?,
        custom_fields: custom_fields?,
        payment_methods,
        after_payment: after_payment?,
        active,
    })
}

fn title(params: &mut Params) -> Option<String> {
    let title = params.string("title", TITLE_LENGTH);
    params.pattern("title", NOT_BLANK);
    title
}

/// Which of `all` the choice `key` names: `Some(None)` when it is not sent; `None` when it names
/// none of them (refused, and the parameters of each left aside).
fn chosen(params: &mut Params, key: &str, all: &[Takes]) -> Option<Option<&'static str>> {
    let sent = params.is_sent(key);
    let chosen = params.one_of(key, all, |(name, _)| name).map(|(name, _)| name);
    if sent && chosen.is_none() {
        for (_, keys) in all {
            keys.iter().for_each(|(key, _)| params.discard(key));
        }
        return None;
    }
    Some(chosen)
}

/// States for the document which parameters each of `all` takes, and refuses each one sent though
/// `chosen` (the choice `choice_key` names) does not take it.
fn refuse_others(params: &mut Params, all: &[Takes], choice_key: &str, chosen: Option<&str>) {
    for (name, keys) in all {
        for (key, required) in *keys {
            if *required {
                params.exactly_where(key, choice_key, name);
            } else {
                params.only_where(key, choice_key, name);
            }
            let takes_it = all.iter().any(|(other, keys)| Some(*other) == chosen && keys.iter().any(|(k, _)| k == key));
            if Some(*name) != chosen && !takes_it && params.is_sent(key) {
                let detail = format!("Send it only with {choice_key}={name}.");
                params.push(FieldError::invalid(params.name(key), detail));
                params.discard(key);
            }
        }
    }
}

/// The template and its parameters: `Some(None)` when none is sent, `None` when it is refused.
fn template(params: &mut Params) -> Option<Option<PageTemplate>> {
    let chosen = chosen(params, "template", &TEMPLATES)?;
    refuse_others(params, &TEMPLATES, "template", chosen);
    // Each is read (and so described) whatever the template; one the template does not take was
    // refused above.
    let prices = params.string_list("prices", MAX_PRICES, IDENTIFIER_LENGTH);
    params.non_empty("prices");
    params.unique("prices");
    let amount = params.amount("amount");
    let minimum = params.amount("minimum_amount");
    let maximum = params.amount("maximum_amount");
    let Some(chosen) = chosen else { return Some(None) };
    let template = match chosen {
        "storefront" => {
            let prices = params.require("prices", prices)?;
            let mut ids = Vec::new();
            for (position, id) in prices.iter().enumerate() {
                match PriceId::parse(id) {
                    Some(id) => ids.push(id),
                    None => {
                        let detail = format!("No price with id {id} exists.");
                        params.push(FieldError::missing(format!("prices[{position}]"), detail));
                    }
                }
            }
            (ids.len() == prices.len()).then_some(PageTemplate::Storefront { prices: ids })?
        }
        "fixed_amount" => PageTemplate::FixedAmount { amount: params.require("amount", amount)? },
        _ => {
            let minimum = params.require("minimum_amount", minimum);
            let maximum = params.require("maximum_amount", maximum);
            PageTemplate::CustomerChosenAmount { minimum: minimum?, maximum: maximum? }
        }
    };
    Some(Some(template))
}

/// The custom fields asked: `Some(None)` when none are sent, `None` when one is refused.
fn custom_fields(params: &mut Params) -> Option<Option<Vec<NewCustomField>>> {
    let sent = params.is_sent("custom_fields");
    let fields = params.object_list("custom_fields", MAX_CUSTOM_FIELDS, custom_field);
    if sent {
        fields.map(Some)
    } else {
        Some(None)
    }
}

fn custom_field(params: &mut Params) -> Option<NewCustomField> {
    let name = params.string("name", FIELD_NAME_LENGTH);
    params.pattern("name", NOT_BLANK);
    let kind = chosen(params, "type", &FIELD_KINDS)?;
    refuse_others(params, &FIELD_KINDS, "type", kind);
    let required = params.boolean("required").unwrap_or(false);
    let max_length = params.integer_between("max_length", Some(1), Some(TEXT_LENGTH as i64));
    let minimum = params.integer("minimum");
    let maximum = params.integer("maximum");
    let options = params.string_list("options", MAX_OPTIONS, OPTION_LENGTH);
    params.pattern("options", NOT_BLANK);
    params.non_empty("options");
    params.unique("options");
    let name = params.require("name", name);
    let kind = match params.require("type", kind)? {
        "text" => FieldKind::Text { max_length: max_length.map_or(TEXT_LENGTH, |length| length as usize) },
        "number" => FieldKind::Number { minimum, maximum },
        _ => FieldKind::Dropdown { options: params.require("options", options)? },
    };
    Some(NewCustomField { name: name?, kind, required })
}

/// What follows payment: a message, or a redirect; `Some(None)` when neither is sent.
fn after_payment(params: &mut Params) -> Option<Option<AfterPayment>> {
    let message = params.string("after_payment_message", MESSAGE_LENGTH);
    params.pattern("after_payment_message", NOT_BLANK);
    let url = params.redirect_url("after_payment_redirect_url");
    params.at_most_one_of(&["after_payment_message", "after_payment_redirect_url"]);
    match (message, url) {
        (Some(_), Some(_)) => {
            let detail = "Send after_payment_message or after_payment_redirect_url, not both.";
            params.push(FieldError::invalid("after_payment_redirect_url", detail));
            None
        }
        (Some(message), None) => Some(Some(AfterPayment::Message(message))),
        (None, Some(url)) => Some(Some(AfterPayment::Redirect(url))),
        (None, None) => Some(None),
    }
}
