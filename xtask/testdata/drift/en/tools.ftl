## weather

tool-weather = Current weather for { $city }.
tool-weather-param-city = City name.
    .hint = For example { $example }.
tool-weather-param-units = metric or imperial.
