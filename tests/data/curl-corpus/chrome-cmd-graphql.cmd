curl ^"https://ECHO/graphql^" ^
  -H ^"accept: */*^" ^
  -H ^"accept-language: en-GB,en;q=0.9^" ^
  -H ^"content-type: application/json^" ^
  -b ^"session_id=FAKEsess0123; theme=dark^" ^
  -H ^"origin: https://app.example.com^" ^
  -H ^"user-agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36^" ^
  --data-raw ^"^{^\^"query^\^":^\^"query Viewer(^$n: Int^!) ^{ viewer ^{ repos(first: ^$n) ^{ name ^} ^} ^}^\^",^\^"variables^\^":^{^\^"n^\^":5^}^}^" ^
  --compressed
