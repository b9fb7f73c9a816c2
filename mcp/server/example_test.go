package server_test

import (
	"context"
	"fmt"
	"io"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/mcp/server"
	"github.com/talonhq/talon/runtime"
)

// Serve a runtime over a pair of pipes and call it with the official
// client, the way an editor talks to `talon serve --stdio`.
func ExampleServer_ServeStdio() {
	ws, _ := os.MkdirTemp("", "ws")
	defer os.RemoveAll(ws)
	approver := &server.Approver{Queue: approval.NewQueue(approval.QueueOptions{})}
	rt, err := runtime.New(runtime.Options{Workspace: ws, DataDir: ws, Approver: approver})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv, err := server.New(server.Options{Runtime: rt})
	if err != nil {
		fmt.Println(err)
		return
	}
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(ctx, toServer, fromServer) }()

	client := sdk.NewClient(&sdk.Implementation{Name: "example", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "2 + 3 * 4"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*sdk.TextContent).Text)

	_ = cs.Close()
	stop()
	<-done
	_ = toServer.Close()
	_ = toClient.Close()
	// Output: 14
}

func ExampleCheckListen() {
	fmt.Println(server.CheckListen("127.0.0.1:7357", false, ""))
	fmt.Println(server.CheckListen("0.0.0.0:7357", true, ""))
	fmt.Println(server.CheckListen("0.0.0.0:7357", true, "a-long-random-token"))
	// Output:
	// <nil>
	// refusing to listen beyond loopback without a bearer token on 0.0.0.0:7357 (0.0.0.0): anyone who can reach it could call tools; set [serve] token or $TALON_SERVE_TOKEN, or listen on 127.0.0.1
	// <nil>
}
