//! Payments and refunds over HTTP, including refunds racing each other.

use crate::helpers::{decide, error_codes, read, single_error, TestApp};
use futures_util::future::join_all;
use reqwest::Method;
use serde_json::{json, Value};

on_both_backends!(
    a_payment_can_be_retrieved_and_updated,
    refunds_add_up_to_the_payment_and_no_further,
    refund_requests_are_validated,
    ten_simultaneous_refunds_never_exceed_the_payment,
    a_refund_metadata_update_is_an_event,
);

async fn paid_payment(app: &TestApp, method_body: Option<&str>) -> Value {
    let intent = app.create_intent(10_000, "&metadata[order]=9").await;
    let intent_id = intent["id"].as_str().unwrap();
    let paid = match method_body {
        None => app.attach_card(intent_id, "4242424242424242").await.1,
        Some(body) => {
            let (_, waiting) = app.post(&format!("/payment_intents/{intent_id}/attach"), body).await;
            let url = waiting["next_action"]["redirect_url"].as_str().unwrap().to_owned();
            assert_eq!(decide(&url, "authorize").await.status(), 303);
            read(app.get(&format!("/payment_intents/{intent_id}")).await).await.1
        }
    };
    paid["latest_payment"].clone()
}

fn refund_body(payment: &Value, amount: i64) -> String {
    format!("amount={amount}&currency=PHP&reason=requested_by_customer&payment_id={}", payment["id"].as_str().unwrap())
}

async fn a_payment_can_be_retrieved_and_updated(app: TestApp) {
    let payment = paid_payment(&app, None).await;
    let path = format!("/payments/{}", payment["id"].as_str().unwrap());
    let (status, fetched) = read(app.get(&path).await).await;
    assert_eq!((status, &fetched), (200, &payment));
    assert_eq!(fetched["metadata"], json!({"order": "9"}), "metadata is copied from the intent");
    assert_eq!(fetched["origin"], "api");
    let (status, updated) =
        read(app.form(Method::PUT, &path, &app.keys.secret_test, "description=Shipped&metadata[box]=3").await).await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!((updated["description"].as_str(), &updated["metadata"]), (Some("Shipped"), &json!({"box": "3"})));
    let (status, body) = read(app.form(Method::PUT, &path, &app.keys.secret_test, "amount=1").await).await;
    assert_eq!((status, error_codes(&body)), (400, vec![("amount".to_owned(), "parameter_invalid".to_owned())]));
    let (status, _) = read(app.get("/payments/pay_00000000000000000000000000000000").await).await;
    assert_eq!(status, 404);
    let (status, _) = read(app.request(Method::GET, &path, &app.other_account_key).send().await.unwrap()).await;
    assert_eq!(status, 404, "another account's payment is not found");
}

async fn refunds_add_up_to_the_payment_and_no_further(app: TestApp) {
    let payment = paid_payment(&app, None).await;
    let (status, refund) = app.post("/refunds", &refund_body(&payment, 4_000)).await;
    assert_eq!(status, 200, "{refund}");
    assert!(refund["id"].as_str().unwrap().starts_with("re_"));
    assert_eq!((refund["status"].as_str(), refund["amount"].as_i64()), (Some("succeeded"), Some(4_000)));
    let (status, body) = app.post("/refunds", &refund_body(&payment, 6_001)).await;
    assert_eq!((status, error_codes(&body)), (400, vec![("amount".to_owned(), "parameter_above_maximum".to_owned())]));
    let (status, _) = app.post("/refunds", &refund_body(&payment, 6_000)).await;
    assert_eq!(status, 200);
    let (_, after) = read(app.get(&format!("/payments/{}", payment["id"].as_str().unwrap())).await).await;
    assert_eq!((after["amount_refunded"].as_i64(), after["refunded"].as_bool()), (Some(10_000), Some(true)));
    let (status, _) = app.post("/refunds", &refund_body(&payment, 1)).await;
    assert_eq!(status, 400, "nothing is left to refund");
    let types = app.event_types().await;
    assert_eq!(types.iter().filter(|t| *t == "refund.created").count(), 2, "{types:?}");
    assert_eq!(types.iter().filter(|t| *t == "payment.refunded").count(), 2, "{types:?}");
}

async fn refund_requests_are_validated(app: TestApp) {
    let payment = paid_payment(&app, None).await;
    let payment_id = payment["id"].as_str().unwrap();
    let cases = [
        (format!("amount=-5&currency=PHP&reason=others&payment_id={payment_id}"), "amount", "parameter_below_minimum"),
        (format!("amount=100&currency=USD&reason=others&payment_id={payment_id}"), "currency", "parameter_invalid"),
        (format!("amount=100&currency=PHP&reason=whim&payment_id={payment_id}"), "reason", "parameter_invalid"),
        ("amount=100&currency=PHP&reason=others&payment_id=pay_unknown".to_owned(), "payment_id", "resource_not_found"),
        ("amount=100&currency=PHP&reason=others".to_owned(), "payment_id", "parameter_required"),
    ];
    for (body, parameter, code) in cases {
        let (status, answer) = app.post("/refunds", &body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(error_codes(&answer), vec![(parameter.to_owned(), code.to_owned())], "{body}");
    }
    let qrph = paid_payment(&app, Some("payment_method[type]=qrph")).await;
    let (status, answer) = app.post("/refunds", &refund_body(&qrph, 1_000)).await;
    assert_eq!((status, error_codes(&answer)), (400, vec![("payment_id".to_owned(), "parameter_invalid".to_owned())]));
    let declined = app.create_intent(10_000, "").await;
    app.attach_card(declined["id"].as_str().unwrap(), "4005550000000019").await;
    let (_, declined) = read(app.get(&format!("/payment_intents/{}", declined["id"].as_str().unwrap())).await).await;
    let (status, answer) = app.post("/refunds", &refund_body(&declined["latest_payment"], 1_000)).await;
    assert_eq!(status, 400);
    single_error(&answer, "resource_invalid_state");
}

async fn ten_simultaneous_refunds_never_exceed_the_payment(app: TestApp) {
    let payment = paid_payment(&app, None).await;
    let body = refund_body(&payment, 3_000);
    let outcomes = join_all((0..10).map(|_| app.post("/refunds", &body))).await;
    let refunded: i64 =
        outcomes.iter().filter(|(status, _)| *status == 200).map(|(_, r)| r["amount"].as_i64().unwrap()).sum();
    for (status, answer) in &outcomes {
        assert!(matches!(status, 200 | 400 | 409), "{status}: {answer}");
    }
    assert!(refunded <= 10_000, "refunded {refunded} of 10000");
    let (_, after) = read(app.get(&format!("/payments/{}", payment["id"].as_str().unwrap())).await).await;
    assert_eq!(after["amount_refunded"].as_i64(), Some(refunded), "the payment agrees with the refunds that succeeded");
}

async fn a_refund_metadata_update_is_an_event(app: TestApp) {
    let payment = paid_payment(&app, None).await;
    let (_, refund) = app.post("/refunds", &refund_body(&payment, 2_000)).await;
    let path = format!("/refunds/{}", refund["id"].as_str().unwrap());
    let (status, updated) =
        read(app.form(Method::PUT, &path, &app.keys.secret_test, "metadata[ticket]=T-1").await).await;
    assert_eq!((status, &updated["metadata"]), (200, &json!({"ticket": "T-1"})));
    let (status, body) = read(app.form(Method::PUT, &path, &app.keys.secret_test, "amount=5").await).await;
    assert_eq!((status, error_codes(&body)), (400, vec![("amount".to_owned(), "parameter_invalid".to_owned())]));
    assert_eq!(app.event_types().await.last().map(String::as_str), Some("refund.updated"));
    let (status, _) =
        read(app.form(Method::PUT, "/refunds/re_unknown", &app.keys.secret_test, "metadata[a]=b").await).await;
    assert_eq!(status, 404);
}
