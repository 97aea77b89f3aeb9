//! The document's `webhooks`: one entry per event type, the event a merchant's endpoint receives
//! with the object it is about as `data`, signed in the `Payrex-Signature` header.

use crate::representation::billing_statement::BillingStatementResource;
use crate::representation::billing_statement_line_item::BillingStatementLineItemResource;
use crate::representation::checkout_session::CheckoutSessionResource;
use crate::representation::event::EventResource;
use crate::representation::payment::PaymentResource;
use crate::representation::payment_intent::PaymentIntentResource;
use crate::representation::refund::RefundResource;
use crate::representation::setup_intent::SetupIntentResource;
use crate::routes::endpoint::Component;
use payments_adapters::webhooks::SIGNATURE_HEADER;
use payments_domain::event::{EventSubject, EventType};
use utoipa::openapi::path::{HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{AllOfBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::{Content, Paths, Ref, RefOr, Required, ResponseBuilder};

/// The schema of what events about `subject` carry as `data`.
fn data_of(subject: EventSubject) -> Component {
    match subject {
        EventSubject::PaymentIntent => Component::of::<PaymentIntentResource>(),
        EventSubject::Payment => Component::of::<PaymentResource>(),
        EventSubject::Refund => Component::of::<RefundResource>(),
        EventSubject::SetupIntent => Component::of::<SetupIntentResource>(),
        EventSubject::CheckoutSession => Component::of::<CheckoutSessionResource<PaymentIntentResource>>(),
        EventSubject::BillingStatement => Component::of::<BillingStatementResource<PaymentIntentResource>>(),
        EventSubject::BillingStatementLineItem => Component::of::<BillingStatementLineItemResource>(),
        EventSubject::Payout => Component::of::<crate::representation::payout::PayoutResource>(),
    }
}

/// A webhook per event type; the schemas they refer to are added to `schemas`.
pub(super) fn paths(schemas: &mut Vec<(String, RefOr<Schema>)>) -> Paths {
    let event = Component::of::<EventResource>();
    event.collect_into(schemas);
    let mut paths = Paths::new();
    for event_type in EventType::ALL {
        let name = event_type.as_str();
        let mut payload = AllOfBuilder::new().item(Ref::from_schema_name((event.name)()));
        let data = data_of(event_type.subject());
        data.collect_into(schemas);
        let about = ObjectBuilder::new()
            .schema_type(Type::Object)
            .property("type", ObjectBuilder::new().schema_type(Type::String).enum_values(Some([name])))
            .property("data", Ref::from_schema_name((data.name)()));
        payload = payload.item(about);
        let signature = ParameterBuilder::new()
            .name(SIGNATURE_HEADER)
            .parameter_in(ParameterIn::Header)
            .required(Required::True)
            .description(Some(
                "`t=<unix seconds>,te=<hex>,li=<hex>`: HMAC-SHA256 with the webhook's secret key of \
                 `<t>.<body>`, in `te` for test-mode events and in `li` for live ones.",
            ))
            .schema(Some(ObjectBuilder::new().schema_type(Type::String)));
        let operation = OperationBuilder::new()
            .operation_id(Some(format!("webhook_{}", name.replace('.', "_"))))
            .summary(Some(format!("The `{name}` event")))
            .tag("webhooks")
            .parameter(signature)
            .request_body(Some(
                RequestBodyBuilder::new()
                    .required(Some(Required::True))
                    .content("application/json", Content::new(Some(Schema::AllOf(payload.build()))))
                    .build(),
            ))
            .response(
                "200",
                ResponseBuilder::new()
                    .description("Any 2xx answer within the timeout acknowledges the event; others are retried."),
            )
            .build();
        paths.add_path_operation(name, vec![HttpMethod::Post], operation);
    }
    paths
}
