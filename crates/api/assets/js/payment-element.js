/*
 * The payment element's frame, served by the payments service and shown by Payrex.js in the
 * merchant's page. Card data is typed here, on the service's origin, and sent only to the service
 * in test mode, and only to the account's processor in live mode (whose token then goes to the
 * service): the merchant's page never sees it. The page and the frame talk by postMessage, each
 * checking the other's origin. The frame reads its settings from its address's fragment, which no
 * server sees (the key is also in its query, so that the service names a live account's processor).
 */
(function () {
  'use strict';

  var settings = new URLSearchParams(window.location.hash.slice(1));
  var key = settings.get('key') || '';
  var clientSecret = settings.get('client_secret') || '';
  var parentOrigin = settings.get('origin') || '';
  var layout = settings.get('layout') === 'tabs' ? 'tabs' : 'accordion';
  var sessionSecret = settings.get('customer_session') || '';
  var billingDefaults = parsed('billing');
  var billingFields = parsed('fields').billingDetails;
  var form = document.getElementById('element');
  var alertBox = document.getElementById('element-alert');
  // What the service wrote into the page: how a client secret names its object, and how each
  // payment method is named to a customer.
  var CLIENT_SECRET_MARK = form.getAttribute('data-client-secret-mark');
  var METHOD_NAMES = JSON.parse(form.getAttribute('data-method-names'));
  var intentId = clientSecret.split(CLIENT_SECRET_MARK)[0];
  var sessionId = sessionSecret.split(CLIENT_SECRET_MARK)[0];
  var collection = intentId.indexOf('si_') === 0 ? 'setup_intents' : 'payment_intents';
  /** How often, at most, an attach whose answer was lost is asked again, and the waits between. */
  var RETRY_WAITS_MS = [300, 1000, 2000, 4000];

  /** A setting given as JSON (`billing`, `fields`); an object, empty when absent or malformed. */
  function parsed(name) {
    try {
      var value = JSON.parse(settings.get(name) || '{}');
      return value && typeof value === 'object' ? value : {};
    } catch (ignored) {
      return {};
    }
  }

  function tell(message) {
    message.source = 'payrex-element';
    window.parent.postMessage(message, parentOrigin);
  }

  function resize() {
    tell({ type: 'resize', height: document.documentElement.scrollHeight });
  }

  function show(message) {
    alertBox.textContent = message || '';
    alertBox.hidden = !message;
    resize();
  }

  function api(method, path, body, idempotencyKey) {
    var headers = {
      Authorization: 'Basic ' + window.btoa(key + ':'),
      'Content-Type': 'application/x-www-form-urlencoded'
    };
    if (idempotencyKey) {
      headers['Idempotency-Key'] = idempotencyKey;
    }
    return window.fetch(path, {
      method: method,
      headers: headers,
      body: body,
      credentials: 'omit',
      cache: 'no-store'
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (answer) {
        return { ok: response.ok, status: response.status, body: answer };
      });
    });
  }

  function errorOf(answer) {
    var first = answer && answer.body && answer.body.errors && answer.body.errors[0];
    return first ? { code: first.code, message: first.detail || first.code }
      : { code: 'api_error', message: 'The payment could not be processed. Try again.' };
  }

  /** A labelled text input: `name` is its id, `autocomplete` what the browser may fill in. */
  function input(name, label, autocomplete, inputmode, wide) {
    var wrapper = document.createElement('div');
    wrapper.className = wide ? 'wide' : '';
    var labelElement = document.createElement('label');
    labelElement.htmlFor = name;
    labelElement.textContent = label;
    var field = document.createElement('input');
    field.type = 'text';
    field.id = name;
    field.name = name;
    field.autocomplete = autocomplete;
    field.inputMode = inputmode;
    field.spellcheck = false;
    wrapper.appendChild(labelElement);
    wrapper.appendChild(field);
    return wrapper;
  }

  /** The methods' names as customers know them. */

  /** The card's fields: number, expiry (MM / YY) and CVC. */
  function cardFields() {
    var fields = document.createElement('div');
    fields.className = 'fields';
    fields.appendChild(input('card-number', 'Card number', 'cc-number', 'numeric', true));
    fields.appendChild(input('card-expiry', 'Expiry', 'cc-exp', 'numeric', false));
    fields.appendChild(input('card-cvc', 'CVC', 'cc-csc', 'numeric', false));
    return fields;
  }

  /** The billing fields: name, e-mail, phone and address, as the parameter, its label and autocomplete. */
  var BILLING_FIELDS = {
    name: [['name', 'Full name', 'name']],
    email: [['email', 'Email', 'email']],
    phone: [['phone', 'Phone', 'tel']],
    address: [
      ['address.line1', 'Address line 1', 'address-line1'],
      ['address.line2', 'Address line 2', 'address-line2'],
      ['address.city', 'City', 'address-level2'],
      ['address.state', 'State or province', 'address-level1'],
      ['address.postal_code', 'Postal code', 'postal-code'],
      ['address.country', 'Country (two-letter code)', 'country']
    ]
  };

  /** Whether the merchant's `fields.billingDetails` shows `group`: all unless `never`, as a whole or for it. */
  function collects(group) {
    if (billingFields === 'never') {
      return false;
    }
    return !(billingFields && typeof billingFields === 'object' && billingFields[group] === 'never');
  }

  /** The merchant's default for `path` (`address.postal_code` reads `address.postalCode` too). */
  function billingDefault(path) {
    var parts = path.split('.');
    var holder = parts.length > 1 ? billingDefaults[parts[0]] || {} : billingDefaults;
    var name = parts[parts.length - 1];
    var camel = name.replace(/_(.)/g, function (all, letter) { return letter.toUpperCase(); });
    var found = holder[name] !== undefined ? holder[name] : holder[camel];
    return found === undefined || found === null ? '' : String(found);
  }

  /** The billing details section, or nothing when every group is `never`. */
  function billingSection() {
    var section = document.createElement('fieldset');
    section.className = 'billing fields';
    var legend = document.createElement('legend');
    legend.textContent = 'Billing details';
    section.appendChild(legend);
    Object.keys(BILLING_FIELDS).filter(collects).forEach(function (group) {
      BILLING_FIELDS[group].forEach(function (field) {
        var wide = field[0] !== 'address.postal_code' && field[0] !== 'address.country';
        var made = input('billing-' + field[0].replace('.', '-'), field[1], field[2], field[2] === 'tel' ? 'tel' : 'text', wide);
        made.querySelector('input').value = billingDefault(field[0]);
        section.appendChild(made);
      });
    });
    return section.children.length > 1 ? section : null;
  }

  /**
   * The billing details for the attach: what the customer typed, and the merchant's defaults for the
   * fields not shown. Empty values are left out.
   */
  function billingParameters(body) {
    Object.keys(BILLING_FIELDS).forEach(function (group) {
      BILLING_FIELDS[group].forEach(function (field) {
        var typed = collects(group) ? value('billing-' + field[0].replace('.', '-')) : billingDefault(field[0]).trim();
        if (typed) {
          body.set('payment_method[billing][' + field[0].split('.').join('][') + ']', typed);
        }
      });
    });
  }

  /** Shows the billing details for a method paid now; a saved card has its own. */
  function showBilling(visible) {
    var billing = form.querySelector('.billing');
    if (billing) {
      billing.hidden = !visible;
    }
  }

  /** The unticked "Save this card" box, shown when the customer session grants `payment_method_save`. */
  function saveBox() {
    var label = document.createElement('label');
    label.className = 'wide save';
    var box = document.createElement('input');
    box.type = 'checkbox';
    box.id = 'save-card';
    label.appendChild(box);
    label.appendChild(document.createTextNode(' Save this card for future payments'));
    return label;
  }

  /** A redirect method's note: the customer approves on the next page. */
  function redirectNote(method) {
    var note = document.createElement('p');
    note.className = 'fields note';
    note.textContent = 'You will approve the payment with ' + (METHOD_NAMES[method] || method) + ' on the next page.';
    return note;
  }

  /** A section with a radio button choosing `value`, labelled `text`. */
  function choice(value, text, className) {
    var section = document.createElement('div');
    section.className = className;
    var label = document.createElement('label');
    label.className = 'method';
    var radio = document.createElement('input');
    radio.type = 'radio';
    radio.name = 'method';
    radio.value = value;
    label.appendChild(radio);
    label.appendChild(document.createTextNode(' ' + text));
    section.appendChild(label);
    return { section: section, radio: radio };
  }

  /**
   * One section per method the intent allows, each a radio button the keyboard reaches, with its
   * fields shown while it is chosen: stacked (`accordion`) or side by side (`tabs`).
   */
  function methodSections(methods) {
    var group = document.createElement('fieldset');
    group.className = 'methods ' + layout;
    var legend = document.createElement('legend');
    legend.className = 'visually-hidden';
    legend.textContent = 'Payment method';
    group.appendChild(legend);
    var panels = [];
    methods.forEach(function (method, index) {
      // Every method the service takes has its name in the page; one without is the service's
      // mistake, shown by its API name and said aloud rather than left out.
      if (!METHOD_NAMES[method]) {
        window.console.error('Payrex.js: the service named no customer-facing name for the method ' + method);
      }
      var made = choice(method, METHOD_NAMES[method] || method, 'method-section');
      var section = made.section;
      var radio = made.radio;
      radio.checked = index === 0;
      var panel = method === 'card' ? cardFields() : redirectNote(method);
      panel.hidden = index !== 0;
      panels.push([radio, panel]);
      radio.addEventListener('change', function () {
        panels.forEach(function (pair) { pair[1].hidden = !pair[0].checked; });
        showBilling(true);
        show('');
        tell({ type: 'change', method: method });
      });
      section.appendChild(panel);
      group.appendChild(section);
    });
    return group;
  }

  /** Whether the customer session grants `feature`, as the service says it does. */
  function grants(session, feature) {
    return ((session && session.granted_features) || []).indexOf(feature) >= 0;
  }

  /** `Visa •••• 4242 · 12/35`. */
  function describe(method) {
    var card = method.details || {};
    var brand = String(card.brand || 'card');
    return brand.charAt(0).toUpperCase() + brand.slice(1) + ' \u2022\u2022\u2022\u2022 ' + card.last4 + ' \u00b7 ' +
      ('0' + card.exp_month).slice(-2) + '/' + String(card.exp_year).slice(-2);
  }

  /**
   * The customer's saved cards, first, when the session grants `payment_method_redisplay`: each a
   * choice like the methods, with a Remove button when it grants `payment_method_remove`.
   */
  function savedSections(group, session) {
    var methods = grants(session, 'payment_method_redisplay') ? session.payment_methods || [] : [];
    var removable = grants(session, 'payment_method_remove');
    var editable = grants(session, 'payment_method_edit');
    var firstMethod = group.children[1] || null;
    methods.forEach(function (method) {
      var made = choice('saved:' + method.id, describe(method), 'method-section saved');
      var section = made.section;
      var radio = made.radio;
      if (editable) {
        section.appendChild(editControl(session, method, radio));
      }
      if (removable) {
        var remove = document.createElement('button');
        remove.type = 'button';
        remove.className = 'remove';
        remove.textContent = 'Remove';
        remove.setAttribute('aria-label', 'Remove ' + describe(method));
        remove.addEventListener('click', function () { removeSaved(session, method, section); });
        section.appendChild(remove);
      }
      radio.addEventListener('change', function () {
        group.querySelectorAll('.fields').forEach(function (panel) { panel.hidden = true; });
        showBilling(false);
        show('');
        tell({ type: 'change', method: 'saved' });
      });
      group.insertBefore(section, firstMethod);
    });
  }

  /**
   * The Edit button of a saved card, when the session grants `payment_method_edit`: it opens a
   * field for the expiry of the customer's renewed card (same number, new date), saved at once.
   */
  function editControl(session, method, radio) {
    var holder = document.createElement('span');
    holder.className = 'edit';
    var edit = document.createElement('button');
    edit.type = 'button';
    edit.className = 'remove';
    edit.textContent = 'Edit';
    edit.setAttribute('aria-label', 'Edit ' + describe(method));
    var panel = document.createElement('span');
    panel.className = 'edit-panel';
    panel.hidden = true;
    var field = input('expiry-' + method.id, 'New expiry', 'cc-exp', 'numeric', false);
    var save = document.createElement('button');
    save.type = 'button';
    save.className = 'remove';
    save.textContent = 'Save';
    panel.appendChild(field);
    panel.appendChild(save);
    edit.addEventListener('click', function () {
      panel.hidden = !panel.hidden;
      resize();
      if (!panel.hidden) {
        field.querySelector('input').focus();
      }
    });
    save.addEventListener('click', function () {
      var expiry = field.querySelector('input').value.trim().split(/\s*\/\s*/);
      var body = new URLSearchParams({ client_secret: sessionSecret, exp_month: expiry[0] || '', exp_year: expiry[1] || '' });
      api('POST', '/customers/' + session.customer_id + '/payment_methods/' + method.id, body.toString()).then(function (answer) {
        if (!answer.ok) {
          show(errorOf(answer).message);
          return;
        }
        show('');
        var label = radio.parentNode;
        label.lastChild.textContent = ' ' + describe(answer.body);
        edit.setAttribute('aria-label', 'Edit ' + describe(answer.body));
        panel.hidden = true;
        resize();
        edit.focus();
      }, function () {
        show('The payments service could not be reached.');
      });
    });
    holder.appendChild(edit);
    holder.appendChild(panel);
    return holder;
  }

  function removeSaved(session, method, section) {
    var path = '/customers/' + session.customer_id + '/payment_methods/' + method.id +
      '?client_secret=' + encodeURIComponent(sessionSecret);
    api('DELETE', path).then(function (answer) {
      if (answer.ok) {
        var wasChosen = section.querySelector('input:checked');
        section.parentNode.removeChild(section);
        if (wasChosen) {
          var first = form.querySelector('input[name=method]');
          if (first) {
            first.checked = true;
            first.dispatchEvent(new Event('change'));
          }
        }
        resize();
      } else {
        show(errorOf(answer).message);
      }
    }, function () {
      show('The payments service could not be reached.');
    });
  }

  function chosenMethod() {
    var chosen = form.querySelector('input[name=method]:checked');
    return chosen ? chosen.value : 'card';
  }

  function value(name) {
    var field = document.getElementById(name);
    return field ? field.value.trim() : '';
  }

  /**
   * Where the account's processor tokenizes a live card, as the service wrote it in: its address
   * and publishable key; "none" for a live account with no processor; nothing in test mode.
   */
  var TOKENIZER = (function () {
    try {
      return JSON.parse(form.getAttribute('data-tokenizer') || 'null');
    } catch (ignored) {
      return null;
    }
  })();

  /**
   * In live mode the card goes from here straight to the account's processor, which answers with
   * a token, and only the token goes to the service: live card data never reaches it. In test
   * mode the body is sent as it is, to the simulator behind the service.
   */
  function tokenized(body) {
    if (!body.has('payment_method[card][number]')) {
      return Promise.resolve(body);
    }
    if (TOKENIZER === 'none') {
      // A live card goes to a processor or nowhere: never to the service.
      return Promise.reject({ code: 'service_unavailable', message: 'This shop cannot take cards right now.' });
    }
    if (!TOKENIZER) {
      return Promise.resolve(body);
    }
    var card = new URLSearchParams();
    ['number', 'exp_month', 'exp_year', 'cvc'].forEach(function (field) {
      var name = 'payment_method[card][' + field + ']';
      card.set('card[' + field + ']', body.get(name));
      body.delete(name);
    });
    card.set('key', TOKENIZER.publishable_key);
    var unreachable = { code: 'network_error', message: 'The card processor could not be reached. Try again.' };
    return window.fetch(TOKENIZER.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: card.toString(),
      credentials: 'omit',
      referrerPolicy: 'no-referrer'
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (answer) {
        if (!response.ok || !answer || typeof answer.id !== 'string') {
          var refused = answer && answer.error && answer.error.message;
          throw { code: 'card_declined', message: refused || 'The card was not accepted. Check it and try again.' };
        }
        body.set('payment_method[card][token]', answer.id);
        return body;
      });
    }, function () {
      throw unreachable;
    });
  }

  /** The attach's body: the chosen method, the card as typed (the service checks it), and where to return. */
  function attachBody(returnUrl) {
    var body = new URLSearchParams();
    var method = chosenMethod();
    body.set('client_secret', clientSecret);
    if (method.indexOf('saved:') === 0) {
      body.set('payment_method_id', method.slice(6));
    } else {
      body.set('payment_method[type]', method);
    }
    if (method === 'card') {
      var expiry = value('card-expiry').split(/\s*\/\s*/);
      body.set('payment_method[card][number]', value('card-number').replace(/[\s-]/g, ''));
      body.set('payment_method[card][exp_month]', expiry[0] || '');
      body.set('payment_method[card][exp_year]', expiry[1] || '');
      body.set('payment_method[card][cvc]', value('card-cvc'));
      var save = document.getElementById('save-card');
      if (save && save.checked) {
        body.set('save_payment_method', 'true');
        body.set('customer_session_client_secret', sessionSecret);
      }
    }
    if (method.indexOf('saved:') !== 0) {
      billingParameters(body);
    }
    if (returnUrl) {
      body.set('return_url', returnUrl);
    }
    return body;
  }

  var attaching = false;

  /** A key no other attach has: 128 random bits, from a generator any page has, secure or not. */
  function freshKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return 'element-' + Array.prototype.map.call(bytes, function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
  }

  /**
   * Attaches what the customer typed, under an idempotency key of its own. When the answer is lost,
   * the same request goes again with the same key: the service answers what the first did if it
   * acted on it, runs it if it never arrived, and says so while it still runs. The frame never
   * guesses from the intent's status what happened.
   */
  function attach(request) {
    if (attaching) {
      return;
    }
    attaching = true;
    show('');
    var body = '';
    var idempotencyKey = freshKey();
    var send = function (tries) {
      api('POST', '/' + collection + '/' + intentId + '/attach', body, idempotencyKey).then(function (answer) {
        var first = answer.body && answer.body.errors && answer.body.errors[0];
        if (first && first.code === 'idempotency_key_in_use' && tries < RETRY_WAITS_MS.length) {
          window.setTimeout(function () { send(tries + 1); }, RETRY_WAITS_MS[tries]);
          return;
        }
        attaching = false;
        if (answer.ok) {
          tell({ type: 'result', id: request.id, intent: answer.body });
        } else {
          var error = errorOf(answer);
          show(error.message);
          tell({ type: 'result', id: request.id, error: error });
        }
      }, function () {
        if (tries < RETRY_WAITS_MS.length) {
          window.setTimeout(function () { send(tries + 1); }, RETRY_WAITS_MS[tries]);
          return;
        }
        attaching = false;
        var unreachable = { code: 'network_error', message: 'The payments service could not be reached. Try again.' };
        show(unreachable.message);
        tell({ type: 'result', id: request.id, error: unreachable });
      });
    };
    // Tokenized once: a request sent again after a lost answer carries the same token.
    tokenized(attachBody(request.returnUrl)).then(function (ready) {
      body = ready.toString();
      send(0);
    }, function (error) {
      attaching = false;
      show(error.message);
      tell({ type: 'result', id: request.id, error: error });
    });
  }

  window.addEventListener('message', function (event) {
    if (event.origin !== parentOrigin || event.source !== window.parent) {
      return;
    }
    if (event.data && event.data.type === 'attach') {
      attach(event.data);
    }
  });
  // The merchant's page pays, with its own button: Enter in a field submits nothing.
  form.addEventListener('submit', function (event) { event.preventDefault(); });
  window.addEventListener('resize', resize);

  api('GET', '/' + collection + '/' + intentId + '?client_secret=' + encodeURIComponent(clientSecret)).then(
    function (answer) {
      if (!answer.ok) {
        var error = errorOf(answer);
        show(error.message);
        tell({ type: 'loaderror', error: error });
        return;
      }
      var group = methodSections(answer.body.payment_methods || ['card']);
      form.appendChild(group);
      var billing = billingSection();
      if (billing) {
        form.appendChild(billing);
      }
      if (!sessionSecret) {
        tell({ type: 'ready' });
        resize();
        return;
      }
      api('GET', '/customer_sessions/' + sessionId + '?client_secret=' + encodeURIComponent(sessionSecret)).then(
        function (session) {
          if (!session.ok) {
            var error = errorOf(session);
            show(error.message);
            tell({ type: 'loaderror', error: error });
            return;
          }
          if (collection === 'payment_intents') {
            savedSections(group, session.body);
            var card = form.querySelector('#card-number');
            if (card && grants(session.body, 'payment_method_save')) {
              card.parentNode.parentNode.appendChild(saveBox());
            }
          }
          tell({ type: 'ready' });
          resize();
        },
        function () {
          tell({ type: 'loaderror', error: { code: 'network_error', message: 'The payments service could not be reached.' } });
        }
      );
    },
    function () {
      show('The payments service could not be reached.');
      tell({ type: 'loaderror', error: { code: 'network_error', message: 'The payments service could not be reached.' } });
    }
  );
})();
