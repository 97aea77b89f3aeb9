//! An account's live connector as the operator API shows it: never its secrets, which are kept
//! sealed and only said to be set; and the address its processor's events go to.

use payments_domain::connector_account::ConnectorAccount;
use payments_domain::hosted_page::HostedPage;
use serde_json::{json, Value};

pub(crate) fn connector_json(connector: &ConnectorAccount, public_base_url: &str) -> Value {
    json!({
        "id": connector.id.as_str(),
        "resource": "connector",
        "account_id": connector.account_id.as_str(),
        "kind": connector.kind.as_str(),
        "api_base_url": connector.api_base_url,
        "publishable_key": connector.publishable_key,
        "secret_key": "sealed",
        "webhook_secret": "sealed",
        "webhook_url": HostedPage::ProcessorWebhooks.url(public_base_url, connector.id.as_str()),
        "last_call": connector.last_call.map(|call| json!({"answered": call.answered, "at": call.at.unix_seconds()})),
        "created_at": connector.created_at.unix_seconds(),
        "updated_at": connector.updated_at.unix_seconds(),
    })
}
