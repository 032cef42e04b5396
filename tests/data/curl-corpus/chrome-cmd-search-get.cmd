curl ^"https://ECHO/api/search?q=caf^%^C3^%^A9^%^20au^%^20lait&page=2&sort=-date^" ^
  -H ^"accept: application/json, text/plain, */*^" ^
  -H ^"authorization: Bearer eyFAKE.jwt.token^" ^
  -H ^"referer: https://app.example.com/search^" ^
  --compressed
