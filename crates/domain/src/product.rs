//! Products: what a merchant sells on its pages, with a name, a description and a picture. A
//! product is archived (no longer offered), never deleted once it has a price: its prices may have
//! been sold, and a payment's page session names it.

use crate::description::Description;
use crate::ids::{AccountId, ProductId};
use crate::time::Timestamp;
use crate::validation::Invalid;

/// The longest name of a product, in characters.
pub const NAME_LENGTH: usize = 255;

/// A product of a merchant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Product {
    pub id: ProductId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub name: ProductName,
    pub description: Option<Description>,
    /// A public `https` URL of a picture; pages show a default one when absent.
    pub image: Option<String>,
    /// Whether it is offered: an archived product's prices cannot be put on a page or bought.
    pub active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Optimistic-concurrency version, bumped by every change.
    pub version: i64,
}

/// What a merchant supplies to create a product.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewProduct {
    pub name: ProductName,
    pub description: Option<Description>,
    pub image: Option<String>,
}

/// The fields a merchant changes with an update; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProductChanges {
    pub name: Option<ProductName>,
    pub description: Option<Description>,
    pub image: Option<String>,
    pub active: Option<bool>,
}

impl Product {
    #[must_use]
    pub fn create(id: ProductId, account_id: AccountId, livemode: bool, new: NewProduct, now: Timestamp) -> Self {
        Self {
            id,
            account_id,
            livemode,
            name: new.name,
            description: new.description,
            image: new.image,
            active: true,
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    /// Applies a merchant's update (archiving is `active: false`, and `true` offers it again).
    pub fn update(&mut self, changes: ProductChanges, now: Timestamp) {
        let ProductChanges { name, description, image, active } = changes;
        if let Some(name) = name {
            self.name = name;
        }
        if description.is_some() {
            self.description = description;
        }
        if image.is_some() {
            self.image = image;
        }
        if let Some(active) = active {
            self.active = active;
        }
        self.updated_at = now;
        self.version += 1;
    }
}

/// A product's name: 1 to 255 characters, not blank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductName(String);

impl ProductName {
    /// # Errors
    /// `parameter_invalid` for a blank name or one over 255 characters.
    pub fn new(name: String) -> Result<Self, Invalid> {
        if name.trim().is_empty() || name.chars().count() > NAME_LENGTH {
            return Err(Invalid::value(format!("A product's name is 1 to {NAME_LENGTH} characters long, not blank.")));
        }
        Ok(Self(name))
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A product's picture: an absolute `https` URL.
///
/// # Errors
/// `parameter_invalid` otherwise.
pub fn check_image(url: String) -> Result<String, Invalid> {
    crate::absolute_url::https_image(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn product() -> Product {
        let new = NewProduct { name: ProductName::new("Mug".into()).unwrap(), description: None, image: None };
        Product::create(
            ProductId::from_random("0VcKRLxCJeUzS3dfAVJZjOW6tPNtjH8b"),
            AccountId::from_random("0VcKRLxAcctUzS3dfAVJZjOW6tPNtjH8"),
            false,
            new,
            Timestamp::from_unix_seconds(1),
        )
    }

    #[test]
    fn a_product_is_named_and_archived_by_an_update() {
        for (name, valid) in
            [("Mug", true), ("", false), ("   ", false), (&"x".repeat(255), true), (&"x".repeat(256), false)]
        {
            assert_eq!(ProductName::new(name.to_owned()).is_ok(), valid, "{name:?}");
        }
        let mut mug = product();
        assert!(mug.active);
        mug.update(
            ProductChanges { active: Some(false), ..ProductChanges::default() },
            Timestamp::from_unix_seconds(2),
        );
        assert_eq!((mug.active, mug.version, mug.updated_at), (false, 2, Timestamp::from_unix_seconds(2)));
        assert_eq!(mug.name.as_str(), "Mug", "what the update leaves out stays");
        assert!(check_image("http://shop.example/mug.png".into()).is_err());
        assert!(check_image("https://shop.example/mug.png".into()).is_ok());
    }
}
