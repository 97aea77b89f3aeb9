/*
 * Payrex.js, as this payments service serves it at /js/v1/payrex.js: the library a merchant's page
 * loads to read and pay intents with a public key, shaped like PayRex's own (docs/payrexjs.md).
 * Plain JavaScript, no build step. It talks to the service it was served by, and to nothing else.
 */
(function (window) {
  'use strict';

  // The service's public base URL, written in when the service serves this file.
  var SERVICE_URL = '__PAYMENTS_PUBLIC_BASE_URL__';

  /** An error as the API words it: `code` (`parameter_invalid`, …) and `message`. */
  function PayrexError(code, message) {
    var error = new Error(message);
    error.name = 'PayrexError';
    error.code = code;
    return error;
  }

  /** The error an API answer carries, or one for an answer that is not the API's. */
  function answeredError(body, status) {
    var first = body && body.errors && body.errors[0];
    if (first) {
      return PayrexError(first.code, first.detail || first.code);
    }
    return PayrexError('api_error', 'The payments service answered ' + status + '.');
  }

  /**
   * `Payrex(publicKey)` or, as PayRex's npm loader calls it, `Payrex([publicKey, options])`.
   * A secret key throws at once, and is sent nowhere.
   */
  function Payrex(key, options) {
    if (Array.isArray(key)) {
      options = key[1];
      key = key[0];
    }
    if (!(this instanceof Payrex)) {
      return new Payrex(key, options);
    }
    if (typeof key === 'string' && key.indexOf('sk_') === 0) {
      throw PayrexError('secret_key_in_browser',
        'Payrex.js takes a public key (pk_…). A secret key must never be in a web page: roll it now.');
    }
    if (typeof key !== 'string' || !/^pk_(test|live)_[A-Za-z0-9]+$/.test(key)) {
      throw PayrexError('parameter_invalid', 'Payrex.js needs a public key: pk_test_… or pk_live_….');
    }
    this._key = key;
    this._options = options || {};
  }

  /** The intent a client secret (`pi_…_secret_…`) belongs to, if it is one with `prefix`. */
  function intentOf(clientSecret, prefix) {
    var parts = typeof clientSecret === 'string' ? clientSecret.split('_secret_') : [];
    var id = parts[0] || '';
    return parts.length === 2 && id.indexOf(prefix) === 0 && /^[A-Za-z0-9_]+$/.test(id) ? id : null;
  }

  /** GET `path` of the service with the public key: the answer's JSON, or a PayrexError. */
  Payrex.prototype._get = function (path) {
    return window.fetch(SERVICE_URL + path, {
      headers: { Authorization: 'Basic ' + window.btoa(this._key + ':') },
      credentials: 'omit',
      cache: 'no-store'
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (body) {
        if (!response.ok) {
          throw answeredError(body, response.status);
        }
        return body;
      });
    }, function () {
      throw PayrexError('network_error', 'The payments service could not be reached.');
    });
  };

  Payrex.prototype._retrieve = function (collection, prefix, clientSecret) {
    var id = intentOf(clientSecret, prefix);
    if (!id) {
      return Promise.reject(PayrexError('parameter_invalid', 'This is not the client secret of a ' +
        collection.replace(/s$/, '').replace('_', ' ') + '.'));
    }
    return this._get('/' + collection + '/' + id + '?client_secret=' + encodeURIComponent(clientSecret));
  };

  /** Resolves to the payment intent whose client secret is `clientSecret`. */
  Payrex.prototype.getPaymentIntent = function (clientSecret) {
    return this._retrieve('payment_intents', 'pi_', clientSecret);
  };

  /** Resolves to the setup intent whose client secret is `clientSecret`. */
  Payrex.prototype.getSetupIntent = function (clientSecret) {
    return this._retrieve('setup_intents', 'si_', clientSecret);
  };

  window.Payrex = Payrex;
})(window);
