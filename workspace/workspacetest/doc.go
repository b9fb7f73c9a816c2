// Package workspacetest helps tests attack the workspace the way a local
// process can: [Swap] exchanges a directory and a symbolic link to
// outside the workspace, over and over, in a separate process, while the
// test drives the file tools.
//
// The swapping process is the test binary itself, re-executed; a package
// that uses Swap runs its tests through [Main]:
//
//	func TestMain(m *testing.M) { workspacetest.Main(m) }
//
//	func TestRace(t *testing.T) {
//		workspacetest.Swap(t, filepath.Join(ws, "d"), filepath.Join(ws, "s"))
//		// call tools on d/... and check nothing outside was touched
//	}
package workspacetest
