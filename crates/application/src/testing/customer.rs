//! Customers.

use super::{replace_versioned, State};
use crate::pagination::{Cursor, Page, PageRequest};
use crate::ports::{CustomerFilter, CustomerRepository, StoreError};
use crate::scope::Scope;
use payments_domain::account::Mode;
use payments_domain::customer::{BillingStatementPrefix, Customer};
use payments_domain::ids::CustomerId;

fn in_scope(customer: &Customer, scope: &Scope) -> bool {
    customer.account_id == scope.account_id && customer.livemode == scope.livemode()
}

impl CustomerRepository for State {
    fn insert(&mut self, customer: &Customer) -> Result<(), StoreError> {
        let scope = Scope { account_id: customer.account_id.clone(), mode: Mode::from_livemode(customer.livemode) };
        if self.prefix_in_use(&scope, &customer.billing_statement_prefix, None)? {
            return Err(StoreError::UniqueViolation("customers_statement_prefix".into()));
        }
        self.customers.push(customer.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &CustomerId) -> Result<Option<Customer>, StoreError> {
        Ok(self.customers.iter().find(|c| &c.id == id && in_scope(c, scope)).cloned())
    }

    fn find_many(&mut self, scope: &Scope, ids: &[CustomerId]) -> Result<Vec<Customer>, StoreError> {
        Ok(self.customers.iter().filter(|c| ids.iter().any(|id| &c.id == id && in_scope(c, scope))).cloned().collect())
    }

    fn update(&mut self, customer: &Customer, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.customers, customer, expected_version)
    }

    fn list(
        &mut self,
        scope: &Scope,
        filter: &CustomerFilter,
        page: &PageRequest,
    ) -> Result<Page<Customer>, StoreError> {
        let position = |id: &str| {
            self.customers
                .iter()
                .position(|c| c.id.as_str() == id && in_scope(c, scope))
                .ok_or(StoreError::UnknownCursor)
        };
        let visible = |c: &&Customer| {
            in_scope(c, scope)
                && !c.is_deleted()
                && filter.name.as_deref().is_none_or(|n| c.name.as_str() == n)
                && filter.email.as_deref().is_none_or(|e| c.email.as_str() == e)
                && filter.metadata.iter().all(|condition| condition.matches(c.metadata.as_ref()))
        };
        let overfetch = page.limit() as usize + 1;
        let rows: Vec<Customer> = match page.cursor() {
            None => self.customers.iter().rev().filter(visible).take(overfetch).cloned().collect(),
            Some(Cursor::After(id)) => {
                let end = position(id)?;
                self.customers[..end].iter().rev().filter(visible).take(overfetch).cloned().collect()
            }
            Some(Cursor::Before(id)) => {
                let start = position(id)? + 1;
                self.customers[start..].iter().filter(visible).take(overfetch).cloned().collect()
            }
        };
        Ok(Page::from_overfetched(rows, page))
    }

    fn prefix_in_use(
        &mut self,
        scope: &Scope,
        prefix: &BillingStatementPrefix,
        except: Option<&CustomerId>,
    ) -> Result<bool, StoreError> {
        Ok(self.customers.iter().any(|c| {
            in_scope(c, scope) && !c.is_deleted() && &c.billing_statement_prefix == prefix && Some(&c.id) != except
        }))
    }
}
