curl -X PATCH "https://ECHO/client/v4/zones/023e105f4ecef8ad9ca31a8372d0c353/settings/ssl" \
     -H "X-Auth-Email: user@example.com" \
     -H "X-Auth-Key: FAKEc2547eb745079dac9320b638f5e225cf483cc5cfdda41" \
     -H "Content-Type: application/json" \
     --data '{"value":"full"}'
