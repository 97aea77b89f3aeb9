//! Objects as the console shows them: JSON, pretty-printed and escaped for HTML, with every id of an
//! object the console has a page for made a link to it.

use super::ROOT;
use serde_json::Value;
use std::fmt::Write;

/// The console's page of the object `id`, when it has one.
pub(super) fn href(id: &str) -> Option<String> {
    // Ids whose prefix starts with another's, and that have no page of their own.
    const WITHOUT_PAGES: [&str; 7] = ["cus_s_", "cs_li_", "bstm_li_", "whd_", "po_txn_", "page_cf_", "page_li_"];
    const PAGES: [(&str, &str); 12] = [
        ("pi_", "payment_intents"),
        ("pay_", "payments"),
        ("re_", "refunds"),
        ("po_", "payouts"),
        ("cus_", "customers"),
        ("cs_", "checkout_sessions"),
        ("bstm_", "billing_statements"),
        ("evt_", "events"),
        ("wh_", "webhooks"),
        ("req_", "request_logs"),
        ("prod_", "products"),
        ("page_", "pages"),
    ];
    let known = payments_domain::ids::is_object_id(id) || id.starts_with("req_");
    if !known || WITHOUT_PAGES.iter().any(|prefix| id.starts_with(prefix)) {
        return None;
    }
    PAGES.iter().find(|(prefix, _)| id.starts_with(prefix)).map(|(_, section)| format!("{ROOT}/{section}/{id}"))
}

/// `text` escaped for HTML text and attribute values.
pub(super) fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#x27;"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// `value` as indented JSON in HTML: escaped, with ids linked.
pub(super) fn to_html(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0);
    out
}

fn write_value(out: &mut String, value: &Value, depth: usize) {
    let indent = |out: &mut String, depth: usize| out.push_str(&"  ".repeat(depth));
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push_str("{\n");
            for (i, (key, field)) in map.iter().enumerate() {
                indent(out, depth + 1);
                let _ = write!(out, "{}: ", escape(&Value::String(key.clone()).to_string()));
                write_value(out, field, depth + 1);
                out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            indent(out, depth);
            out.push('}');
        }
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                indent(out, depth + 1);
                write_value(out, item, depth + 1);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            indent(out, depth);
            out.push(']');
        }
        Value::String(text) => {
            let quoted = escape(&value.to_string());
            match href(text) {
                Some(link) => {
                    let _ = write!(out, "<a href=\"{}\">{quoted}</a>", escape(&link));
                }
                None => out.push_str(&quoted),
            }
        }
        other => out.push_str(&escape(&other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_is_escaped_indented_and_ids_are_links() {
        let value = json!({"id": "pi_123", "name": "<script>\"&'", "items": [1, {}], "none": null});
        let html = to_html(&value);
        let link = r#"&quot;id&quot;: <a href="/dashboard/payment_intents/pi_123">&quot;pi_123&quot;</a>"#;
        assert!(html.contains(link), "{html}");
        assert!(html.contains("&quot;&lt;script&gt;\\&quot;&amp;&#x27;&quot;"), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(html.contains("  &quot;items&quot;: [\n    1,\n    {}\n  ]"), "{html}");
        assert_eq!(href("pi_<b>"), None, "only ids of the service's shape");
        assert_eq!(href("cus_1").as_deref(), Some("/dashboard/customers/cus_1"));
        assert_eq!(href("pm_1"), None, "no page for it");
        assert_eq!(href("cs_li_1"), None, "a line item is shown on its session's page");
        assert_eq!(href("prod_1").as_deref(), Some("/dashboard/products/prod_1"));
        assert_eq!(href("page_1").as_deref(), Some("/dashboard/pages/page_1"));
        assert_eq!(href("page_cf_1"), None, "a custom field is shown on its page's page");
    }
}
