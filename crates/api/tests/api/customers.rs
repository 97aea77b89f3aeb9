//! Customers end to end: every endpoint, JSON and PayRex-style form bodies, and every validation rule.

use crate::helpers::{error_codes, ids, read, single_error, TestApp};
use futures_util::future::join_all;
use reqwest::Method;
use serde_json::{json, Value};

on_both_backends!(
    creating_a_customer_with_a_form_body_returns_every_field,
    creating_a_customer_with_json_returns_it_and_it_can_be_retrieved,
    a_given_prefix_and_sequence_number_are_kept,
    updating_a_customer_changes_only_the_given_fields,
    deleting_a_customer_leaves_a_retrievable_tombstone,
    each_validation_error_is_reported_and_nothing_is_created,
    a_statement_prefix_in_use_is_refused,
    an_unknown_customer_is_not_found,
    the_list_filters_by_name_and_email,
    the_list_filters_by_metadata_pairs_and_keys,
    concurrent_updates_never_fail_with_a_server_error,
);

const FIELDS: [&str; 12] = [
    "id",
    "resource",
    "billing_statement_prefix",
    "billing",
    "currency",
    "email",
    "name",
    "livemode",
    "metadata",
    "next_billing_statement_sequence_number",
    "created_at",
    "updated_at",
];

fn assert_customer_shape(customer: &Value) {
    for field in FIELDS {
        assert!(customer.get(field).is_some(), "{field} missing from {customer}");
    }
    let id = customer["id"].as_str().expect("id");
    assert!(id.starts_with("cus_") && id.len() == 4 + 32, "{id}");
    assert_eq!(customer["resource"], "customer");
    assert!(customer["created_at"].as_i64().is_some_and(|t| t > 1_700_000_000), "{customer}");
}

async fn creating_a_customer_with_a_form_body_returns_every_field(app: TestApp) {
    // Exactly as PayRex's clients encode it: brackets for nested keys, percent-encoding, + for space.
    let body =
        "name=Juan+dela+Cruz&email=juan%40example.com&currency=PHP&metadata[order_id]=A-1&metadata%5Bsource%5D=web\
                &billing[phone]=%2B639171234567&billing[address][line1]=1+Ayala+Ave&billing[address][city]=Makati\
                &billing[address][postal_code]=1226&billing[address][country]=PH";
    let (status, customer) = read(app.form(Method::POST, "/customers", &app.keys.secret_test, body).await).await;
    assert_eq!(status, 200, "{customer}");
    assert_customer_shape(&customer);
    assert_eq!(customer["name"], "Juan dela Cruz");
    assert_eq!(customer["email"], "juan@example.com");
    assert_eq!(customer["currency"], "PHP");
    assert_eq!(customer["livemode"], false);
    assert_eq!(customer["metadata"], json!({"order_id": "A-1", "source": "web"}));
    assert_eq!(customer["next_billing_statement_sequence_number"], "1");
    let prefix = customer["billing_statement_prefix"].as_str().expect("prefix");
    assert!(prefix.len() == 8 && prefix.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()), "{prefix}");
    assert_eq!(
        customer["billing"],
        json!({"phone": "+639171234567", "address": {"line1": "1 Ayala Ave", "line2": null, "city": "Makati",
               "state": null, "postal_code": "1226", "country": "PH"}})
    );
}

async fn creating_a_customer_with_json_returns_it_and_it_can_be_retrieved(app: TestApp) {
    let body = json!({"name": "Maria", "email": "maria@example.com", "currency": "PHP"});
    let (status, created) = read(app.json(Method::POST, "/customers", &app.keys.secret_test, &body).await).await;
    assert_eq!(status, 200, "{created}");
    assert_customer_shape(&created);
    assert_eq!(created["billing"], Value::Null);
    assert_eq!(created["metadata"], Value::Null);
    let (status, fetched) = read(app.get(&format!("/customers/{}", created["id"].as_str().unwrap())).await).await;
    assert_eq!(status, 200);
    assert_eq!(fetched, created);
}

async fn a_given_prefix_and_sequence_number_are_kept(app: TestApp) {
    let body = "name=Ana&email=ana%40example.com&currency=PHP&billing_statement_prefix=ANA2026&next_billing_statement_sequence_number=42";
    let (status, customer) = read(app.form(Method::POST, "/customers", &app.keys.secret_test, body).await).await;
    assert_eq!(status, 200, "{customer}");
    assert_eq!(customer["billing_statement_prefix"], "ANA2026");
    assert_eq!(customer["next_billing_statement_sequence_number"], "42");
    let body = json!({"name": "Ben", "email": "ben@example.com", "currency": "PHP", "next_billing_statement_sequence_number": 7});
    let (status, customer) = read(app.json(Method::POST, "/customers", &app.keys.secret_test, &body).await).await;
    assert_eq!(status, 200, "{customer}");
    assert_eq!(customer["next_billing_statement_sequence_number"], "7");
}

async fn updating_a_customer_changes_only_the_given_fields(app: TestApp) {
    let created = app.create_customer("Ana").await;
    let path = format!("/customers/{}", created["id"].as_str().unwrap());
    let body = "name=Ana+Reyes&metadata[tier]=gold&billing[address][country]=ph";
    let (status, updated) = read(app.form(Method::PUT, &path, &app.keys.secret_test, body).await).await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["name"], "Ana Reyes");
    assert_eq!(updated["email"], created["email"]);
    assert_eq!(updated["billing_statement_prefix"], created["billing_statement_prefix"]);
    assert_eq!(updated["metadata"], json!({"tier": "gold"}));
    assert_eq!(updated["billing"]["address"]["country"], "PH");
    assert_eq!(updated["created_at"], created["created_at"]);
    let (_, fetched) = read(app.get(&path).await).await;
    assert_eq!(fetched, updated);
    let bad = json!({"email": "nope", "currency": "EUR"});
    let (status, body) = read(app.json(Method::PUT, &path, &app.keys.secret_test, &bad).await).await;
    assert_eq!(status, 400);
    assert_eq!(
        error_codes(&body),
        vec![("email".into(), "parameter_invalid".into()), ("currency".into(), "parameter_invalid".into())]
    );
    let (_, unchanged) = read(app.get(&path).await).await;
    assert_eq!(unchanged, updated, "a refused update changes nothing");
}

async fn deleting_a_customer_leaves_a_retrievable_tombstone(app: TestApp) {
    let created = app.create_customer("Ana").await;
    let id = created["id"].as_str().unwrap();
    let path = format!("/customers/{id}");
    let (status, deleted) = read(app.request(Method::DELETE, &path, &app.keys.secret_test).send().await.unwrap()).await;
    assert_eq!(status, 200);
    let tombstone = json!({"id": id, "resource": "customer", "deleted": true});
    assert_eq!(deleted, tombstone);
    let (status, fetched) = read(app.get(&path).await).await;
    assert_eq!((status, fetched), (200, tombstone));
    let (_, list) = read(app.get("/customers").await).await;
    assert!(ids(&list).is_empty(), "{list}");
    let (status, body) = read(app.request(Method::DELETE, &path, &app.keys.secret_test).send().await.unwrap()).await;
    assert_eq!(status, 404);
    single_error(&body, "resource_not_found");
    let (status, _) = read(app.form(Method::PUT, &path, &app.keys.secret_test, "name=Again").await).await;
    assert_eq!(status, 404);
}

async fn each_validation_error_is_reported_and_nothing_is_created(app: TestApp) {
    let cases: Vec<(Value, &str, &str)> = vec![
        (json!({"email": "a@example.com", "currency": "PHP"}), "name", "parameter_required"),
        (json!({"name": "A", "currency": "PHP"}), "email", "parameter_required"),
        (json!({"name": "A", "email": "a@example.com"}), "currency", "parameter_required"),
        (json!({"name": "A", "email": "not-an-email", "currency": "PHP"}), "email", "parameter_invalid"),
        (
            json!({"name": "A", "email": "Victim\r\nBcc: x@evil.example <juan@example.com>", "currency": "PHP"}),
            "email",
            "parameter_invalid",
        ),
        (json!({"name": "A", "email": "Juan <juan@example.com>", "currency": "PHP"}), "email", "parameter_invalid"),
        (
            json!({"name": "A", "email": "a@example.com, b@example.com", "currency": "PHP"}),
            "email",
            "parameter_invalid",
        ),
        (json!({"name": "A", "email": "a@example.com", "currency": "USD"}), "currency", "parameter_invalid"),
        (json!({"name": "   ", "email": "a@example.com", "currency": "PHP"}), "name", "parameter_invalid"),
        (json!({"name": 12, "email": "a@example.com", "currency": "PHP"}), "name", "parameter_type_invalid"),
        (
            json!({"name": "A", "email": "a@example.com", "currency": "PHP", "billing_statement_prefix": "ab"}),
            "billing_statement_prefix",
            "parameter_invalid",
        ),
        (
            json!({"name": "A", "email": "a@example.com", "currency": "PHP", "billing_statement_prefix": "ABCDEFGHIJKLMNOP"}),
            "billing_statement_prefix",
            "parameter_invalid",
        ),
        (
            json!({"name": "A", "email": "a@example.com", "currency": "PHP", "billing_statement_prefix": "AB-12"}),
            "billing_statement_prefix",
            "parameter_invalid",
        ),
        (
            json!({"name": "A", "email": "a@example.com", "currency": "PHP", "next_billing_statement_sequence_number": "0"}),
            "next_billing_statement_sequence_number",
            "parameter_below_minimum",
        ),
        (
            json!({"name": "A", "email": "a@example.com", "currency": "PHP", "next_billing_statement_sequence_number": "abc"}),
            "next_billing_statement_sequence_number",
            "parameter_invalid",
        ),
        (
            json!({"name": "A", "email": "a@example.com", "currency": "PHP", "next_billing_statement_sequence_number": 1.5}),
            "next_billing_statement_sequence_number",
            "parameter_type_invalid",
        ),
        (
            json!({"name": "A", "email": "a@example.com", "currency": "PHP", "metadata": {"k": 1}}),
            "metadata[k]",
            "parameter_type_invalid",
        ),
        (
            json!({"name": "A", "email": "a@example.com", "currency": "PHP", "metadata": "x"}),
            "metadata",
            "parameter_type_invalid",
        ),
        (
            json!({"name": "A", "email": "a@example.com", "currency": "PHP", "billing": {"address": {"country": "PHL"}}}),
            "billing[address][country]",
            "parameter_invalid",
        ),
        (
            json!({"name": "A", "email": "a@example.com", "currency": "PHP", "billing": {"fax": "1"}}),
            "billing[fax]",
            "parameter_invalid",
        ),
        (
            json!({"name": "A", "email": "a@example.com", "currency": "PHP", "nickname": "x"}),
            "nickname",
            "parameter_invalid",
        ),
    ];
    for (body, parameter, code) in cases {
        let (status, answer) = read(app.json(Method::POST, "/customers", &app.keys.secret_test, &body).await).await;
        assert_eq!(status, 400, "{body} -> {answer}");
        assert_eq!(error_codes(&answer), vec![(parameter.to_owned(), code.to_owned())], "{body}");
        let detail = answer["errors"][0]["detail"].as_str().unwrap_or_default();
        assert!(!detail.is_empty(), "a detail explains {code}");
    }
    let form = "email=a%40example.com&currency=USD&metadata=x&metadata[k]=v";
    let (status, answer) = read(app.form(Method::POST, "/customers", &app.keys.secret_test, form).await).await;
    assert_eq!(status, 400, "{answer}");
    let (_, list) = read(app.get("/customers").await).await;
    assert!(ids(&list).is_empty(), "no customer was created: {list}");
}

async fn a_statement_prefix_in_use_is_refused(app: TestApp) {
    let body = json!({"name": "A", "email": "a@example.com", "currency": "PHP", "billing_statement_prefix": "ACME"});
    let (status, first) = read(app.json(Method::POST, "/customers", &app.keys.secret_test, &body).await).await;
    assert_eq!(status, 200, "{first}");
    let (status, answer) = read(app.json(Method::POST, "/customers", &app.keys.secret_test, &body).await).await;
    assert_eq!(status, 400);
    assert_eq!(error_codes(&answer), vec![("billing_statement_prefix".into(), "parameter_invalid".into())]);
    let (status, _) = read(app.json(Method::POST, "/customers", &app.keys.secret_live, &body).await).await;
    assert_eq!(status, 200, "prefixes are unique per mode");
    let path = format!("/customers/{}", first["id"].as_str().unwrap());
    let (status, _) = read(app.request(Method::DELETE, &path, &app.keys.secret_test).send().await.unwrap()).await;
    assert_eq!(status, 200);
    let (status, _) = read(app.json(Method::POST, "/customers", &app.keys.secret_test, &body).await).await;
    assert_eq!(status, 200, "a deleted customer's prefix is free again");
}

async fn an_unknown_customer_is_not_found(app: TestApp) {
    for id in ["cus_missingMissingMissingMissing12", "nonsense", "pi_123"] {
        let (status, body) = read(app.get(&format!("/customers/{id}")).await).await;
        assert_eq!(status, 404, "{id}");
        let detail = single_error(&body, "resource_not_found");
        assert!(detail.contains("customer") && detail.contains(id), "{detail}");
    }
}

async fn the_list_filters_by_name_and_email(app: TestApp) {
    app.create_customer("Ana").await;
    let ben = app.create_customer("Ben").await;
    let (_, by_name) = read(app.get("/customers?name=Ben").await).await;
    assert_eq!(ids(&by_name), vec![ben["id"].as_str().unwrap().to_owned()]);
    let (_, by_email) = read(app.get("/customers/?email=ben%40example.com").await).await;
    assert_eq!(ids(&by_email), vec![ben["id"].as_str().unwrap().to_owned()]);
    let (_, none) = read(app.get("/customers?email=nobody%40example.com").await).await;
    assert_eq!(none, json!({"resource": "list", "data": [], "has_more": false}));
}

async fn concurrent_updates_never_fail_with_a_server_error(app: TestApp) {
    let created = app.create_customer("Ana").await;
    let path = format!("/customers/{}", created["id"].as_str().unwrap());
    let updates = (0..10).map(|n| {
        let (app, path) = (&app, &path);
        async move { read(app.form(Method::PUT, path, &app.keys.secret_test, &format!("name=Name{n}")).await).await }
    });
    let outcomes = join_all(updates).await;
    let succeeded = outcomes.iter().filter(|(status, _)| *status == 200).count();
    for (status, body) in &outcomes {
        assert!(
            *status == 200 || (*status == 409 && body["errors"][0]["code"] == "resource_conflict"),
            "{status} {body}"
        );
    }
    assert!(succeeded >= 1);
    let (_, last) = read(app.get(&path).await).await;
    assert!(last["name"].as_str().unwrap().starts_with("Name"), "{last}");
}

async fn the_list_filters_by_metadata_pairs_and_keys(app: TestApp) {
    let app = &app;
    let create = |name: &str, metadata: &str| {
        let body = format!("name={name}&email={}%40example.com&currency=PHP{metadata}", name.to_lowercase());
        async move {
            let (status, customer) = app.post("/customers", &body).await;
            assert_eq!(status, 200, "{customer}");
            customer["id"].as_str().unwrap().to_owned()
        }
    };
    let gold = create("Ana", "&metadata[tier]=gold&metadata[region]=north").await;
    let silver = create("Ben", "&metadata[tier]=silver&metadata[region]=north").await;
    let plain = create("Cai", "").await;
    let listed = |query: &'static str| async move {
        let (status, list) = read(app.get(&format!("/customers?{query}")).await).await;
        assert_eq!(status, 200, "{query}: {list}");
        ids(&list)
    };
    assert_eq!(listed("metadata[tier]=gold").await, vec![gold.clone()]);
    assert_eq!(listed("metadata[region]=north").await, vec![silver.clone(), gold.clone()]);
    assert_eq!(listed("metadata[region]=north&metadata[tier]=silver").await, vec![silver.clone()]);
    assert!(listed("metadata[tier]=bronze").await.is_empty());
    // What PayRex's Python client sends for `metadata={...}` in a query: the keys only.
    assert_eq!(listed("metadata=tier").await, vec![silver.clone(), gold.clone()]);
    assert_eq!(listed("metadata=tier&metadata=region").await, vec![silver.clone(), gold.clone()]);
    assert!(listed("metadata=unknown").await.is_empty());
    assert_eq!(listed("").await, vec![plain.clone(), silver.clone(), gold.clone()]);

    let (status, _) = read(
        app.form(Method::PUT, &format!("/customers/{silver}"), &app.keys.secret_test, "metadata[tier]=gold").await,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(listed("metadata[tier]=gold").await, vec![silver.clone(), gold.clone()], "updates move the filter");
    assert!(listed("metadata=region").await.contains(&gold), "metadata replaced wholesale drops old keys");
    assert!(!listed("metadata=region").await.contains(&silver));
    let (status, _) =
        read(app.request(Method::DELETE, &format!("/customers/{gold}"), &app.keys.secret_test).send().await.unwrap())
            .await;
    assert_eq!(status, 200);
    assert_eq!(listed("metadata[tier]=gold").await, vec![silver], "deleted customers are not listed");
    let (status, list) =
        read(app.request(Method::GET, "/customers?metadata[tier]=gold", &app.other_account_key).send().await.unwrap())
            .await;
    assert_eq!((status, ids(&list).len()), (200, 0), "another account sees none");
}
