curl --json '{"tool": "curl", "version": "7.88"}' https://ECHO/api/tools
