//! Prices: what one unit of a product costs, within the contract's bounds on an amount. A price
//! belongs to one product for good and its amount never changes (a page session names both); it is
//! archived, never deleted.

use crate::description::Description;
use crate::ids::{AccountId, PriceId, ProductId};
use crate::money::Amount;
use crate::time::Timestamp;

/// A price of a merchant's product.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Price {
    pub id: PriceId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub product_id: ProductId,
    /// The amount of one unit, in centavos.
    pub amount: Amount,
    pub description: Option<Description>,
    /// Whether it is offered: an archived price cannot be put on a page or bought.
    pub active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Optimistic-concurrency version, bumped by every change.
    pub version: i64,
}

/// What a merchant supplies to create a price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPrice {
    pub product_id: ProductId,
    pub amount: Amount,
    pub description: Option<Description>,
}

/// The fields a merchant changes with an update; `None` leaves a field as it is. The product and the
/// amount never change: a new price is made instead.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PriceChanges {
    pub description: Option<Description>,
    pub active: Option<bool>,
}

impl Price {
    #[must_use]
    pub fn create(id: PriceId, account_id: AccountId, livemode: bool, new: NewPrice, now: Timestamp) -> Self {
        Self {
            id,
            account_id,
            livemode,
            product_id: new.product_id,
            amount: new.amount,
            description: new.description,
            active: true,
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    /// Applies a merchant's update (archiving is `active: false`).
    pub fn update(&mut self, changes: PriceChanges, now: Timestamp) {
        if changes.description.is_some() {
            self.description = changes.description;
        }
        if let Some(active) = changes.active {
            self.active = active;
        }
        self.updated_at = now;
        self.version += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_update_archives_a_price_and_keeps_its_amount() {
        let new = NewPrice {
            product_id: ProductId::from_random("0VcKRLxCJeUzS3dfAVJZjOW6tPNtjH8b"),
            amount: Amount::new(25_000).unwrap(),
            description: None,
        };
        let id = PriceId::from_random("0VcKRLxPricUzS3dfAVJZjOW6tPNtjH8");
        let account = AccountId::from_random("0VcKRLxAcctUzS3dfAVJZjOW6tPNtjH8");
        let mut price = Price::create(id, account, false, new, Timestamp::from_unix_seconds(1));
        let description = Description::new("Large".into()).unwrap();
        price.update(
            PriceChanges { description: Some(description.clone()), active: Some(false) },
            Timestamp::from_unix_seconds(2),
        );
        assert_eq!((price.active, price.amount.centavos(), price.version), (false, 25_000, 2));
        assert_eq!(price.description, Some(description));
    }
}
