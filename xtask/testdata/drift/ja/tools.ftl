## weather

tool-weather = 現在の天気を返します。
tool-weather-param-city = 都市名。
tool-weather-param-days = 日数。
