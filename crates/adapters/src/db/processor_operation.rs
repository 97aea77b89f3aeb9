//! Operations written ahead of processor calls, in the database; times in milliseconds. A row's
//! `id` is the operation's idempotency key.

use super::error::{corrupt, store_error};
use super::json::parse_id;
use super::schema::processor_operations;
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::ports::{ProcessorOperationRepository, StoreError};
use payments_application::Scope;
use payments_domain::balance::Centavos;
use payments_domain::ids::{AccountId, PaymentId, PaymentIntentId, RefundId};
use payments_domain::processor_operation::{
    OperationKind, OperationState, ProcessorOperation, StoredProcessorOperation,
};
use payments_domain::time::Timestamp;

#[derive(Insertable, AsChangeset, Queryable, Selectable)]
#[diesel(table_name = processor_operations, treat_none_as_null = true, treat_none_as_default_value = false)]
struct OperationRow {
    #[diesel(skip_update)]
    id: String,
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    #[diesel(skip_update)]
    payment_intent_id: String,
    #[diesel(skip_update)]
    payment_id: String,
    #[diesel(skip_update)]
    kind: String,
    #[diesel(skip_update)]
    refund_id: Option<String>,
    amount: i64,
    state: String,
    processor_reference: Option<String>,
    refused_code: Option<String>,
    refused_detail: Option<String>,
    checks: i64,
    next_check_at: Option<i64>,
    version: i64,
    #[diesel(skip_update)]
    created_at: i64,
    updated_at: i64,
    #[diesel(skip_update)]
    attempt: i64,
    sent_at: i64,
}

impl OperationRow {
    fn from_domain(operation: &ProcessorOperation) -> Self {
        let (mut processor_reference, mut refused_code, mut refused_detail, mut checks) = (None, None, None, 0);
        match operation.state() {
            OperationState::Succeeded { processor_reference: reference } => {
                processor_reference = Some(reference.clone())
            }
            OperationState::Refused { code, detail } => {
                refused_code = Some(code.clone());
                refused_detail = Some(detail.clone());
            }
            OperationState::Unknown { checks: made, .. } => checks = i64::from(*made),
            OperationState::Sending | OperationState::NotSent | OperationState::Unresolved => {}
        }
        Self {
            id: operation.idempotency_key().to_owned(),
            account_id: operation.account_id().to_string(),
            livemode: operation.livemode(),
            payment_intent_id: operation.payment_intent().to_string(),
            payment_id: operation.payment().to_string(),
            kind: operation.kind().as_str().to_owned(),
            refund_id: operation.kind().refund().map(ToString::to_string),
            amount: operation.amount().get(),
            state: operation.state().as_str().to_owned(),
            processor_reference,
            refused_code,
            refused_detail,
            checks,
            next_check_at: operation.next_check_at().map(Timestamp::unix_millis),
            version: operation.version(),
            created_at: operation.created_at().unix_millis(),
            updated_at: operation.updated_at().unix_millis(),
            attempt: i64::from(operation.attempt()),
            sent_at: operation.sent_at().unix_millis(),
        }
    }

    fn into_domain(self) -> Result<ProcessorOperation, StoreError> {
        let refund = self.refund_id.as_deref().map(|id| parse_id("refund id", id, RefundId::parse)).transpose()?;
        let kind = OperationKind::parse(&self.kind, refund).ok_or_else(|| corrupt("operation kind", &self.kind))?;
        let missing = |what| corrupt("processor operation", format!("{} without its {what}", self.state));
        let state = match self.state.as_str() {
            "sending" => OperationState::Sending,
            "succeeded" => OperationState::Succeeded {
                processor_reference: self.processor_reference.clone().ok_or_else(|| missing("reference"))?,
            },
            "refused" => OperationState::Refused {
                code: self.refused_code.clone().ok_or_else(|| missing("code"))?,
                detail: self.refused_detail.clone().unwrap_or_default(),
            },
            "not_sent" => OperationState::NotSent,
            "unknown" => OperationState::Unknown {
                checks: u32::try_from(self.checks).map_err(|_| corrupt("operation checks", self.checks))?,
                next_check_at: Timestamp::from_unix_millis(self.next_check_at.ok_or_else(|| missing("next check"))?),
            },
            "unresolved" => OperationState::Unresolved,
            other => return Err(corrupt("operation state", other)),
        };
        Ok(ProcessorOperation::restore(StoredProcessorOperation {
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            payment_intent: parse_id("payment intent id", &self.payment_intent_id, PaymentIntentId::parse)?,
            payment: parse_id("payment id", &self.payment_id, PaymentId::parse)?,
            kind,
            attempt: u32::try_from(self.attempt).map_err(|_| corrupt("operation attempt", self.attempt))?,
            amount: Centavos::new(self.amount),
            state,
            created_at: Timestamp::from_unix_millis(self.created_at),
            sent_at: Timestamp::from_unix_millis(self.sent_at),
            updated_at: Timestamp::from_unix_millis(self.updated_at),
            version: self.version,
        }))
    }
}

fn all(rows: QueryResult<Vec<OperationRow>>) -> Result<Vec<ProcessorOperation>, StoreError> {
    rows.map_err(store_error)?.into_iter().map(OperationRow::into_domain).collect()
}

impl ProcessorOperationRepository for DbSession<'_> {
    fn insert(&mut self, operation: &ProcessorOperation) -> Result<(), StoreError> {
        self.write(
            diesel::insert_into(processor_operations::table).values(OperationRow::from_domain(operation)),
            Expect::AnyRows,
        )
    }

    fn find(&mut self, scope: &Scope, idempotency_key: &str) -> Result<Option<ProcessorOperation>, StoreError> {
        processor_operations::table
            .filter(in_scope!(processor_operations, scope))
            .filter(processor_operations::id.eq(idempotency_key))
            .select(OperationRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(OperationRow::into_domain)
            .transpose()
    }

    fn of_payment(&mut self, scope: &Scope, payment: &PaymentId) -> Result<Vec<ProcessorOperation>, StoreError> {
        all(processor_operations::table
            .filter(in_scope!(processor_operations, scope))
            .filter(processor_operations::payment_id.eq(payment.as_str()))
            .order(processor_operations::seq.asc())
            .select(OperationRow::as_select())
            .load(self.reading()?))
    }

    fn update(&mut self, operation: &ProcessorOperation, expected_version: i64) -> Result<(), StoreError> {
        let update = diesel::update(
            processor_operations::table
                .filter(in_scope!(processor_operations, operation.account_id(), operation.livemode()))
                .filter(processor_operations::id.eq(operation.idempotency_key().to_owned()))
                .filter(processor_operations::version.eq(expected_version)),
        )
        .set(OperationRow::from_domain(operation));
        self.write(update, Expect::OneRow)
    }

    fn unanswered(&mut self, scope: &Scope, limit: u32) -> Result<Vec<ProcessorOperation>, StoreError> {
        all(processor_operations::table
            .filter(in_scope!(processor_operations, scope))
            .filter(processor_operations::state.eq_any(OperationState::UNANSWERED))
            .order(processor_operations::seq.asc())
            .limit(i64::from(limit))
            .select(OperationRow::as_select())
            .load(self.reading()?))
    }

    fn due(
        &mut self,
        within: Option<&Scope>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<ProcessorOperation>, StoreError> {
        let mut query = processor_operations::table.into_boxed();
        if let Some(scope) = within {
            query = query.filter(in_scope!(processor_operations, scope));
        }
        all(query
            .filter(processor_operations::next_check_at.le(now.unix_millis()))
            .order(processor_operations::next_check_at.asc())
            .limit(i64::from(limit))
            .select(OperationRow::as_select())
            .load(self.reading()?))
    }
}
