curl --request POST \
  --url https://ECHO/v2/enqueue \
  --header 'Content-Type: application/json' \
  --data '{"payload": {"summary": "DISK at 99% on machine prod-datapipe03.example.com", "severity": "critical", "source": "prod-datapipe03"}, "routing_key": "R0UT1NGK3YFAKE", "event_action": "trigger"}'
