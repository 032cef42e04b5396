curl -F file=@files/report.csv -F "initial_comment=Shakes the cat" -F channels=C024BE91L,D032AC32T -H "Authorization: Bearer xoxb-FAKE-1234-abcdefghijkl" https://ECHO/api/files.upload
