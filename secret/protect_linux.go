package secret

import (
	"bytes"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/talonhq/talon/internal/procstat"
)

// hide overwrites the taken variables in the initial environment block.
func hide(taken func(string) bool) error {
	if err := scrubBlock(taken); err != nil {
		return fmt.Errorf("overwrite secrets in /proc/self/environ: %w", err)
	}
	return nil
}

// seal makes the process non-dumpable.
func seal() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("make talon non-dumpable: %w", err)
	}
	return nil
}

// self is this process's memory file, opened by the first scrub and kept:
// once the process is non-dumpable its /proc files belong to root, and a
// process that is not root could not open it again. The permission check
// is made at open, so the open file keeps working. The caller holds
// state.mu.
var self *os.File

// scrubBlock NUL-fills, in place, every NAME=value entry of the block
// between env_start and env_end (what /proc/<pid>/environ shows) whose name
// taken reports. The other entries keep their bytes and their addresses,
// so C code holding pointers into the block still finds them.
func scrubBlock(taken func(string) bool) error {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return err
	}
	st, err := procstat.Parse(data)
	if err != nil {
		return err
	}
	start, err := st.Int(procstat.EnvStart)
	if err != nil {
		return err
	}
	end, err := st.Int(procstat.EnvEnd)
	if err != nil {
		return err
	}
	if end <= start || end-start > 1<<30 {
		return fmt.Errorf("%w: environment block [%#x, %#x)", procstat.ErrFormat, start, end)
	}
	if self == nil {
		mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
		if err != nil {
			return err
		}
		self = mem
	}
	block := make([]byte, end-start)
	if _, err := self.ReadAt(block, int64(start)); err != nil { //nolint:gosec // the block lies in user space, below 2^63
		return err
	}
	if !scrub(block, taken) {
		return nil
	}
	_, err = self.WriteAt(block, int64(start)) //nolint:gosec // as above
	return err
}

// scrub NUL-fills the entries of block whose name taken reports, and says
// whether it changed anything.
func scrub(block []byte, taken func(string) bool) bool {
	changed := false
	for i := 0; i < len(block); {
		n := bytes.IndexByte(block[i:], 0)
		if n < 0 {
			n = len(block) - i
		}
		entry := block[i : i+n]
		if name, _, ok := bytes.Cut(entry, []byte("=")); ok && len(name) > 0 && taken(string(name)) {
			clear(entry)
			changed = true
		}
		i += n + 1
	}
	return changed
}
