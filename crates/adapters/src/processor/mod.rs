//! Payment processors: the simulator behind the `PaymentProcessor` port (test mode's), and the
//! connectors behind the `PaymentConnector` port (live mode's), with the directory that gives each
//! account its connector.

mod simulated_connector;
mod simulator;
mod stripe_connector;

use parking_lot::Mutex;
use payments_application::ports::connector::{ConnectorDirectory, PaymentConnector};
use payments_application::ports::{reading, SecretSealer, UnitOfWork};
use payments_application::{ApplicationError, Scope};
use payments_domain::connector_account::{ConnectorAccount, ConnectorKind};
use payments_domain::ids::ConnectorAccountId;
use payments_domain::time::Timestamp;
use std::collections::HashMap;
use std::sync::Arc;

pub use simulated_connector::{Fault, SimulatedConnector};
pub use simulator::Simulator;
pub use stripe_connector::{StripeConnector, StripeSettings};

/// Each account's live connector as the operator set it up, read at each call and built once per
/// setup; an account without one uses the settings' simulated processor, when there is one.
pub struct StoredConnectors {
    unit_of_work: Arc<dyn UnitOfWork>,
    sealer: Arc<dyn SecretSealer>,
    simulated: Option<Arc<dyn PaymentConnector>>,
    built: Mutex<HashMap<ConnectorAccountId, Built>>,
}

/// A connector built, with the time of the setup it was built from.
type Built = (Timestamp, Arc<dyn PaymentConnector>);

impl StoredConnectors {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        sealer: Arc<dyn SecretSealer>,
        simulated: Option<Arc<dyn PaymentConnector>>,
    ) -> Self {
        Self { unit_of_work, sealer, simulated, built: Mutex::default() }
    }

    /// The connector of `stored`, built from its setup unless built already.
    fn build(&self, stored: &ConnectorAccount) -> Result<Arc<dyn PaymentConnector>, ApplicationError> {
        if let Some((at, connector)) = self.built.lock().get(&stored.id) {
            if *at == stored.updated_at {
                return Ok(connector.clone());
            }
        }
        let secrets = self.sealer.open(&stored.secrets, &stored.account_id).map_err(|error| {
            tracing::error!(account = %stored.account_id, %error, "a live connector's secrets cannot be opened");
            ApplicationError::NotConfigured(
                "This account's payment processor cannot be used: its keys cannot be read.".into(),
            )
        })?;
        let connector: Arc<dyn PaymentConnector> = match stored.kind {
            ConnectorKind::Stripe => Arc::new(
                StripeConnector::new(StripeSettings {
                    api_base_url: stored.api_base_url.clone(),
                    secret_key: secrets.secret_key,
                    webhook_secret: secrets.webhook_secret,
                })
                .map_err(|error| ApplicationError::Internal(error.into()))?,
            ),
        };
        self.built.lock().insert(stored.id.clone(), (stored.updated_at, connector.clone()));
        Ok(connector)
    }
}

impl ConnectorDirectory for StoredConnectors {
    fn connector(&self, scope: &Scope) -> Result<Option<Arc<dyn PaymentConnector>>, ApplicationError> {
        if !scope.livemode() {
            return Ok(None);
        }
        let stored = reading(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.connector_accounts().of_account(&scope.account_id)?)
        })?;
        match stored {
            Some(stored) => self.build(&stored).map(Some),
            None => Ok(self.simulated.clone()),
        }
    }
}
