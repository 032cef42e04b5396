curl https://ECHO/v1/customers \
  -u sk_test_FAKE4eC39HqLyjWDarjtT1zdp7dc: \
  -d name="Jenny Rosen" \
  --data-urlencode email="jenny.rosen@example.com" \
  -d "metadata[order_id]=6735"
