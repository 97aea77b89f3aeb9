//! Webhook secrets that rotate, and the Standard Webhooks headers: after a rotation deliveries are
//! signed with the new secret where PayRex's clients read it and, until the overlap ends, with the
//! old one after it; every delivery carries `webhook-id`, `webhook-timestamp` and
//! `webhook-signature` with each valid secret's signature.

use crate::helpers::{read, TestApp};
use crate::receiver::{Received, Receiver};
use crate::webhooks::{pay, register};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use reqwest::Method;
use serde_json::Value;
use sha2::Sha256;
use std::time::Duration;

on_both_backends!(a_rotated_secret_signs_beside_the_new_one_until_the_overlap_ends);
on_one_backend!(only_the_accounts_secret_key_rotates_its_webhooks_secret);

const WAIT: Duration = Duration::from_secs(10);

fn mac(secret: &str, signed: &str) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(signed.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// `Payrex-Signature` checked as PayRex's clients check it: the first three positions.
fn payrex_verifies(delivery: &Received, secret: &str) -> bool {
    let parts: Vec<&str> = delivery.signature.split(',').collect();
    let (Some(t), Some(te)) = (parts[0].strip_prefix("t="), parts.get(1).and_then(|p| p.strip_prefix("te="))) else {
        return false;
    };
    te == hex::encode(mac(secret, &format!("{t}.{}", delivery.body)))
}

/// Every `te=` signature of the header, in order.
fn test_mode_signatures(delivery: &Received) -> Vec<String> {
    delivery.signature.split(',').filter_map(|part| part.strip_prefix("te=")).map(str::to_owned).collect()
}

/// Whether one of the `webhook-signature` entries is `secret`'s.
fn standard_verifies(delivery: &Received, secret: &str) -> bool {
    let [id, timestamp, signatures] = &delivery.standard;
    let expected = format!("v1,{}", STANDARD.encode(mac(secret, &format!("{id}.{timestamp}.{}", delivery.body))));
    signatures.split(' ').any(|signature| signature == expected)
}

async fn a_rotated_secret_signs_beside_the_new_one_until_the_overlap_ends(app: TestApp) {
    let receiver = Receiver::start(Vec::new());
    let webhook = register(&app, &receiver.url, &["payment.paid"]).await;
    let (id, old) = (webhook["id"].as_str().unwrap(), webhook["secret_key"].as_str().unwrap().to_owned());
    pay(&app).await;
    let before = receiver.wait_for(1, WAIT).await.remove(0);
    let event: Value = serde_json::from_str(&before.body).unwrap();
    assert_eq!(before.standard[0], event["id"].as_str().unwrap(), "webhook-id is the event's id");
    assert_eq!(format!("t={},", before.standard[1]), before.signature[..before.signature.find(',').unwrap() + 1]);
    assert!(standard_verifies(&before, &old) && before.standard[2].split(' ').count() == 1);

    let (status, rotated) = app.post(&format!("/webhooks/{id}/rotate_secret"), "").await;
    assert_eq!(status, 200, "{rotated}");
    let new = rotated["secret_key"].as_str().unwrap().to_owned();
    assert!(new.starts_with("whsk_") && new != old, "{rotated}");
    let (_, read_back) = read(app.get(&format!("/webhooks/{id}")).await).await;
    assert_eq!(read_back["secret_key"], new.as_str());

    pay(&app).await;
    let during = receiver.wait_for(2, WAIT).await.remove(1);
    assert!(payrex_verifies(&during, &new), "PayRex's clients verify with the new secret: {}", during.signature);
    assert!(!payrex_verifies(&during, &old), "and only with it, in the first three positions");
    let signed = format!("{}.{}", &during.signature[2..during.signature.find(',').unwrap()], during.body);
    assert_eq!(test_mode_signatures(&during), vec![hex::encode(mac(&new, &signed)), hex::encode(mac(&old, &signed))]);
    assert!(standard_verifies(&during, &new) && standard_verifies(&during, &old), "{:?}", during.standard);

    // A day on in real time the overlap is over: the new secret alone.
    app.clock.advance(24 * 60 * 60 + 1);
    pay(&app).await;
    let after = receiver.wait_for(3, WAIT).await.remove(2);
    assert_eq!(after.signature.split(',').count(), 3, "{}", after.signature);
    assert!(payrex_verifies(&after, &new) && standard_verifies(&after, &new) && !standard_verifies(&after, &old));
}

async fn only_the_accounts_secret_key_rotates_its_webhooks_secret(app: TestApp) {
    let webhook = register(&app, "https://shop.example/hooks", &["payment.paid"]).await;
    let path = format!("/webhooks/{}/rotate_secret", webhook["id"].as_str().unwrap());
    let other = read(app.form(Method::POST, &path, &app.other_account_key, "").await).await;
    assert_eq!(other.0, 404, "{}", other.1);
    let live = read(app.form(Method::POST, &path, &app.keys.secret_live, "").await).await;
    assert_eq!(live.0, 404, "another mode's webhook: {}", live.1);
    let public = read(app.form(Method::POST, &path, &app.keys.public_test, "").await).await;
    assert_eq!(public.0, 401, "{}", public.1);
    let with_body = app.post(&path, "secret_key=mine").await;
    assert_eq!(with_body.0, 400, "no parameters: {}", with_body.1);
    let (_, unchanged) = read(app.get(&format!("/webhooks/{}", webhook["id"].as_str().unwrap())).await).await;
    assert_eq!(unchanged["secret_key"], webhook["secret_key"], "nothing refused changed it");
}
