// Package secret keeps talon's own secrets — the tokens and keys it reads
// from its environment — out of reach of the processes it starts.
//
// [Protect] runs once at start, before any tool runs. It copies the
// variables that hold secrets into this package, removes them from the
// process environment (so no child inherits them, whatever environment
// its spawner forgot to set), overwrites them in the environment block the
// kernel shows as /proc/<pid>/environ, and on Linux makes the process
// non-dumpable, so processes of the same user without CAP_SYS_PTRACE cannot
// read its environment, memory or descriptors, nor attach to it.
//
//	if err := secret.Protect(secret.Referenced(cfg)); err != nil {
//		log.Warn().Err(err).Msg("secrets only partly protected")
//	}
//	token := secret.Getenv("GITHUB_TOKEN") // still readable by talon
//
// Everything in talon that reads a variable which may hold a secret reads
// it through [Lookup] or [Getenv], which see the copies. The copies are
// taken once: a rotated token needs a restart.
//
// # Notes
//
// The process environment is one per process, so the copies are too: this
// package holds process-wide state, like package os. Which names count as
// secrets is [IsSecretName]'s list plus the names given to [Protect].
//
// Outside Linux, Protect removes the variables from the process
// environment only; the initial block and the dump flag are Linux's.
package secret
