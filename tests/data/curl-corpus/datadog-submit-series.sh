# env: DD_API_KEY=FAKEdatadogkey000
curl -X POST "https://ECHO/api/v2/series" \
-H "Accept: application/json" \
-H "Content-Type: application/json" \
-H "DD-API-KEY: ${DD_API_KEY}" \
--data-binary @files/series.json
