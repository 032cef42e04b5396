curl https://ECHO/services/data/v59.0/sobjects/Account/ -H "Authorization: Bearer 00DFAKE0000000!AQ4AQFAKEFAKEFAKE" -H "Content-Type: application/json" -d "@files/newaccount.json"
