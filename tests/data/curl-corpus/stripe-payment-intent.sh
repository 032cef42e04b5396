curl https://ECHO/v1/payment_intents \
  -u "sk_test_FAKE4eC39HqLyjWDarjtT1zdp7dc:" \
  -H "Idempotency-Key: KG5LxwFBepaKHyUD" \
  -d amount=2000 \
  -d currency=usd \
  -d "payment_method_types[]"=card
