## tool_search

tool-tool-search = Find tools that are not shown in full yet and load their definitions. Search by keywords, or pass select: followed by comma-separated names (select:cron_add,cron_list) to load exact tools. Loaded tools stay available for the rest of the session.
tool-tool-search-param-query = Keywords describing what you need, or select:NAME1,NAME2 for exact tools.
tool-tool-search-param-limit = Most definitions to return, 1 to 20. Defaults to 5.
tool-tool-search-text-loadable = Tools you can load:
