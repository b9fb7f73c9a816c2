// Package secret keeps talon's own secrets — the tokens and keys it reads
// from its environment — out of reach of the processes it starts.
//
// [Protect] runs at start, before any tool runs. It copies the variables
// that hold secrets into this package, removes them from the process
// environment (so no child inherits them, whatever environment its
// spawner forgot to set) and overwrites them in the environment block the
// kernel shows as /proc/<pid>/environ. [Seal] then makes the process
// non-dumpable on Linux, so processes of the same user without
// CAP_SYS_PTRACE cannot read its environment, memory or descriptors, nor
// attach to it — unless the process starts children in user namespaces
// of their own, which a non-dumpable process that is not root cannot.
//
//	if err := secret.Protect(secret.Referenced(cfg)); err != nil {
//		log.Warn().Err(err).Msg("secrets only partly protected")
//	}
//	if err := secret.Seal(); err != nil {
//		log.Warn().Err(err).Msg("talon stays dumpable")
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
// environment only, and Seal does nothing; the initial block and the dump
// flag are Linux's.
package secret
