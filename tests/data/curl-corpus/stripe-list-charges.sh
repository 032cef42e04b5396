curl -G https://ECHO/v1/charges \
  -u sk_test_FAKE4eC39HqLyjWDarjtT1zdp7dc: \
  -d limit=3 \
  -d "created[gte]=1700000000"
