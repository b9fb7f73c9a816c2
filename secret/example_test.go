package secret_test

import (
	"fmt"

	"github.com/talonhq/talon/secret"
)

func ExampleIsSecretName() {
	for _, n := range []string{"GITHUB_TOKEN", "OPENAI_API_KEY", "STRIPE_KEY", "HOME", "KEYBOARD"} {
		fmt.Println(n, secret.IsSecretName(n))
	}
	// Output:
	// GITHUB_TOKEN true
	// OPENAI_API_KEY true
	// STRIPE_KEY true
	// HOME false
	// KEYBOARD false
}

func ExampleReferenced() {
	type server struct{ Headers map[string]string }
	cfg := struct {
		Token   string
		Servers []server
	}{
		Token:   "${GITHUB_TOKEN}",
		Servers: []server{{Headers: map[string]string{"Authorization": "Bearer ${SEARCH_KEY}"}}},
	}
	fmt.Println(secret.Referenced(cfg))
	// Output: [GITHUB_TOKEN SEARCH_KEY]
}
