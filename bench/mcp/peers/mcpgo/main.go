// Command mcpgo is the smallest MCP server mark3labs/mcp-go makes: one echo
// tool that returns its arguments as text, over stdio (-stdio) or
// streamable HTTP (-listen). It is the yardstick of talon serve's
// throughput, CPU per call and memory in the MCP benchmarks.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	stdio := flag.Bool("stdio", false, "serve one session over stdin and stdout")
	listen := flag.String("listen", "127.0.0.1:0", "address of the streamable HTTP endpoint")
	flag.Parse()
	s := server.NewMCPServer("mcpgo-peer", "v0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Return the arguments unchanged."), mcp.WithString("text")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, err := json.Marshal(req.GetRawArguments())
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(string(b)), nil
		})
	if *stdio {
		if err := server.ServeStdio(s); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "url: http://%s/mcp\n", ln.Addr())
	if err := http.Serve(ln, server.NewStreamableHTTPServer(s)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
