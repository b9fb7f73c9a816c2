package netguard_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"

	"github.com/talonhq/talon/netguard"
)

func ExampleCheckAddr() {
	for _, s := range []string{"93.184.216.34", "169.254.169.254", "::ffff:10.1.2.3", "64:ff9b::7f00:1"} {
		fmt.Println(netguard.CheckAddr(netip.MustParseAddr(s)))
	}
	// Output:
	// <nil>
	// address refused: 169.254.169.254 is the cloud metadata address
	// address refused: ::ffff:10.1.2.3 is an IPv4-mapped form of 10.1.2.3, a private address (RFC 1918)
	// address refused: 64:ff9b::7f00:1 is a NAT64 form of 127.0.0.1, a loopback address
}

func ExampleGuard_CheckURL() {
	g, err := netguard.New(netguard.Options{
		AllowedHosts: []string{"*.example.com"},
		BlockedHosts: []string{"admin.example.com"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range []string{"https://api.example.com/v1", "https://example.com/", "https://admin.example.com/", "file:///etc/passwd"} {
		u, _ := url.Parse(s)
		fmt.Println(g.CheckURL(u))
	}
	// Output:
	// <nil>
	// host not allowed: example.com is not among the allowed hosts
	// host blocked: admin.example.com matches the blocked hosts
	// url scheme not allowed: scheme "file" is not http or https
}

func ExampleGuard_Do() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "hello from the intranet")
	}))
	defer srv.Close()

	// By default a loopback server is out of reach.
	g, _ := netguard.New(netguard.Options{})
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL, nil)
	_, err := g.Do(req, 0)
	fmt.Println(errors.Is(err, netguard.ErrAddressRefused))

	// The operator allows it explicitly.
	g, _ = netguard.New(netguard.Options{AllowPrivate: []string{"127.0.0.1"}})
	defer g.CloseIdleConnections()
	resp, err := g.Do(req, 5)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, string(resp.Body), resp.Truncated)
	// Output:
	// true
	// 200 hello true
}

func ExampleRedactor() {
	r := netguard.NewRedactor(netguard.Secret{Name: "API_TOKEN", Value: "s3cr3t-t0ken-value"})
	fmt.Println(r.String("you sent s3cr3t-t0ken-value"))
	fmt.Println(r.String("you sent czNjcjN0LXQwa2VuLXZhbHVl (base64)"))
	fmt.Println(r.String("you sent 73336372337420... no, that is not it"))
	// Output:
	// you sent [secret API_TOKEN]
	// you sent [secret API_TOKEN] (base64)
	// you sent 73336372337420... no, that is not it
}
