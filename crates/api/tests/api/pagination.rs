//! List pagination: newest first, `after` and `before` cursors, `has_more`, and bad parameters.

use crate::helpers::{error_codes, ids, read, TestApp};

on_both_backends!(pages_walk_forward_with_after_and_back_with_before);
on_one_backend!(list_parameters_are_validated);

async fn pages_walk_forward_with_after_and_back_with_before(app: TestApp) {
    let mut created = Vec::new();
    for name in ["A", "B", "C", "D", "E"] {
        created.push(app.create_customer(name).await["id"].as_str().unwrap().to_owned());
    }
    let newest_first: Vec<String> = created.iter().rev().cloned().collect();
    let (_, page) = read(app.get("/customers?limit=2").await).await;
    assert_eq!((ids(&page), page["has_more"].as_bool()), (newest_first[0..2].to_vec(), Some(true)));
    let (_, page) = read(app.get(&format!("/customers?limit=2&after={}", newest_first[1])).await).await;
    assert_eq!((ids(&page), page["has_more"].as_bool()), (newest_first[2..4].to_vec(), Some(true)));
    let (_, page) = read(app.get(&format!("/customers?limit=2&after={}", newest_first[3])).await).await;
    assert_eq!((ids(&page), page["has_more"].as_bool()), (newest_first[4..5].to_vec(), Some(false)));
    let (_, page) = read(app.get(&format!("/customers?limit=2&before={}", newest_first[4])).await).await;
    assert_eq!((ids(&page), page["has_more"].as_bool()), (newest_first[2..4].to_vec(), Some(true)));
    let (_, page) = read(app.get(&format!("/customers?limit=2&before={}", newest_first[2])).await).await;
    assert_eq!((ids(&page), page["has_more"].as_bool()), (newest_first[0..2].to_vec(), Some(false)));
    let (_, all) = read(app.get("/customers").await).await;
    assert_eq!(ids(&all), newest_first, "the default limit of 10 holds all five");
    assert_eq!(all["resource"], "list");
}

async fn list_parameters_are_validated(app: TestApp) {
    let cases = [
        ("limit=0", "limit", "parameter_below_minimum"),
        ("limit=101", "limit", "parameter_above_maximum"),
        ("limit=ten", "limit", "parameter_type_invalid"),
        ("after=cus_a&before=cus_b", "before", "parameter_invalid"),
        ("after=cus_00000000000000000000000000000000", "after", "resource_not_found"),
        ("before=nonsense", "before", "resource_not_found"),
        ("colour=red", "colour", "parameter_invalid"),
    ];
    for (query, parameter, code) in cases {
        let (status, body) = read(app.get(&format!("/customers?{query}")).await).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(error_codes(&body), vec![(parameter.to_owned(), code.to_owned())], "{query}");
    }
    let (status, _) = read(app.get("/customers?limit=100").await).await;
    assert_eq!(status, 200);
}
