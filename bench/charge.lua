-- Full charges: each connection creates an intent, then attaches the Visa success card to it.
-- Created intents wait in a per-thread queue; the next request of the thread attaches one.
-- PACE_MS (optional) makes every connection wait that long between requests, for a fixed load.

local key = os.getenv("PAYMENTS_KEY")
local pace = tonumber(os.getenv("PACE_MS") or "0")
local headers = {
  ["Authorization"] = "Bearer " .. key,
  ["Content-Type"] = "application/x-www-form-urlencoded",
}
local create_body = "amount=10000&currency=PHP&payment_methods[]=card"
local attach_body = "payment_method[type]=card&payment_method[card][number]=4242424242424242"
  .. "&payment_method[card][exp_month]=12&payment_method[card][exp_year]=2035&payment_method[card][cvc]=123"

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

pending = {}
charges = 0
failures = 0

function request()
  local id = table.remove(pending)
  if id then
    return wrk.format("POST", "/payment_intents/" .. id .. "/attach", headers, attach_body)
  end
  return wrk.format("POST", "/payment_intents", headers, create_body)
end

function response(status, headers, body)
  local id = body:match('^{"id":"(pi_%w+)"')
  if status ~= 200 or not id then
    failures = failures + 1
  elseif body:find('"status":"succeeded"', 1, true) then
    charges = charges + 1
  else
    table.insert(pending, id)
  end
end

if pace > 0 then
  function delay()
    return pace
  end
end

function done(summary, latency, requests)
  local total, failed = 0, 0
  for _, thread in ipairs(threads) do
    total = total + thread:get("charges")
    failed = failed + thread:get("failures")
  end
  local seconds = summary.duration / 1e6
  io.write(string.format("charges: %d in %.1f s = %.0f charges/s; failed answers: %d\n", total, seconds, total / seconds, failed))
end
