curl -s --user 'api:key-FAKE0000000000000000000000000000' \
    https://ECHO/v3/sandbox123.mailgun.org/messages \
    -F from='Excited User <mailgun@sandbox123.mailgun.org>' \
    -F to=YOU@example.com \
    -F to=bar@example.com \
    -F subject='Hello' \
    -F text='Testing some Mailgun awesomeness!'
