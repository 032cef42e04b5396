curl ^"https://ECHO/oauth2/v2.0/token^" ^
  -H ^"content-type: application/x-www-form-urlencoded;charset=UTF-8^" ^
  -H ^"origin: https://login.example.com^" ^
  --data-raw ^"client_id=6731de76-14a6-49ae-97bc-6eba6914391e&scope=openid^%^20profile&grant_type=authorization_code&code=FAKEcode&redirect_uri=https^%^3A^%^2F^%^2Fapp.example.com^%^2Fcallback^" ^
  --compressed
