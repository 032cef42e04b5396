curl ^"https://ECHO/api/paths^" ^
  -H ^"content-type: application/json^" ^
  --data-raw ^"^{^\^"path^\^":^\^"C:^\^\^\^\Users^\^\^\^\me^\^\^\^\file.txt^\^",^\^"quote^\^":^\^"she said ^\^\^\^"hi^\^\^\^"^\^",^\^"caret^\^":^\^"a^^b^\^",^\^"pipe^\^":^\^"x^|y^<z^>^\^",^\^"name^\^":^\^"Zo^ë^\^"^}^" ^
  --compressed
