# env: OPENAI_API_KEY=sk-FAKE-openai-0000000000
curl https://ECHO/v1/files \
  -H "Authorization: Bearer $OPENAI_API_KEY" \
  -F purpose="fine-tune" \
  -F file="@files/mydata.jsonl"
