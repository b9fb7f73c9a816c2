### Descriptions of the persistent memory tools: memory_store, memory_recall
### and memory_forget. Memories persist across sessions and belong to the
### caller's risk profile.

## memory_store

tool-memory-store = Remember a piece of information across conversations, such as a preference, a decision or a fact about the project. Storing under a key that already exists replaces that memory; without a key a new one is generated and returned. Store one self-contained fact per memory so it can be found and replaced later.
tool-memory-store-param-key = Short name for the memory without spaces, such as user-editor. Reuse a key to update what it holds; leave it out to get a new key.
tool-memory-store-param-content = The text to remember, written so that it makes sense on its own later. At most 64 KiB.
tool-memory-store-param-category = Optional label to group memories by, such as preferences or decisions; recalls can be limited to one category.
tool-memory-store-param-tags = Optional list of short tags; they are searched together with the content.

## memory_recall

tool-memory-recall = Look up what was remembered in earlier conversations. With a query, returns the memories that best match its keywords; without one, the most recent memories. Each memory comes on one line with its key, category and time, its text shortened if long; pass key to read one memory in full.
tool-memory-recall-param-query = Keywords to search for, such as editor preferences. Every word counts on its own and a memory matches when it contains any of them; search syntax such as quotes or operators is read as plain words.
tool-memory-recall-param-mode = keyword ranks matches by relevance and is the default when a query is given; recent lists the newest memories first, limited to those matching the query if one is given.
tool-memory-recall-param-category = Return only memories of this category.
tool-memory-recall-param-since = Return only memories stored at or after this time, in RFC 3339 (2024-05-01T09:30:00Z) or as a date (2024-05-01, in UTC).
tool-memory-recall-param-until = Return only memories stored at or before this time, in RFC 3339 or as a date; a date includes that whole day (UTC).
tool-memory-recall-param-limit = Maximum number of memories to return, from 1 to 100. Defaults to 10.
tool-memory-recall-param-key = Key of one memory to read in full. Use it alone, without the other parameters.

## memory_forget

tool-memory-forget = Delete one memory by its key, for example when it is wrong or no longer true. Only one memory is forgotten per call; there is deliberately no way to forget a whole category at once. Find keys with memory_recall. To correct a memory, store the new text under the same key instead.
tool-memory-forget-param-key = Key of the memory to forget, exactly as memory_store or memory_recall showed it.
