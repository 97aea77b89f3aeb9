//! Payment processors: the simulator behind the `PaymentProcessor` port (test mode's), and the
//! connectors behind the `PaymentConnector` port (live mode's), with the directory that gives each
//! account its connector.

mod simulated_connector;
mod simulator;

use payments_application::ports::connector::{ConnectorDirectory, PaymentConnector};
use payments_application::Scope;
use std::sync::Arc;

pub use simulated_connector::{Fault, SimulatedConnector};
pub use simulator::Simulator;

/// One connector for the live mode of every account, or none: what the settings set up.
#[derive(Clone, Default)]
pub struct SharedConnector {
    connector: Option<Arc<dyn PaymentConnector>>,
}

impl SharedConnector {
    #[must_use]
    pub fn new(connector: Option<Arc<dyn PaymentConnector>>) -> Self {
        Self { connector }
    }
}

impl ConnectorDirectory for SharedConnector {
    fn connector(&self, scope: &Scope) -> Option<Arc<dyn PaymentConnector>> {
        self.connector.clone().filter(|_| scope.livemode())
    }
}
