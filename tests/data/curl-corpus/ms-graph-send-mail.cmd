curl -X POST https://ECHO/v1.0/me/sendMail ^
  -H "Authorization: Bearer eyFAKEgraphtoken" ^
  -H "Content-Type: application/json" ^
  -d "{\"message\": {\"subject\": \"Lunch?\", \"body\": {\"contentType\": \"Text\", \"content\": \"The new cafeteria is open.\"}, \"toRecipients\": [{\"emailAddress\": {\"address\": \"frannis@example.com\"}}]}, \"saveToSentItems\": \"false\"}"
