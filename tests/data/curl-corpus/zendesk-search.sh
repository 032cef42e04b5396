curl "https://ECHO/api/v2/search.json" \
  -G --data-urlencode "query=type:ticket status:open priority>normal" \
  -u agent@example.com/token:FAKEZENDESKTOKEN00
