//! The developer console's first page as one read: the latest payment intents counted by status,
//! the latest failed requests, the latest failed webhook deliveries and the latest events of a
//! scope, and in live mode the account's processor connector, in a few statements whatever the
//! account holds.

use super::payment_intent::{status_counts, StatusCounts};
use crate::error::ApplicationError;
use crate::pagination::PageRequest;
use crate::ports::{reading, Clock, DeliveryAttempt, EventFilter, RequestLogFilter, UnitOfWork};
use crate::scope::Scope;
use payments_domain::connector_account::ConnectorAccount;
use payments_domain::event::Event;
use payments_domain::request_log::{RequestLog, StatusRange};
use std::sync::Arc;

/// How long the overview's counts cover.
const DAY_SECONDS: i64 = 24 * 60 * 60;

/// What the overview shows.
#[derive(Debug, Clone)]
pub struct Overview {
    /// The last 24 hours' intents by status, of the latest `counted`.
    pub counts: StatusCounts,
    pub failed_requests: Vec<RequestLog>,
    /// The latest attempts that did not deliver their event, to any of the scope's webhooks.
    pub failed_deliveries: Vec<DeliveryAttempt>,
    pub events: Vec<Event>,
    /// In live mode, the account's processor connector (its secrets stay sealed), if one is set.
    pub connector: Option<ConnectorAccount>,
}

/// The overview's one use case.
pub struct OverviewService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
}

impl OverviewService {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>, clock: Arc<dyn Clock>) -> Self {
        Self { unit_of_work, clock }
    }

    /// The scope's overview: `shown` rows of each list, and the intents counted among the latest
    /// `counted`.
    ///
    /// # Errors
    /// Storage failures.
    pub fn overview(&self, scope: &Scope, shown: u32, counted: u32) -> Result<Overview, ApplicationError> {
        let since = self.clock.now_in(scope)?.plus_seconds(-DAY_SECONDS);
        let page = PageRequest::new(Some(i64::from(shown)), None, None).map_err(ApplicationError::Validation)?;
        let failed =
            RequestLogFilter { status: Some(StatusRange { min: 400, max: 599 }), ..RequestLogFilter::default() };
        reading(self.unit_of_work.as_ref(), |repositories| {
            Ok(Overview {
                counts: status_counts(repositories, scope, since, counted)?,
                failed_requests: repositories.request_logs().list(scope, &failed, &page)?.data,
                failed_deliveries: repositories.deliveries().failed_attempts(scope, shown)?,
                events: repositories.events().list(scope, &EventFilter::default(), &page)?.data,
                connector: match scope.livemode() {
                    true => repositories.connector_accounts().of_account(&scope.account_id)?,
                    false => None,
                },
            })
        })
    }
}
