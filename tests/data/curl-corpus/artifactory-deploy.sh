curl -u admin:FAKEartifactoryPassw0rd -T files/settings.xml "https://ECHO/artifactory/libs-release-local/org/acme/settings.xml"
