//! Billing statements with their line items.

use super::{due_of, filtered_page_of, in_scope_of, versioned_row, State, Stored};
use crate::pagination::{Page, PageRequest};
use crate::ports::{BillingStatementFilter, BillingStatementRepository, StoreError};
use crate::scope::Scope;
use payments_domain::billing_statement::{BillingStatement, BillingStatementStatus, LineItem};
use payments_domain::ids::{BillingStatementId, BillingStatementLineItemId, PaymentIntentId};
use payments_domain::time::Timestamp;

impl BillingStatementRepository for State {
    fn insert(&mut self, statement: &BillingStatement) -> Result<(), StoreError> {
        self.billing_statements.push(statement.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &BillingStatementId) -> Result<Option<BillingStatement>, StoreError> {
        Ok(self
            .billing_statements
            .iter()
            .find(|s| s.id() == id && in_scope_of(s.account_id(), s.livemode(), scope))
            .cloned())
    }

    fn find_for_page(&mut self, id: &BillingStatementId) -> Result<Option<BillingStatement>, StoreError> {
        Ok(self.billing_statements.iter().find(|s| s.id() == id).cloned())
    }

    fn find_by_payment_intent(
        &mut self,
        scope: &Scope,
        payment_intent_id: &PaymentIntentId,
    ) -> Result<Option<BillingStatement>, StoreError> {
        Ok(self
            .billing_statements
            .iter()
            .find(|s| {
                s.payment_intent_id() == Some(payment_intent_id) && in_scope_of(s.account_id(), s.livemode(), scope)
            })
            .cloned())
    }

    fn find_by_line_item(
        &mut self,
        scope: &Scope,
        id: &BillingStatementLineItemId,
    ) -> Result<Option<BillingStatement>, StoreError> {
        Ok(self
            .billing_statements
            .iter()
            .find(|s| s.line_item(id).is_some() && in_scope_of(s.account_id(), s.livemode(), scope))
            .cloned())
    }

    fn update(&mut self, statement: &BillingStatement, expected_version: i64) -> Result<(), StoreError> {
        // Line items are written by `replace_line_items`, as in the database: keep the stored ones.
        let stored = versioned_row(&mut self.billing_statements, statement, expected_version)?;
        let items = stored.line_items().to_vec();
        *stored = with_line_items(statement, items);
        Ok(())
    }

    fn replace_line_items(&mut self, statement: &BillingStatement) -> Result<(), StoreError> {
        let stored =
            self.billing_statements.iter_mut().find(|s| s.key() == statement.key()).ok_or(StoreError::Conflict)?;
        *stored = with_line_items(stored, statement.line_items().to_vec());
        Ok(())
    }

    fn delete(&mut self, statement: &BillingStatement, expected_version: i64) -> Result<(), StoreError> {
        let before = self.billing_statements.len();
        self.billing_statements.retain(|s| !(s.key() == statement.key() && s.version() == expected_version));
        if self.billing_statements.len() == before {
            return Err(StoreError::Conflict);
        }
        Ok(())
    }

    fn list(
        &mut self,
        scope: &Scope,
        filter: &BillingStatementFilter,
        page: &PageRequest,
    ) -> Result<Page<BillingStatement>, StoreError> {
        let in_scope: Vec<&BillingStatement> =
            self.billing_statements.iter().filter(|s| in_scope_of(s.account_id(), s.livemode(), scope)).collect();
        let matches = |s: &BillingStatement| {
            filter.customer_id.as_ref().is_none_or(|id| s.customer_id() == id)
                && filter.status.is_none_or(|status| s.status() == status)
        };
        filtered_page_of(&in_scope, |s| s.id().as_str(), matches, page)
    }

    fn with_notice_due(
        &mut self,
        within: Option<&Scope>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<BillingStatement>, StoreError> {
        let notice = |statement: &BillingStatement| {
            statement.next_notice_at().filter(|_| statement.status() == BillingStatementStatus::Open)
        };
        Ok(due_of(&self.billing_statements, within, notice, now, limit))
    }
}

/// `statement` holding `items`.
fn with_line_items(statement: &BillingStatement, items: Vec<LineItem>) -> BillingStatement {
    BillingStatement::restore(payments_domain::billing_statement::StoredBillingStatement {
        line_items: items,
        ..statement.stored()
    })
}
