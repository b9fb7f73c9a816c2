package wasm

import "github.com/talonhq/talon/plugins"

var _ plugins.Pooled = (*plugin)(nil)

// PoolSize implements plugins.Pooled: the instances kept warm and those
// running a call.
func (p *plugin) PoolSize() (idle, inUse int) { return p.pool.Stats() }
