//! `payments trigger EVENT_TYPE`: runs the recipe of API calls that makes that event happen
//! (`triggers.json`, one per event type, in the fixtures format), with `--override` setting fields
//! of its requests, then prints the events it made.

use crate::api::Api;
use crate::error::CliError;
use crate::fixtures::{self, Fixture, Source};
use crate::output::Printer;
use payments_domain::event::EventType;
use serde_json::{json, Map, Value};

/// How long the event may take to appear after the recipe's requests.
const EVENT_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Every event type's recipe: `{"<type>": {"does": "…", "fixtures": [ … ]}}`.
const RECIPES: &str = include_str!("triggers.json");

#[derive(Debug, clap::Args)]
pub struct TriggerArgs {
    /// The event type to make happen (`--list` shows them all).
    #[arg(required_unless_present = "list")]
    event_type: Option<String>,
    /// Set a field of one of the recipe's requests: STEP:PATH=VALUE, such as
    /// `payment_intent:amount=5000` or `payment_intent:metadata.order_id=42` (repeatable).
    #[arg(long = "override", value_name = "STEP:PATH=VALUE")]
    overrides: Vec<String>,
    /// Make the recipe's payment intent an order on a new storefront page (a product, its price,
    /// a page with a question, and a test order on it), so the payment carries `page_session`.
    #[arg(long)]
    page: bool,
    /// List the event types and what each trigger does.
    #[arg(long)]
    pub(crate) list: bool,
}

/// The recipes, by event type, in the file's order.
fn recipes() -> Map<String, Value> {
    match serde_json::from_str(RECIPES) {
        Ok(Value::Object(recipes)) => recipes,
        // The file is part of the build, and a unit test reads every recipe of it.
        _ => Map::new(),
    }
}

pub(crate) fn list(printer: &Printer) {
    for (event_type, recipe) in recipes() {
        let does = recipe.get("does").and_then(Value::as_str).unwrap_or_default();
        let steps: Vec<&str> = recipe["fixtures"]
            .as_array()
            .map(|steps| steps.iter().filter_map(|step| step.get("name").and_then(Value::as_str)).collect())
            .unwrap_or_default();
        printer.line(
            format!("{event_type:<40} {does} (steps: {})", steps.join(", ")),
            &json!({"event_type": event_type, "does": does, "steps": steps}),
        );
    }
}

pub(crate) async fn run(api: &Api, args: &TriggerArgs, printer: &Printer) -> Result<(), CliError> {
    let event_type = args.event_type.as_deref().unwrap_or_default();
    let event_type = EventType::parse(event_type).map_err(|_| {
        CliError::Usage(format!("unknown event type {event_type:?}; `payments trigger --list` lists them"))
    })?;
    let recipe = recipes().remove(event_type.as_str()).unwrap_or(Value::Null);
    let label = format!("the {} recipe", event_type.as_str());
    let text = serde_json::to_string_pretty(&recipe).unwrap_or_default();
    let mut steps = fixtures::parse(&Source { label: &label, text: &text })?;
    for item in &args.overrides {
        apply_override(&mut steps, item)?;
    }
    if args.page {
        steps = through_a_page(steps, event_type)?;
    }
    let newest_before = api.get("/events", &[("limit", "1".to_owned())]).await?;
    let cursor = newest_before["data"][0]["id"].as_str().map(str::to_owned);
    let answers = fixtures::run(api, &steps, &Source { label: &label, text: &text }, printer).await?;
    // The recipe's own objects: another client's events of the same type are not this trigger's.
    let mut made_objects = std::collections::HashSet::new();
    for answer in answers.values() {
        ids_in(answer, &mut made_objects);
    }
    let mut query = vec![("limit", "100".to_owned()), ("type", event_type.as_str().to_owned())];
    if let Some(cursor) = cursor {
        query.push(("before", cursor));
    }
    // Most events are written with the request that makes them; a reminder is written by the
    // background job within a second or so.
    let waited = std::time::Instant::now();
    let made = loop {
        let mut made = api.get("/events", &query).await?["data"].as_array().cloned().unwrap_or_default();
        // An event about one of them, or naming one (a failed payment names its intent).
        made.retain(|event| {
            event["data"].as_object().is_some_and(|data| {
                data.values().any(|value| value.as_str().is_some_and(|text| made_objects.contains(text)))
            })
        });
        if !made.is_empty() || waited.elapsed() >= EVENT_WAIT {
            break made;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    };
    if made.is_empty() {
        return Err(CliError::Usage(format!("the requests ran but made no {} event", event_type.as_str())));
    }
    for event in made.iter().rev() {
        let id = event["id"].as_str().unwrap_or_default();
        printer.line(
            format!("{:<20} {} {id}", "event", event_type.as_str()),
            &json!({"type": "event", "event_type": event_type.as_str(), "id": id}),
        );
    }
    Ok(())
}

/// The recipe's steps with its payment intent made as an order on a new storefront page: a product
/// priced at the intent's amount, a page offering it with a required question, and a test order of
/// one unit, named as the intent was so that the later steps pay it.
fn through_a_page(steps: Vec<Fixture>, event_type: EventType) -> Result<Vec<Fixture>, CliError> {
    let refused = |why: &str| CliError::Usage(format!("--page: the {} recipe {why}", event_type.as_str()));
    let at = steps
        .iter()
        .position(|step| step.name == "payment_intent" && step.path == "/payment_intents")
        .ok_or_else(|| refused("makes no payment intent to place as a page's order"))?;
    let intent = &steps[at].params;
    if intent.get("payment_method_options").is_some() {
        return Err(refused("needs a hold, and a page's order is captured at once"));
    }
    let step = |name: &str, path: &str, params: Value| Fixture {
        name: name.to_owned(),
        method: reqwest::Method::POST,
        path: path.to_owned(),
        params,
        expect_status: None,
    };
    let ordered = [
        step(
            "page_product",
            "/products",
            json!({"name": "Triggered product", "description": "Made by payments trigger --page"}),
        ),
        step(
            "page_price",
            "/prices",
            json!({"product_id": "${page_product:id}", "amount": intent["amount"], "description": "Each"}),
        ),
        step(
            "page",
            "/pages",
            json!({
                "title": "Triggered page", "template": "storefront", "prices": ["${page_price:id}"],
                "payment_methods": intent["payment_methods"],
                "custom_fields": [{"name": "Size", "type": "dropdown", "options": ["S", "M", "L"], "required": true}],
            }),
        ),
        step(
            "payment_intent",
            "/test_helpers/pages/${page:id}/orders",
            json!({"quantity": {"${page_price:id}": "1"}, "custom_fields": {"${page:custom_fields.0.id}": "M"}}),
        ),
    ];
    let mut steps = steps;
    steps.splice(at..=at, ordered);
    Ok(steps)
}

/// Every `id` in `answer`, at any depth (a payment intent's `latest_payment.id` too).
fn ids_in(answer: &Value, found: &mut std::collections::HashSet<String>) {
    match answer {
        Value::Object(fields) => {
            if let Some(Value::String(id)) = fields.get("id") {
                found.insert(id.clone());
            }
            fields.values().for_each(|value| ids_in(value, found));
        }
        Value::Array(items) => items.iter().for_each(|item| ids_in(item, found)),
        _ => {}
    }
}

/// Applies `STEP:PATH=VALUE` to the recipe: the value takes the type of the field it replaces (a
/// number stays a number); a new field is text.
fn apply_override(steps: &mut [Fixture], item: &str) -> Result<(), CliError> {
    let usage = || CliError::Usage(format!("--override {item:?}: expected STEP:PATH=VALUE"));
    let (target, value) = item.split_once('=').ok_or_else(usage)?;
    let (step, path) = target.split_once(':').ok_or_else(usage)?;
    let names: Vec<&str> = steps.iter().map(|fixture| fixture.name.as_str()).collect();
    let unknown = format!("--override {item:?}: this trigger has no step {step:?} (its steps: {})", names.join(", "));
    let fixture = steps.iter_mut().find(|fixture| fixture.name == step).ok_or(CliError::Usage(unknown))?;
    let mut field = &mut fixture.params;
    let segments: Vec<&str> = path.split('.').collect();
    if segments.iter().any(|segment| segment.is_empty()) {
        return Err(usage());
    }
    for segment in &segments[..segments.len() - 1] {
        let Value::Object(fields) = field else {
            return Err(CliError::Usage(format!(
                "--override {item:?}: {segment} is inside a value that is not an object"
            )));
        };
        field = fields.entry((*segment).to_owned()).or_insert_with(|| Value::Object(Map::new()));
    }
    let Value::Object(fields) = field else {
        return Err(CliError::Usage(format!("--override {item:?}: {path} is inside a value that is not an object")));
    };
    let last = segments[segments.len() - 1].to_owned();
    let typed = match fields.get(&last) {
        Some(Value::Number(_)) => value
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| CliError::Usage(format!("--override {item:?}: {path} is a whole number")))?,
        _ => Value::String(value.to_owned()),
    };
    fields.insert(last, typed);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{apply_override, recipes, through_a_page};
    use crate::fixtures::{parse, Source};
    use payments_domain::event::EventType;
    use serde_json::json;

    #[test]
    fn every_event_type_has_a_recipe_that_reads() {
        let recipes = recipes();
        for event_type in EventType::ALL {
            let recipe = recipes.get(event_type.as_str()).unwrap_or_else(|| panic!("no recipe for {event_type:?}"));
            let text = serde_json::to_string_pretty(recipe).unwrap();
            let steps = parse(&Source { label: event_type.as_str(), text: &text }).unwrap();
            assert!(!steps.is_empty() && recipe["does"].is_string(), "{event_type:?}");
        }
        assert_eq!(recipes.len(), EventType::ALL.len(), "no recipe for an unknown type");
    }

    #[test]
    fn through_a_page_the_intent_is_a_test_order_of_its_amount_and_the_later_steps_pay_it() {
        let text = serde_json::to_string(&recipes()["payment.refunded"]).unwrap();
        let mut steps = parse(&Source { label: "r", text: &text }).unwrap();
        apply_override(&mut steps, "payment_intent:amount=7500").unwrap();
        let steps = through_a_page(steps, EventType::PaymentRefunded).unwrap();
        let names: Vec<&str> = steps.iter().map(|step| step.name.as_str()).collect();
        assert_eq!(names, ["page_product", "page_price", "page", "payment_intent", "attach", "refund"]);
        assert_eq!(steps[1].params["amount"], json!(7500));
        assert_eq!(steps[2].params["payment_methods"], json!(["card"]));
        assert_eq!(steps[3].path, "/test_helpers/pages/${page:id}/orders");
        assert_eq!(steps[4].path, "/payment_intents/${payment_intent:id}/attach");
        for (held_or_none, event_type) in [
            ("payment_intent.awaiting_capture", EventType::PaymentIntentAwaitingCapture),
            ("checkout_session.expired", EventType::CheckoutSessionExpired),
        ] {
            let text = serde_json::to_string(&recipes()[held_or_none]).unwrap();
            let steps = parse(&Source { label: "r", text: &text }).unwrap();
            assert!(through_a_page(steps, event_type).is_err(), "{held_or_none}");
        }
    }

    #[test]
    fn an_override_keeps_a_numbers_type_and_makes_new_fields_text() {
        let text = serde_json::to_string(&recipes()["payment_intent.succeeded"]).unwrap();
        let mut steps = parse(&Source { label: "r", text: &text }).unwrap();
        apply_override(&mut steps, "payment_intent:amount=7500").unwrap();
        apply_override(&mut steps, "payment_intent:metadata.order_id=42").unwrap();
        apply_override(&mut steps, "payment_intent:description=A=B").unwrap();
        let params = &steps[0].params;
        assert_eq!(params["amount"], json!(7500));
        assert_eq!(params["metadata"], json!({"order_id": "42"}));
        assert_eq!(params["description"], json!("A=B"));
        for bad in [
            "payment_intent:amount=lots",
            "nope:amount=1",
            "payment_intent",
            "payment_intent:=1",
            "payment_intent:amount.x=1",
        ] {
            assert!(apply_override(&mut steps, bad).is_err(), "{bad}");
        }
    }
}
