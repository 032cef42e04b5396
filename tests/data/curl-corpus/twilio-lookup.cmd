curl -X GET "https://ECHO/v2/PhoneNumbers/+14159929960?Fields=line_type_intelligence" ^
  -u ACFAKE00000000000000000000000000:fake_auth_token_0000
