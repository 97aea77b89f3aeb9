//! The service's pages whose link is a capability: the next segment of the address after the page's
//! prefix is a client secret or a single-use token, so whoever holds the link may pay or authorize.
//! Each page's address is written here once: the service builds its links from it, the API serves
//! it from it, and the request log and the service's logs cut the capability out of it.

/// A page whose link is a capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostedPage {
    /// A checkout session's page, by the session's client secret.
    Checkout,
    /// An open billing statement's page, by the statement's client secret.
    BillingStatement,
    /// A page's public address (PayRex Pages), by the page's id: paid by many customers, each
    /// placing an order.
    Page,
    /// The payment page of one order placed on a page, by the order's payment intent's client
    /// secret.
    PageOrder,
    /// Test mode's page where a 3-D Secure challenge or an e-wallet redirect is decided, by its
    /// single-use token.
    TestAuthorization,
    /// Where a live processor sends the customer back after its own page (3-D Secure, an
    /// e-wallet), by the intent's redirect token: the service asks the processor how the payment
    /// stands, then sends the customer on to the merchant's `return_url`.
    ProcessorReturn,
    /// Where a live customer authenticates with the processor's own script (Stripe.js), by the
    /// intent's redirect token, when the processor has no page to send them to; then on to
    /// [`Self::ProcessorReturn`].
    ProcessorAuthentication,
    /// Where a live processor sends its events for an account's connector, by the connector's
    /// unguessable id (not a page: the processor's server posts to it).
    ProcessorWebhooks,
}

impl HostedPage {
    pub const ALL: [Self; 8] = [
        Self::Checkout,
        Self::BillingStatement,
        Self::Page,
        Self::PageOrder,
        Self::TestAuthorization,
        Self::ProcessorReturn,
        Self::ProcessorAuthentication,
        Self::ProcessorWebhooks,
    ];

    /// The address's start, before the capability: `/c/`.
    #[must_use]
    pub const fn prefix(self) -> &'static str {
        match self {
            Self::Checkout => "/c/",
            Self::BillingStatement => "/b/",
            Self::Page => "/p/",
            Self::PageOrder => "/o/",
            Self::TestAuthorization => "/test/authorize/",
            Self::ProcessorReturn => "/processor/return/",
            Self::ProcessorAuthentication => "/processor/authenticate/",
            Self::ProcessorWebhooks => "/processor/webhooks/",
        }
    }

    /// The page's address on a service at `public_base_url`, with `capability`.
    #[must_use]
    pub fn url(self, public_base_url: &str, capability: &str) -> String {
        format!("{}{}{capability}", public_base_url.trim_end_matches('/'), self.prefix())
    }

    /// The page's route, with its capability as the path parameter `{capability}`.
    #[must_use]
    pub fn route(self) -> String {
        format!("{}{{capability}}", self.prefix())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_the_base_url_the_prefix_and_the_capability() {
        assert_eq!(
            HostedPage::Checkout.url("https://pay.example/", "cs_1_secret_x"),
            "https://pay.example/c/cs_1_secret_x"
        );
        assert_eq!(HostedPage::TestAuthorization.route(), "/test/authorize/{capability}");
        for page in HostedPage::ALL {
            assert!(page.prefix().starts_with('/') && page.prefix().ends_with('/'), "{page:?}");
        }
    }
}
