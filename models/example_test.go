package models_test

import (
	"context"
	"fmt"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/models"
	"github.com/talonhq/talon/models/modeltest"
)

func ExampleNew() {
	srv := modeltest.New(modeltest.OpenAI)
	defer srv.Close()
	srv.Script("qwen2.5:7b", modeltest.Turn{Text: "Hello."})

	m, err := models.New("local", config.Model{Provider: "openai", BaseURL: srv.URL, Model: "qwen2.5:7b"}, models.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Complete(context.Background(), models.Request{
		Messages: []models.Message{{Role: models.RoleUser, Text: "Say hello."}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output: Hello. 10 5
}
