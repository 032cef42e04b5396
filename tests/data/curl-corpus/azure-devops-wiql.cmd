curl -u :FAKEazurepat0000000000 ^
  -H "Content-Type: application/json" ^
  -d "{\"query\": \"Select [System.Id], [System.Title] From WorkItems Where [System.State] = 'Active'\"}" ^
  "https://ECHO/fabrikam/_apis/wit/wiql?api-version=7.1"
