//! Products and pages in the console, over HTTP on both backends: a merchant makes a product, its
//! prices (typed in pesos) and a storefront page with questions through the console's forms, as
//! the API then shows them; every bad form is refused with the API's words and changes nothing; the
//! page's payments show with each customer's answers, on its page and in its CSV; the page is
//! edited and deactivated; another account's session sees none of it.

use crate::checkout_sessions::{card_fields, visit};
use crate::console::Console;
use crate::helpers::{read, TestApp};
use crate::pages::place;

on_both_backends!(a_merchant_makes_a_page_in_the_console_and_reads_its_payments_and_answers);

/// The id in a console address `/dashboard/<section>/<id>?done=…`.
fn id_in(location: &str) -> String {
    location.rsplit('/').next().unwrap().split('?').next().unwrap().to_owned()
}

async fn count(app: &TestApp, path: &str) -> usize {
    let (status, list) = read(app.get(&format!("{path}{}limit=100", if path.contains('?') { "&" } else { "?" })).await).await;
    assert_eq!(status, 200, "{list}");
    list["data"].as_array().unwrap().len()
}

async fn a_merchant_makes_a_page_in_the_console_and_reads_its_payments_and_answers(app: TestApp) {
    let mut console = Console::new(&app);
    console.sign_in(&app.keys.secret_test).await;
    let token = console.form_token().await;
    let with_token = |fields: &[(&'static str, &'static str)]| {
        let mut all = vec![("form_token", token.clone())];
        all.extend(fields.iter().map(|(key, value)| (*key, (*value).to_owned())));
        all
    };
    let post = |path: String, fields: Vec<(&'static str, String)>| {
        let console = &console;
        async move {
            let borrowed: Vec<(&str, &str)> = fields.iter().map(|(key, value)| (*key, value.as_str())).collect();
            console.post(&path, &borrowed).await
        }
    };

    // A product and its prices, typed in pesos.
    let (status, location) =
        post("/dashboard/products".into(), with_token(&[("name", "Mug"), ("description", "Stoneware")])).await;
    assert_eq!(status, 303, "{location}");
    assert!(location.ends_with("?done=created"), "{location}");
    let product = id_in(&location);
    let prices_path = format!("/dashboard/products/{product}/prices");
    let (status, location) = post(prices_path.clone(), with_token(&[("amount", "250"), ("description", "Large")])).await;
    assert_eq!((status, location.ends_with("?done=price_added")), (303, true), "{location}");
    let (status, location) = post(prices_path.clone(), with_token(&[("amount", "1,500.50")])).await;
    assert_eq!(status, 303, "{location}");
    let (_, prices) = read(app.get(&format!("/prices?product_id={product}")).await).await;
    let amounts: Vec<i64> = prices["data"].as_array().unwrap().iter().map(|price| price["amount"].as_i64().unwrap()).collect();
    assert_eq!(amounts, [150_050, 25_000], "newest first, in centavos");
    let large = prices["data"][1]["id"].as_str().unwrap().to_owned();
    let odd = prices["data"][0]["id"].as_str().unwrap().to_owned();
    for (amount, says) in [("12.345", "in pesos"), ("abc", "in pesos"), ("0", "amount"), ("", "amount")] {
        let page = console.post_form(&prices_path, &[("form_token", &token), ("amount", amount)]).await;
        assert_eq!(page.status(), 400, "{amount}");
        let text = page.text().await.unwrap();
        assert!(text.contains(says), "{amount}: {text}");
    }
    assert_eq!(count(&app, &format!("/prices?product_id={product}")).await, 2, "nothing made");
    let (status, _) = post(format!("{prices_path}/{odd}"), with_token(&[("active", "false")])).await;
    assert_eq!(status, 303);
    let (_, archived) = read(app.get(&format!("/prices/{odd}")).await).await;
    assert_eq!(archived["active"], false);
    let (status, page) = console.get(&format!("/dashboard/products/{product}")).await;
    assert_eq!(status, 200);
    assert!(page.contains("₱250.00") && page.contains("₱1,500.50") && page.contains("archived"), "{page}");
    let refused = console.post_form(&format!("/dashboard/products/{product}/delete"), &[("form_token", &token)]).await;
    assert_eq!(refused.status(), 400, "a priced product is not deleted");
    assert_eq!(read(app.get(&format!("/products/{product}")).await).await.0, 200);

    // The form that makes a page offers what is sold, not the archived price.
    let (status, form) = console.get("/dashboard/pages/new").await;
    assert_eq!(status, 200);
    assert!(form.contains(&large) && !form.contains(&odd), "{form}");

    // Bad pages: each refused with the API's words, and no page made.
    let storefront = |extra: &[(&'static str, String)]| {
        let mut fields = with_token(&[
            ("title", "Merch"),
            ("template", "storefront"),
            ("custom_fields[0][name]", "Size"),
            ("custom_fields[0][type]", "dropdown"),
            ("custom_fields[0][options]", "S\r\nM\r\n\r\nL\r\n"),
            ("custom_fields[0][required]", "true"),
            ("custom_fields[1][name]", "Note"),
            ("custom_fields[1][type]", "text"),
            ("payment_methods[]", "card"),
            ("after_payment_message", "Salamat!"),
        ]);
        fields.extend(extra.iter().cloned());
        fields
    };
    for (extra, says) in [
        (vec![], "prices"),
        (vec![("prices[]", odd.clone())], "archived"),
        (vec![("prices[]", large.clone()), ("amount", "12.5.0".to_owned())], "in pesos"),
        (vec![("prices[]", large.clone()), ("amount", "100".to_owned())], "template=fixed_amount"),
        (vec![("prices[]", large.clone()), ("custom_fields[2][name]", "Colour".to_owned()), ("custom_fields[2][type]", "dropdown".to_owned())], "options"),
        (vec![("prices[]", "price_nothere".to_owned())], "No price"),
    ] {
        let fields = storefront(&extra);
        let borrowed: Vec<(&str, &str)> = fields.iter().map(|(key, value)| (*key, value.as_str())).collect();
        let page = console.post_form("/dashboard/pages", &borrowed).await;
        assert!(page.status().is_client_error(), "{extra:?}");
        let text = page.text().await.unwrap();
        assert!(text.contains(says), "{extra:?}: {text}");
    }
    assert_eq!(count(&app, "/pages").await, 0, "no page made");

    // The page: a dropdown's options from its lines, blank question rows left out.
    let (status, location) =
        post("/dashboard/pages".into(), storefront(&[("prices[]", large.clone()), ("custom_fields[2][name]", String::new())])).await;
    assert_eq!(status, 303, "{location}");
    let page_id = id_in(&location);
    let (_, made) = read(app.get(&format!("/pages/{page_id}")).await).await;
    assert_eq!(made["custom_fields"].as_array().unwrap().len(), 2, "{made}");
    assert_eq!(made["custom_fields"][0]["options"], serde_json::json!(["S", "M", "L"]));
    assert_eq!((made["custom_fields"][0]["required"].as_bool(), made["after_payment_message"].as_str()), (Some(true), Some("Salamat!")));
    let size = made["custom_fields"][0]["id"].as_str().unwrap().to_owned();
    let note = made["custom_fields"][1]["id"].as_str().unwrap().to_owned();

    // Two customers pay it; one more orders and leaves. The page shows the two payments with
    // each one's answers, and its CSV has them.
    for (quantity, answer) in [(2, "=HYPERLINK(\"x\")"), (1, "Gift wrap")] {
        let order = format!("quantity[{large}]={quantity}&custom_fields[{size}]=M&custom_fields[{note}]={}", crate::browser::percent(answer));
        let (status, location, body) = place(&app, &page_id, &order).await;
        assert_eq!(status, 303, "{body}");
        let paid = visit(&format!("{}{location}", app.address)).await.submit(&card_fields("4242424242424242")).await;
        assert_eq!(paid.status().as_u16(), 303);
    }
    let (status, _, _) = place(&app, &page_id, &format!("quantity[{large}]=1&custom_fields[{size}]=S")).await;
    assert_eq!(status, 303);
    let (status, shown) = console.get(&format!("/dashboard/pages/{page_id}")).await;
    assert_eq!(status, 200);
    assert!(shown.contains("2 × Mug (Large)") && shown.contains("Gift wrap") && shown.contains("₱500.00"), "{shown}");
    assert!(shown.contains(&format!("/p/{page_id}")), "its public address: {shown}");
    let (status, csv) = console.get(&format!("/dashboard/pages/{page_id}/payments.csv")).await;
    assert_eq!(status, 200);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    assert_eq!(
        reader.headers().unwrap().iter().collect::<Vec<_>>(),
        ["payment_id", "created_at", "status", "amount", "amount_refunded", "customer_name", "customer_email", "items", "Size", "Note"]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2, "the paid orders only: {csv}");
    assert_eq!((&rows[0][3], &rows[0][7], &rows[0][8], &rows[0][9]), ("25000", "1 × Mug (Large)", "M", "Gift wrap"));
    assert_eq!(&rows[1][9], "'=HYPERLINK(\"x\")", "a formula is shown, not run");
    for row in &rows {
        let (_, payment) = read(app.get(&format!("/payments/{}", &row[0])).await).await;
        assert_eq!(payment["page_session"]["custom_fields"][0]["value"], "M", "{payment}");
        assert_eq!(payment["amount"].as_i64().map(|amount| amount.to_string()).as_deref(), Some(&row[3]));
    }

    // Edited and deactivated from the console, as the API shows it; its address takes no order.
    let (status, _) = post(format!("/dashboard/pages/{page_id}"), with_token(&[("title", "Merch 2027")])).await;
    assert_eq!(status, 303);
    let bad = console.post_form(&format!("/dashboard/pages/{page_id}"), &[("form_token", &token), ("title", " ")]).await;
    assert_eq!(bad.status(), 400);
    let (status, _) = post(format!("/dashboard/pages/{page_id}"), with_token(&[("active", "false")])).await;
    assert_eq!(status, 303);
    let (_, page) = read(app.get(&format!("/pages/{page_id}")).await).await;
    assert_eq!((page["title"].as_str(), page["active"].as_bool()), (Some("Merch 2027"), Some(false)));
    let (status, _, body) = place(&app, &page_id, &format!("quantity[{large}]=1&custom_fields[{size}]=S")).await;
    assert!(status >= 400 && body.contains("no longer"), "{status}: {body}");

    // Another account's session, or the live mode's, sees and touches none of it.
    for key in [app.other_account_key.clone(), app.keys.secret_live.clone()] {
        let mut stranger = Console::new(&app);
        stranger.sign_in(&key).await;
        let paths = [
            format!("/dashboard/pages/{page_id}"),
            format!("/dashboard/pages/{page_id}/payments.csv"),
            format!("/dashboard/products/{product}"),
        ];
        for path in paths {
            let (status, page) = stranger.get(&path).await;
            assert_eq!(status, 404, "{path}");
            assert!(!page.contains("Mug") && !page.contains("Gift wrap"), "{path}: {page}");
        }
        let stranger_token = stranger.form_token().await;
        let path = format!("/dashboard/pages/{page_id}");
        assert_eq!(stranger.post_form(&path, &[("form_token", &stranger_token), ("active", "true")]).await.status(), 404);
        let (_, listed) = stranger.get("/dashboard/pages").await;
        assert!(!listed.contains(&page_id), "{listed}");
    }
    assert_eq!(read(app.get(&format!("/pages/{page_id}")).await).await.1["active"], false, "untouched");
}
