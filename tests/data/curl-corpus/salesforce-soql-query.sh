curl https://ECHO/services/data/v59.0/query/?q=SELECT+name,id+from+Account+LIMIT+10 -H "Authorization: Bearer 00DFAKE0000000!AQ4AQFAKEFAKEFAKE" -H "X-PrettyPrint:1"
