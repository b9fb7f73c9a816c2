### Descriptions of the tools of the tools-external feature: web_search and weather.

## web_search

tool-web-search = Search the web for a query and return a short list of matching pages, each with its title, URL and a snippet. The search goes to the one provider the operator configured (SearXNG, Brave Search or AnySearch); if none is configured the call fails and says so. Read a result in full with web_fetch.
tool-web-search-param-query = What to search for, in plain words, as you would type it into a search engine.
tool-web-search-param-max-results = How many results to return, from 1 to 20. The operator's limit applies when this is larger or omitted.

## weather

tool-weather = Get the current weather and a daily forecast for a place: conditions, temperature, humidity, wind and precipitation. Name the place, or give its latitude and longitude.
tool-weather-param-location = Name of a city or place, such as "Osaka" or "Paris". Leave it out when you give latitude and longitude.
tool-weather-param-latitude = Latitude in decimal degrees, from -90 to 90. Give it together with longitude, instead of location.
tool-weather-param-longitude = Longitude in decimal degrees, from -180 to 180. Give it together with latitude, instead of location.
tool-weather-param-days = Number of days of forecast, from 1 to 16. Defaults to 3.
tool-weather-param-units = Unit system: "metric" (°C, km/h, mm) or "imperial" (°F, mph, inches). Defaults to the operator's setting.
