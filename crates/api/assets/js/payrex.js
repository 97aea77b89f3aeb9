/*
 * Payrex.js, as this payments service serves it at /js/v1/payrex.js: the library a merchant's page
 * loads to read and pay intents with a public key, shaped like PayRex's own (docs/payrexjs.md).
 * Plain JavaScript, no build step. It talks to the service it was served by, and to nothing else.
 */
(function (window) {
  'use strict';

  // The service's public base URL, and how a client secret names its object (`<id>` then this
  // mark then its random part), written in when the service serves this file.
  var SERVICE_URL = '__PAYMENTS_PUBLIC_BASE_URL__';
  var CLIENT_SECRET_MARK = '__CLIENT_SECRET_MARK__';
  /** How long a payment element may take to answer an attach before it is given up on. */
  var ATTACH_TIMEOUT_MS = 120000;

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
    var parts = typeof clientSecret === 'string' ? clientSecret.split(CLIENT_SECRET_MARK) : [];
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

  /** `url` with `name=value` added to its query, before any `#fragment`. */
  function withQueryPair(url, name, value) {
    var hash = url.indexOf('#');
    var fragment = hash < 0 ? '' : url.slice(hash);
    var base = hash < 0 ? url : url.slice(0, hash);
    var separator = base.indexOf('?') < 0 ? '?' : (/[?&]$/.test(base) ? '' : '&');
    return base + separator + encodeURIComponent(name) + '=' + encodeURIComponent(value) + fragment;
  }

  var SERVICE_ORIGIN = new URL(SERVICE_URL).origin;

  /** What `payrex.elements(options)` answers: the intent's client secret and the elements made. */
  function Elements(payrex, options) {
    options = options || {};
    if ((options.clientSecret || '').indexOf(CLIENT_SECRET_MARK) < 0) {
      throw PayrexError('parameter_invalid', 'payrex.elements needs the clientSecret of an intent.');
    }
    this._payrex = payrex;
    this._clientSecret = options.clientSecret;
    this._customerSessionClientSecret = options.customerSessionClientSecret || '';
    this._element = null;
  }

  /** `elements.create('payment', options)`: the payment element, not shown until mounted. */
  Elements.prototype.create = function (type, options) {
    if (type !== 'payment') {
      throw PayrexError('parameter_invalid', 'Only the payment element exists: create(\'payment\').');
    }
    this._element = new PaymentElement(this, options || {});
    return this._element;
  };

  Elements.prototype.getElement = function (type) {
    return type === 'payment' ? this._element : null;
  };

  function PaymentElement(elements, options) {
    this._elements = elements;
    this._options = options;
    this._handlers = {};
    this._frame = null;
    this._pending = {};
    this._sent = 0;
    this._listener = this._receive.bind(this);
  }

  /** Calls `handler` on `event`: `ready`, `change` or `loaderror`. */
  PaymentElement.prototype.on = function (event, handler) {
    (this._handlers[event] = this._handlers[event] || []).push(handler);
    return this;
  };

  PaymentElement.prototype.off = function (event, handler) {
    this._handlers[event] = (this._handlers[event] || []).filter(function (known) { return known !== handler; });
    return this;
  };

  PaymentElement.prototype._fire = function (event, detail) {
    (this._handlers[event] || []).forEach(function (handler) { handler(detail); });
  };

  /** Shows the element in `target` (a CSS selector or a node): a frame served by the service. */
  PaymentElement.prototype.mount = function (target) {
    var node = typeof target === 'string' ? window.document.querySelector(target) : target;
    if (!node) {
      throw PayrexError('parameter_invalid', 'Nothing on the page matches ' + target + ' to mount the element in.');
    }
    this.unmount();
    var settings = new URLSearchParams();
    settings.set('key', this._elements._payrex._key);
    settings.set('client_secret', this._elements._clientSecret);
    settings.set('origin', window.location.origin);
    settings.set('layout', this._options.layout === 'tabs' ? 'tabs' : 'accordion');
    if (this._elements._customerSessionClientSecret) {
      settings.set('customer_session', this._elements._customerSessionClientSecret);
    }
    var defaults = this._options.defaultValues || {};
    if (defaults.billingDetails) {
      settings.set('billing', JSON.stringify(defaults.billingDetails));
    }
    if (this._options.fields) {
      settings.set('fields', JSON.stringify(this._options.fields));
    }
    var frame = window.document.createElement('iframe');
    // The key is named to the server too: a live frame then tokenizes the card at the account's
    // processor, and its policy lets it reach that processor.
    var key = encodeURIComponent(this._elements._payrex._key);
    frame.src = SERVICE_URL + '/js/v1/elements/payment?key=' + key + '#' + settings.toString();
    frame.title = 'Secure payment details';
    frame.setAttribute('allow', 'payment');
    frame.style.cssText = 'border:0;width:100%;height:160px;display:block;background:transparent;';
    window.addEventListener('message', this._listener);
    node.appendChild(frame);
    this._frame = frame;
    return this;
  };

  PaymentElement.prototype.unmount = function () {
    window.removeEventListener('message', this._listener);
    if (this._frame && this._frame.parentNode) {
      this._frame.parentNode.removeChild(this._frame);
    }
    this._frame = null;
    this._inFlight = null;
    // An attach in flight can no longer be answered: it settles now, rather than never.
    this._settleAll({
      code: 'element_unmounted',
      message: 'The payment element was removed before the attach was answered: retrieve the intent to learn ' +
        'whether it was paid.'
    });
    return this;
  };

  /** Settles every attach still waiting with `error`. */
  PaymentElement.prototype._settleAll = function (error) {
    var pending = this._pending;
    this._pending = {};
    Object.keys(pending).forEach(function (id) { pending[id]({ error: error }); });
  };

  PaymentElement.prototype.destroy = function () {
    this.unmount();
    this._handlers = {};
    if (this._elements._element === this) {
      this._elements._element = null;
    }
  };

  /** A message of the element's frame: anything from another origin or window is ignored. */
  PaymentElement.prototype._receive = function (event) {
    var message = event.data;
    if (event.origin !== SERVICE_ORIGIN || !this._frame || event.source !== this._frame.contentWindow ||
        !message || message.source !== 'payrex-element') {
      return;
    }
    if (message.type === 'resize' && message.height > 0) {
      this._frame.style.height = Math.ceil(message.height) + 'px';
    } else if (message.type === 'ready' || message.type === 'change') {
      this._fire(message.type, { elementType: 'payment' });
    } else if (message.type === 'loaderror') {
      this._fire('loaderror', { elementType: 'payment', error: message.error });
    } else if (message.type === 'result' && this._pending[message.id]) {
      var settle = this._pending[message.id];
      delete this._pending[message.id];
      settle(message);
    }
  };

  /** Asks the frame to attach what the customer typed; resolves to its result message. */
  PaymentElement.prototype._attach = function (returnUrl) {
    var element = this;
    if (!element._frame) {
      return Promise.resolve({ error: { code: 'parameter_invalid', message: 'The payment element is not mounted.' } });
    }
    if (element._inFlight) {
      return element._inFlight;
    }
    element._sent += 1;
    var id = element._sent;
    var timer = null;
    var inFlight = new Promise(function (resolve) {
      element._pending[id] = resolve;
      // A frame that never answers (closed, crashed) does not leave the page waiting forever.
      timer = window.setTimeout(function () {
        if (element._pending[id]) {
          delete element._pending[id];
          resolve({ error: { code: 'network_error', message: 'The payment element did not answer. Retrieve the ' +
            'intent to learn whether it was paid before trying again.' } });
        }
      }, ATTACH_TIMEOUT_MS);
      element._frame.contentWindow.postMessage({ type: 'attach', id: id, returnUrl: returnUrl }, SERVICE_ORIGIN);
    }).then(function (result) {
      window.clearTimeout(timer);
      if (element._inFlight === inFlight) {
        element._inFlight = null;
      }
      return result;
    });
    element._inFlight = inFlight;
    return inFlight;
  };

  /** `payrex.elements({clientSecret})`: the elements of one intent. */
  Payrex.prototype.elements = function (options) {
    return new Elements(this, options);
  };

  /**
   * Attaches what the customer entered in the payment element to its intent. On success the
   * browser goes to `options.return_url` with the intent's client secret added (or, with
   * `redirect: 'if_required'`, the promise resolves `{paymentIntent}`); a 3-D Secure card goes
   * through the service's authorization page first. A refusal resolves `{error}`; it never throws.
   */
  Payrex.prototype.attachPaymentMethod = function (request) {
    request = request || {};
    var elements = request.elements;
    var element = elements && elements._element;
    var returnUrl = request.options && request.options.return_url;
    if (!element) {
      return Promise.resolve({ error: { code: 'parameter_invalid', message: 'attachPaymentMethod needs the elements of a mounted payment element.' } });
    }
    var parameter = elements._clientSecret.indexOf('si_') === 0 ? 'setup_intent_client_secret' : 'payment_intent_client_secret';
    return element._attach(returnUrl).then(function (result) {
      if (result.error) {
        return { error: result.error };
      }
      var intent = result.intent;
      var redirect = intent.next_action && intent.next_action.redirect_url;
      if (redirect) {
        window.location.assign(redirect);
        return new Promise(function () {});
      }
      if (request.redirect === 'if_required' || !returnUrl) {
        return parameter === 'setup_intent_client_secret' ? { setupIntent: intent } : { paymentIntent: intent };
      }
      window.location.assign(withQueryPair(returnUrl, parameter, elements._clientSecret));
      return new Promise(function () {});
    });
  };

  window.Payrex = Payrex;
})(window);
