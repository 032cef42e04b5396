curl ^"https://ECHO/api/notes^" ^
  -H ^"content-type: text/plain;charset=UTF-8^" ^
  -H ^"x-csrf-token: FAKEcsrf0000^" ^
  --data-raw ^"first line^

second line with ^\^"quotes^\^" & 50^% off^

^

last line^" ^
  --compressed
