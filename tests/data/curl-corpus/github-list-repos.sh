curl -L \
  -H "Accept: application/vnd.github+json" \
  -H "Authorization: Bearer ghp_FAKE0123456789abcdefABCDEF0123456789" \
  -H "X-GitHub-Api-Version: 2022-11-28" \
  "https://ECHO/user/repos?per_page=5&sort=updated&visibility=all"
