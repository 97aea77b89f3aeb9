-- localstripe, the peer: POST /v1/payment_intents with a Stripe-style form body.
wrk.method = "POST"
wrk.path = "/v1/payment_intents"
wrk.headers["Authorization"] = "Bearer sk_test_bench"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.body = "amount=10000&currency=php&payment_method_types[]=card"

dofile("bench/non_200.lua")
