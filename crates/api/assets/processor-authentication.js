// The service's authentication page: the processor's own script (Stripe.js) finishes the
// customer's authentication (3-D Secure) with the payment's client secret. Then, however it ended,
// the customer goes on to the service's return page, which asks the processor how the payment
// stands and sends them on to the shop.
(function () {
  'use strict';
  const holder = document.getElementById('authentication');
  const status = document.getElementById('authentication-status');
  const goOn = function () { window.location.replace(holder.dataset.returnUrl); };
  const cannotStart = function () {
    status.textContent = "Your bank's check could not be started. Reload this page, or go back to the shop.";
  };
  if (typeof window.Stripe !== 'function' || !holder.dataset.clientSecret) {
    cannotStart();
    return;
  }
  let finishing;
  try {
    const stripe = window.Stripe(holder.dataset.publishableKey);
    const clientSecret = holder.dataset.clientSecret;
    // Stripe.js's call for a payment confirmed on the server; an emulator's Stripe.js without it
    // (localstripe) finishes the same authentication with confirmCardPayment.
    finishing = typeof stripe.handleNextAction === 'function'
      ? stripe.handleNextAction({ clientSecret: clientSecret })
      : stripe.confirmCardPayment(clientSecret);
  } catch (thrown) {
    cannotStart();
    return;
  }
  Promise.resolve(finishing).then(goOn, goOn);
}());
