//! The shared repository contract on the in-memory fakes, so the fakes the service tests use cannot
//! drift from the diesel repositories (which run the same contract in `crates/adapters/tests`).

use payments_application::testing::contract::ContractStore;
use payments_application::testing::InMemoryStore;
use std::sync::Arc;

payments_application::repository_contract!(ContractStore::new(Arc::new(InMemoryStore::default()), ()));
