package cron

import (
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func init() {
	for _, f := range []struct {
		name string
		tier tool.Tier
	}{
		{AddName, tool.Medium}, {ListName, tool.Low}, {RemoveName, tool.Medium},
		{RunName, tool.Medium}, {RunsName, tool.Low},
	} {
		toolfactory.Register(toolfactory.Factory{
			Name: f.name,
			Tier: f.tier,
			New: func(env toolfactory.Env) (tool.Tool, error) {
				return New(f.name, Options{Store: sharedStore(env.DataDir), Caller: env.Caller, Logger: env.Logger})
			},
		})
	}
}
