curl -X GET "https://ECHO/admin/api/2024-01/products.json?limit=50&fields=id,title,vendor" \
  -H "X-Shopify-Access-Token: shpat_FAKE00000000000000000000000000"
