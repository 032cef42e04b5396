curl "https://ECHO/maps/api/geocode/json?address=1600+Amphitheatre+Parkway,+Mountain+View,+CA&key=AIzaFAKEgeocodekey000"
