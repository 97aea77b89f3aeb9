//! Payment processors behind the `PaymentProcessor` port.

mod simulator;

pub use simulator::Simulator;
