curl -X POST -H 'Authorization: Bearer xoxb-FAKE-1234-abcdefghijkl' \
-H 'Content-type: application/json; charset=utf-8' \
--data '{"channel":"C123ABC456","text":"Hello, world! :tada:"}' \
https://ECHO/api/chat.postMessage
