//go:build !unix

package server

import "io"

// readerGone never fires where the reader's end cannot be watched: the
// session then ends only when every request read has been answered.
func readerGone(io.Writer, <-chan struct{}) <-chan struct{} { return make(chan struct{}) }
