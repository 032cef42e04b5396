# env: TWILIO_ACCOUNT_SID=ACFAKE00000000000000000000000000
# env: TWILIO_AUTH_TOKEN=fake_auth_token_0000
curl -X POST "https://ECHO/2010-04-01/Accounts/$TWILIO_ACCOUNT_SID/Messages.json" \
--data-urlencode "Body=Hi there & welcome, it's 100% real" \
--data-urlencode "From=+15557122661" \
--data-urlencode "To=+15558675310" \
-u $TWILIO_ACCOUNT_SID:$TWILIO_AUTH_TOKEN
