curl 'https://ECHO/session?next=%2Fdashboard%3Ftab%3D1' \
  -H 'Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' \
  -H 'Cache-Control: max-age=0' \
  -H 'Content-Type: application/x-www-form-urlencoded' \
  -H 'Origin: https://app.example.com' \
  -H 'Upgrade-Insecure-Requests: 1' \
  --data-raw 'authenticity_token=abc%2Bdef%3D&login=octocat&password=not-a-real-password&commit=Sign+in' \
  --compressed
