// Package catalog decides which compiled-in tools a catalog contains and
// holds the immutable snapshot the runtime dispatches from.
//
// Selection follows `[tools] optional` (see [Select]); it happens before any
// constructor runs, so an unselected tool contributes nothing. A [Catalog] is
// built once and shared by every goroutine; a reload builds a new one.
//
//	sel, err := catalog.Select(catalog.SelectOptions{Optional: cfg.Tools.Optional, Surface: catalog.SurfaceChat})
package catalog
