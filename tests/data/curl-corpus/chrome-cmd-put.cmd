curl ^"https://ECHO/api/v2/users/42/preferences^" ^
  -X ^"PUT^" ^
  -H ^"content-type: application/json^" ^
  -H ^"x-api-key: FAKEapikey0000^" ^
  --data-raw ^"^{^\^"theme^\^":^\^"dark^\^",^\^"notifications^\^":^{^\^"email^\^":false^}^}^" ^
  --compressed
