curl https://ECHO/api/v2/tickets.json \
  -d '{"ticket": {"subject": "My printer is on fire!", "comment": { "body": "The smoke is very colorful." }}}' \
  -H "Content-Type: application/json" -v -u agent@example.com/token:FAKEZENDESKTOKEN00 -X POST
