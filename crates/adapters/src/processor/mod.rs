//! Payment processors behind the `PaymentProcessor` port (test mode's), and behind the connector
//! port (`PaymentConnector`, live mode's, being built for issue 59).

mod simulated_connector;
mod simulator;

pub use simulated_connector::{Fault, SimulatedConnector};
pub use simulator::Simulator;
