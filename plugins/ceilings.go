package plugins

import (
	"fmt"
	"strings"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/plugins/manifest"
)

// ceilings are the operator's [plugins] ceilings: the most any plugin's
// [limits] may ask for.
type ceilings struct {
	memoryMB, timeoutMS, instances, outputBytes int
}

func ceilingsOf(cfg *config.Config) ceilings {
	p := cfg.Plugins
	return ceilings{
		memoryMB:    p.MaxMemoryMBValue(),
		timeoutMS:   p.MaxTimeoutMSValue(),
		instances:   p.MaxInstancesValue(),
		outputBytes: p.MaxOutputBytesValue(),
	}
}

// ceilingError lists every limit of one manifest over a ceiling.
type ceilingError struct{ problems []string }

func (e *ceilingError) Error() string { return strings.Join(e.problems, "; ") }

func (e *ceilingError) Is(target error) bool { return target == ErrOverCeiling }

// check returns a *ceilingError (wrapping [ErrOverCeiling]) naming each
// limit of m over a ceiling, or nil. A subprocess plugin's memory is left
// to the sandbox's limits, so only its timeouts, instances and output are
// checked.
// CheckCeilings reports every limit m asks for beyond the [plugins]
// ceilings of cfg, naming the number and the setting to raise: the check
// install, load, verify and inspect make.
func CheckCeilings(cfg *config.Config, m *manifest.Manifest) error { return ceilingsOf(cfg).check(m) }

func (c ceilings) check(m *manifest.Manifest) error {
	l := m.Limits
	var problems []string
	over := func(asked int, what, limit, ceiling string, max int) {
		if asked > max {
			problems = append(problems, fmt.Sprintf("plugin %q asks for %s (limits.%s); [plugins] %s is %d: raise it in talon.toml if you trust this plugin",
				m.Name, fmt.Sprintf(what, asked), limit, ceiling, max))
		}
	}
	if m.Kind != manifest.KindProcess {
		over(l.MaxMemoryMB, "%d MiB of memory", "max_memory_mb", "max_memory_mb", c.memoryMB)
	}
	over(l.TimeoutMS, "a %d ms timeout", "timeout_ms", "max_timeout_ms", c.timeoutMS)
	if m.Kind == manifest.KindProcess {
		over(l.StartTimeoutMS, "a %d ms start timeout", "start_timeout_ms", "max_timeout_ms", c.timeoutMS)
	}
	over(l.MaxInstances, "%d instances", "max_instances", "max_instances", c.instances)
	over(l.MaxOutputBytes, "%d bytes of output", "max_output_bytes", "max_output_bytes", c.outputBytes)
	if len(problems) == 0 {
		return nil
	}
	return &ceilingError{problems: problems}
}

// fill returns l with every limit it leaves out set to its default,
// lowered to the ceiling, so that a host never runs a plugin past them.
func (c ceilings) fill(l manifest.Limits) manifest.Limits {
	orCapped := func(v, def, ceiling int) int {
		if v > 0 {
			return v
		}
		return min(def, ceiling)
	}
	l.MaxMemoryMB = orCapped(l.MaxMemoryMB, manifest.DefaultMaxMemoryMB, c.memoryMB)
	l.TimeoutMS = orCapped(l.TimeoutMS, int(manifest.DefaultTimeout.Milliseconds()), c.timeoutMS)
	l.StartTimeoutMS = orCapped(l.StartTimeoutMS, int(manifest.DefaultStartTimeout.Milliseconds()), c.timeoutMS)
	l.MaxInstances = orCapped(l.MaxInstances, manifest.DefaultMaxInstances, c.instances)
	l.MaxOutputBytes = orCapped(l.MaxOutputBytes, manifest.DefaultMaxOutputBytes, c.outputBytes)
	return l
}
