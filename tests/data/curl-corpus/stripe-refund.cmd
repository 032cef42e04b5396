curl https://ECHO/v1/refunds ^
  -u sk_test_FAKE4eC39HqLyjWDarjtT1zdp7dc: ^
  -d charge=ch_FAKE3MmlLrLt2eZv ^
  -d amount=1000
