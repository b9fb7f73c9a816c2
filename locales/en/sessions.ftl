## sessions_list

tool-sessions-list = List the sessions this runtime has recorded calls for, most recently active first, with how many calls each made and how many did not succeed. Over MCP only your own session is shown.

## sessions_history

tool-sessions-history = Show the calls of a session, oldest first: tool, risk tier, policy decision, outcome, duration and receipt id. Use it to check what already ran before repeating an action. Over MCP only your own session can be read.
tool-sessions-history-param-session = Session id to read. Defaults to the current session.
tool-sessions-history-param-limit = How many of the most recent calls to show, 1 to 500. Defaults to 50.
