-- POST /payment_intents with a PayRex-style form body.
wrk.method = "POST"
wrk.path = "/payment_intents"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("PAYMENTS_KEY")
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.body = "amount=10000&currency=PHP&payment_methods[]=card&payment_methods[]=gcash"

dofile("bench/non_200.lua")
