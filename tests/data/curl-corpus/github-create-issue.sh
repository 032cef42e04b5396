curl -L \
  -X POST \
  -H "Accept: application/vnd.github+json" \
  -H "Authorization: Bearer ghp_FAKE0123456789abcdefABCDEF0123456789" \
  -H "X-GitHub-Api-Version: 2022-11-28" \
  https://ECHO/repos/OWNER/REPO/issues \
  -d '{"title":"Found a bug","body":"I'\''m having a problem with this.","assignees":["octocat"],"labels":["bug"]}'
