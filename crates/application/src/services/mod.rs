//! One use-case service per resource.

pub mod account;
pub mod balance;
pub mod billing_statement;
pub mod checkout_session;
pub mod connector_account;
pub mod console_session;
pub mod customer;
pub mod customer_session;
pub mod due;
pub mod due_work;
pub mod event;
pub mod idempotency;
pub(crate) mod intent_owner;
pub mod mail_message;
pub mod overview;
pub mod page;
pub mod payment;
pub mod payment_intent;
pub mod payment_method;
pub mod payout;
pub mod pending_authorization;
pub mod price;
pub mod processor_event;
pub(crate) mod processor_operation;
pub mod product;
pub mod redirect;
pub mod refund;
pub mod request_log;
pub mod setup_intent;
pub mod test_clock;
pub mod webhook;
pub mod webhook_delivery;

pub use account::AccountService;
pub use balance::{BalancePage, BalanceService, BalanceView};
pub use billing_statement::{
    BillingStatementService, BillingStatementView, LineItemView, NewBillingStatement, NewLineItem, StatementPage,
};
pub use checkout_session::{CheckoutPage, CheckoutSessionService, CheckoutSessionView};
pub use connector_account::ConnectorAccountService;
pub use console_session::{caller_of, ConsoleSessionService, SignedIn};
pub use customer::{CustomerPage, CustomerService};
pub use customer_session::{CustomerSessionService, CustomerSessionView};
pub use due_work::DueWork;
pub use event::{EventPage, EventService};
pub use idempotency::{IdempotencyService, IdempotentStart};
pub use mail_message::MailMessageService;
pub use overview::{Overview, OverviewService};
pub use page::{PageOrderPage, PagePayments, PageService, PageView};
pub use payment::{PaymentService, PaymentView};
pub use payment_intent::{
    AttachOutcome, AttachRequest, IntentTimeline, PaymentIntentService, PaymentIntentSettings, PaymentIntentView,
    PaymentMethodChoice, Processors, ScriptAuthentication, StatusCount, StatusCounts,
};
pub use payment_method::PaymentMethodService;
pub use payout::{PayoutPage, PayoutRails, PayoutService};
pub use pending_authorization::AuthorizationFlow;
pub use price::PriceService;
pub use processor_event::ProcessorEventService;
pub use product::{ProductPage, ProductService};
pub use redirect::{Access, RedirectCompletion, RedirectPage};
pub use refund::RefundService;
pub use request_log::RequestLogService;
pub use setup_intent::{SetupAttachOutcome, SetupAttachRequest, SetupIntentService, SetupIntentView};
pub use test_clock::TestClockService;
pub use webhook::{WebhookPage, WebhookService};
pub use webhook_delivery::{Claimed, DeliveryJob, WebhookDeliveryService};
