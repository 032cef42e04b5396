curl --request POST \
  --url 'https://ECHO/rest/api/3/issue' \
  --user 'email@example.com:FAKEJIRAAPITOKEN000' \
  --header 'Accept: application/json' \
  --header 'Content-Type: application/json' \
  --data '{
  "fields": {
    "project": { "key": "TEST" },
    "summary": "Something is wrong",
    "issuetype": { "name": "Bug" }
  }
}'
