curl -X POST \
  https://ECHO/admin/api/2024-01/graphql.json \
  -H 'Content-Type: application/json' \
  -H 'X-Shopify-Access-Token: shpat_FAKE00000000000000000000000000' \
  -d '{
  "query": "{ products(first: 3) { edges { node { id title } } } }"
}'
