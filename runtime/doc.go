// Package runtime builds the tool catalog and runs calls through the
// pipeline every call follows, whatever its source or channel:
//
//	lookup -> arguments -> schema -> assessment -> policy -> approval
//	       -> execute -> result -> receipt
//
// A [Runtime] is safe for concurrent use. Its catalog is an immutable
// snapshot; [Runtime.Reload] swaps in a new one while calls in flight
// finish on the old one.
//
//	rt, err := runtime.New(runtime.Options{Config: cfg, Workspace: dir})
//	res, err := rt.Call(ctx, tool.Call{Name: "file_read", Args: json.RawMessage(`{"path":"README.md"}`)})
package runtime
