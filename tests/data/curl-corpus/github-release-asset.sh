curl -L \
  -X POST \
  -H "Accept: application/vnd.github+json" \
  -H "Authorization: Bearer ghp_FAKE0123456789abcdefABCDEF0123456789" \
  -H "X-GitHub-Api-Version: 2022-11-28" \
  -H "Content-Type: application/octet-stream" \
  "https://ECHO/repos/OWNER/REPO/releases/1/assets?name=release-notes.txt" \
  --data-binary "@files/release-notes.txt"
