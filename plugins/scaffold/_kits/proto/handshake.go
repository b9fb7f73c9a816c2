package proto

import (
	plugin "github.com/hashicorp/go-plugin"
)

// Version is the protocol version this package describes. talon and the
// SDK negotiate it through go-plugin's versioned plugin sets; a plugin that
// speaks only other versions is refused at the handshake.
const Version = 1

// PluginName is the name the Tools service is registered under in the
// go-plugin plugin set.
const PluginName = "tools"

// Handshake is the go-plugin handshake talon and its plugins share. The
// cookie is not a secret: it only tells a binary run by hand that it is a
// plugin, so it can say so instead of waiting on a connection. Integrity
// comes from the manifest's sha256.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  Version,
	MagicCookieKey:   "TALON_PLUGIN_COOKIE",
	MagicCookieValue: "b5c1a0e4-talon-tools-plugin",
}

// EnvWatchdog is set by the host to the host's watchdog settings: "stdin"
// means the plugin's standard input is a pipe the host holds open, so its
// end means the host is gone. The SDK exits when that happens.
const EnvWatchdog = "TALON_PLUGIN_WATCHDOG"

// EnvPluginName carries the plugin's name from its manifest.
const EnvPluginName = "TALON_PLUGIN_NAME"

// EnvWorkspace carries the absolute workspace directory.
const EnvWorkspace = "TALON_WORKSPACE"
