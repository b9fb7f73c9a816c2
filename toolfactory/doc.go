// Package toolfactory is the registry of compiled-in tools.
//
// Each adapter package registers a [Factory] from init; the file
// adapters/standard decides, through build tags, which adapter packages a
// binary contains. Nothing is constructed at registration: the runtime
// selects names first and calls [Factory.New] only for the selected ones, so
// an unselected tool contributes no schema, no text and runs no code.
//
//	func init() {
//		toolfactory.Register(toolfactory.Factory{
//			Name: "file_read",
//			Tier: tool.Low,
//			New:  func(env toolfactory.Env) (tool.Tool, error) { return newReadFile(env) },
//		})
//	}
//
// [Known] lists every built-in name the project has, compiled in or not, with
// the build feature that includes it, so an operator selecting a tool this
// binary lacks is told how to get it.
package toolfactory
