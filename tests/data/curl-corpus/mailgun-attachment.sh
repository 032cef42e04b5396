curl -s --user 'api:key-FAKE0000000000000000000000000000' \
    https://ECHO/v3/sandbox123.mailgun.org/messages \
    -F from='Excited User <mailgun@sandbox123.mailgun.org>' \
    -F to='foo@example.com' \
    -F subject='Hello' \
    -F text='See the notes attached' \
    --form-string html='<html><b>Inline</b> notes</html>' \
    -F attachment=@files/notes.txt
