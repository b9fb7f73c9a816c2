### Descriptions of the sqlite-query example plugin's tools.

## sqlite_query

tool-sqlite-query = Run one read-only SQL query (such as SELECT) against the SQLite database the operator configured for this plugin, and return the rows as tab-separated text with a header line. Statements that would change the database fail. Call sqlite_schema first to learn the tables.
tool-sqlite-query-param-sql = One SQL statement that only reads data, for example SELECT name FROM users WHERE active = 1.
tool-sqlite-query-param-max-rows = Most rows to return, from 1 to 1000. Defaults to 100; the result says when more rows were left out.

## sqlite_schema

tool-sqlite-schema = List the tables and views of the configured SQLite database, each with the SQL statement that created it.
