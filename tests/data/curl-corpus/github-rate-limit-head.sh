curl -I https://ECHO/users/octocat/orgs
