//! `payments webhooks recover`: requeues every delivery to an endpoint that failed since a time
//! (`POST /webhooks/:id/recover`).

use crate::api::{segment, Api};
use crate::error::CliError;
use crate::output::Printer;
use reqwest::Method;
use serde_json::json;

#[derive(Debug, clap::Subcommand)]
pub enum WebhooksCommand {
    /// Requeue the endpoint's deliveries that failed since a time.
    Recover {
        /// The webhook endpoint's id (wh_…).
        webhook_id: String,
        /// Unix seconds, or a time ago: `90m`, `12h`, `3d`.
        #[arg(long)]
        since: String,
    },
}

pub(crate) async fn run(api: &Api, command: WebhooksCommand, printer: &Printer) -> Result<(), CliError> {
    let WebhooksCommand::Recover { webhook_id, since } = command;
    let since = unix_seconds(&since, crate::error::now().unix_seconds()).ok_or_else(|| {
        CliError::Usage(format!("--since {since:?}: expected Unix seconds or a time ago such as 90m, 12h or 3d"))
    })?;
    let path = format!("/webhooks/{}/recover", segment(&webhook_id));
    let answer = api.call(Method::POST, &path, &[], Some(&json!({"since": since}))).await?;
    printer.line(format!("{} failed deliveries to {webhook_id} since {since} requeued", answer["requeued"]), &answer);
    Ok(())
}

/// `since` as Unix seconds: a number as it is, `<n>s|m|h|d` as that long before `now`.
fn unix_seconds(since: &str, now: i64) -> Option<i64> {
    if let Ok(seconds) = since.parse::<i64>() {
        return Some(seconds);
    }
    let unit = match since.chars().last()? {
        's' => 1,
        'm' => 60,
        'h' => 3_600,
        'd' => 86_400,
        _ => return None,
    };
    let amount: i64 = since[..since.len() - 1].parse().ok().filter(|amount| *amount >= 0)?;
    now.checked_sub(amount.checked_mul(unit)?)
}

#[cfg(test)]
mod tests {
    use super::unix_seconds;

    #[test]
    fn since_is_unix_seconds_or_a_time_ago() {
        assert_eq!(unix_seconds("1700000000", 5), Some(1_700_000_000));
        assert_eq!(unix_seconds("90m", 10_000), Some(10_000 - 5_400));
        assert_eq!(unix_seconds("3d", 1_000_000), Some(1_000_000 - 259_200));
        for bad in ["", "m", "-5m", "3w", "1.5h", "99999999999999999999d"] {
            assert_eq!(unix_seconds(bad, 1_000), None, "{bad}");
        }
    }
}
