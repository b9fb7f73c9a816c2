// Package process is the hashicorp/go-plugin host for subprocess tool
// plugins.
package process
