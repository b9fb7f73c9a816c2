### Descriptions of the hello example plugin's tools.

## greet

tool-greet = Greet someone by name.
tool-greet-param-name = Who to greet.

## fetch

tool-fetch = Fetch a URL on an allowed host and return its status and the start of its body.
tool-fetch-param-url = The http or https URL to fetch.
