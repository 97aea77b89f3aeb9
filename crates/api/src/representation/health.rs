//! The answer of the liveness and readiness probes.

use serde::Serialize;
use utoipa::ToSchema;

/// `{"status": "ok"}` while the process is up, `{"status": "ready"}` while the database answers.
#[derive(Serialize, ToSchema)]
#[schema(as = Health)]
pub(crate) struct HealthResource {
    #[schema(examples("ok", "ready"))]
    pub(crate) status: &'static str,
}
