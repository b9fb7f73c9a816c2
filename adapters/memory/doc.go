// Package memory provides persistent memory for agents: the memory_store,
// memory_recall and memory_forget tools over a [Store], an SQLite database
// (<data dir>/memory.db, pure Go) with a full-text index.
//
// Each risk profile has its own namespace, named after the profile: the
// tools implement [tool.Profiled], and a tool built without a profile uses
// "default". Memories of one profile are invisible to every other.
//
//	store := memory.NewStore(filepath.Join(dataDir, memory.FileName), memory.StoreOptions{})
//	defer store.Close()
//	remember := memory.NewStoreTool(store, memory.ToolOptions{})
//	res, err := remember.Execute(ctx, json.RawMessage(`{"key": "user-editor", "content": "The user edits Go in Neovim."}`))
//
// The database opens on first use, never when a tool is built, so listing
// the catalog never touches the data directory. The three tools are for the
// chat surface only; coding clients never get them.
//
// # Tools
//
// memory_store (medium) remembers content (up to 64 KiB) under a key,
// generated when absent; storing an existing key replaces its memory. A
// category and tags are optional; tags are searched like the content.
//
// memory_recall (low) finds memories by keywords (mode keyword, ranked by
// bm25, the default when a query is given) or lists the newest (mode
// recent, the default otherwise), filtered by category and by when they
// were last stored (since, until: RFC 3339 or a UTC date). It returns one
// line per memory with the content cut at [ExcerptRunes] characters; key
// reads one memory in full.
//
// memory_forget (medium) deletes one memory by key. It forgets one key per
// call on purpose: there is no bulk or per-category deletion, so every
// deletion an approver allows names exactly the memory it removes.
//
// # Search
//
// Queries are words, never full-text syntax: quotes, operators (AND, OR,
// NOT, NEAR), prefixes (*), column filters and parentheses in a query are
// read as the words they contain. A memory matches when it holds any of
// the words; stemming makes "deploying" find "deploys". Text in Chinese
// characters, kana and hangul is indexed character by character, so a
// Japanese word is found inside a sentence. Scoring is bounded by
// [RankBudget]; see [Store.Recall].
//
// # Concurrency
//
// A Store is safe for concurrent use, and several talon processes may share
// the file: the database runs in WAL mode (readers never wait for a
// writer), writes take the lock up front and wait up to
// [StoreOptions.BusyTimeout] for another process's write, and the schema is
// migrated once, in one transaction, through PRAGMA user_version. Within a
// process, every tool shares one Store per file.
package memory
