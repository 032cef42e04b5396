curl -s -H "Content-Type: application/x-ndjson" -XPOST "https://ECHO/_bulk?refresh=wait_for" --data-binary "@files/requests.ndjson"
