curl --request GET \
  --url 'https://ECHO/rest/api/3/search?jql=project%20%3D%20HSP%20AND%20status%20%3D%20%22In%20Progress%22&maxResults=10' \
  --user 'email@example.com:FAKEJIRAAPITOKEN000' \
  --header 'Accept: application/json'
