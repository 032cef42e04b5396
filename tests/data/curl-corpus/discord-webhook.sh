curl -H "Content-Type: application/json" -d "{\"content\": \"Build \$BUILD_ID passed \\o/ on \`main\`\", \"username\": \"ci-bot\"}" https://ECHO/api/webhooks/123456/FAKEwebhooktoken
