// Package dirwatch tells a cache whether directories may have changed
// since it last looked, without a stat per look: it watches them for
// entries that appear, disappear, are replaced or change mode (inotify
// on Linux), and counts what it saw. A cache remembers the count when it
// fills an entry and trusts the entry while the count has not moved.
//
// The smallest use:
//
//	ok := dirwatch.Add("/usr/bin", "/usr/local/bin") // before looking
//	gen, _ := dirwatch.Generation()
//	... look, remember gen ...
//	if now, ok := dirwatch.Generation(); ok && now == gen { /* still true */ }
//
// # Notes
//
// Generation reads the events already queued by the kernel, so a change
// made before the call returns is always counted: a rename that finished
// before Generation was called moves the count. A directory that does
// not exist is watched through its nearest existing parent, which tells
// when it is made. Where no watch can be had (another system, no
// inotify instances left, a watch limit reached), Add and Generation
// report false and the cache must look as it did before. Changes made
// over a network file system by another machine are not seen.
package dirwatch
