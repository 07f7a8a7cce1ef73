package egress_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sluicehq/sluice/internal/egress"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		ip     string
		public bool
	}{
		{"8.8.8.8", true},
		{"1.1.1.1", true},
		{"2606:4700:4700::1111", true},
		{"127.0.0.1", false},
		{"127.1.2.3", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"172.32.0.1", true},
		{"192.168.1.1", false},
		{"169.254.169.254", false}, // cloud metadata
		{"100.64.0.1", false},
		{"100.127.255.255", false},
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"224.0.0.1", false},
		{"255.255.255.255", false},
		{"198.18.0.1", false},
		{"::1", false},
		{"::", false},
		{"fe80::1", false},
		{"fc00::1", false},
		{"fd12:3456::1", false},
		{"ff02::1", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:8.8.8.8", true},
		{"64:ff9b::7f00:1", false}, // NAT64 of 127.0.0.1
		{"64:ff9b::808:808", true}, // NAT64 of 8.8.8.8
		{"2002:7f00:1::", false},   // 6to4 of 127.0.0.1
		{"2001:db8::1", false},
	}
	for _, c := range cases {
		why := egress.Classify(netip.MustParseAddr(c.ip))
		if (why == "") != c.public {
			t.Errorf("Classify(%s) = %q, want public=%v", c.ip, why, c.public)
		}
	}
}

func TestPolicyValidate(t *testing.T) {
	good := []string{"10.0.0.0/8", "127.0.0.1", "::1", "127.0.0.1:9000", "[::1]:8080", "localhost:9000", "db.internal", "fd00::/8"}
	for _, e := range good {
		if err := (egress.Policy{AllowPrivate: []string{e}}).Validate(); err != nil {
			t.Errorf("%q: unexpected error %v", e, err)
		}
	}
	bad := []string{"", "10.0.0.0/33", "127.0.0.1:99999", "host:0", "bad host", "a..b", "http://x/"}
	for _, e := range bad {
		if err := (egress.Policy{AllowPrivate: []string{e}}).Validate(); err == nil {
			t.Errorf("%q: expected an error", e)
		}
	}
}

// server starts a test server on 127.0.0.1 and counts its requests.
func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if h != nil {
			h(w, r)
			return
		}
		io.WriteString(w, "ok")
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func get(c *http.Client, ctx context.Context, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

func TestDialTimeRule(t *testing.T) {
	s, hits := server(t, nil)
	u, _ := url.Parse(s.URL)
	port := u.Port()
	cases := []struct {
		name   string
		allow  []string
		target string
		ok     bool
	}{
		{"loopback refused by default", nil, s.URL, false},
		{"localhost name refused by default", nil, "http://localhost:" + port + "/", false},
		{"allowed by /32", []string{"127.0.0.1/32"}, s.URL, true},
		{"allowed by ip:port", []string{"127.0.0.1:" + port}, s.URL, true},
		{"ip:port on another port refuses", []string{"127.0.0.1:1"}, s.URL, false},
		{"allowed by bare address", []string{"127.0.0.1"}, s.URL, true},
		{"allowed by name:port", []string{"localhost:" + port}, "http://localhost:" + port + "/", true},
		{"other CIDR refuses", []string{"10.0.0.0/8"}, s.URL, false},
		{"invalid entries allow nothing", []string{"not a cidr/99"}, s.URL, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := hits.Load()
			client := egress.NewClient(egress.Policy{AllowPrivate: c.allow})
			err := get(client, context.Background(), c.target)
			if c.ok {
				if err != nil {
					t.Fatalf("expected success, got %v", err)
				}
				if hits.Load() != before+1 {
					t.Fatal("the server did not see the request")
				}
				return
			}
			d, ok := egress.IsDenied(err)
			if !ok {
				t.Fatalf("expected a DeniedError, got %v", err)
			}
			if !strings.Contains(d.Addr, "127.0.0.1") && !strings.Contains(d.Addr, "::1") {
				t.Fatalf("denial should name the address: %+v", d)
			}
			if hits.Load() != before {
				t.Fatal("a refused dial reached the server")
			}
		})
	}
}

func TestIPv6Loopback(t *testing.T) {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	}
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	s.Listener.Close()
	s.Listener = ln
	s.Start()
	defer s.Close()

	err = get(egress.NewClient(egress.Policy{}), context.Background(), s.URL)
	if d, ok := egress.IsDenied(err); !ok || !strings.Contains(d.Reason, "loopback") {
		t.Fatalf("expected loopback refusal, got %v", err)
	}
	if err := get(egress.NewClient(egress.Policy{AllowPrivate: []string{"::1/128"}}), context.Background(), s.URL); err != nil {
		t.Fatalf("allowlisted ::1 refused: %v", err)
	}
}

func TestRedirectsAreRechecked(t *testing.T) {
	forbidden, forbiddenHits := server(t, nil)
	fu, _ := url.Parse(forbidden.URL)
	allowed, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, forbidden.URL+"/secret?token=abc", http.StatusFound)
	})
	au, _ := url.Parse(allowed.URL)

	// Both are loopback; only the first is allowlisted by the server rule.
	client := egress.NewClient(egress.Policy{AllowPrivate: []string{au.Host}})
	err := get(client, context.Background(), allowed.URL)
	d, ok := egress.IsDenied(err)
	if !ok || d.Port != fu.Port() {
		t.Fatalf("redirect to a forbidden address: expected denial naming port %s, got %v", fu.Port(), err)
	}
	if strings.Contains(d.Error(), "token=abc") {
		t.Fatalf("denial leaks the query: %s", d.Error())
	}
	if forbiddenHits.Load() != 0 {
		t.Fatal("the forbidden server was reached")
	}

	// Both allowlisted by the server rule, but the account's grant names only one.
	client = egress.NewClient(egress.Policy{AllowPrivate: []string{"127.0.0.1/32"}})
	ctx := egress.WithHostCheck(context.Background(), func(host, port string) error {
		if net.JoinHostPort(host, port) == au.Host {
			return nil
		}
		return &egress.DeniedError{Host: host, Port: port, Reason: "host is not permitted"}
	})
	err = get(client, ctx, allowed.URL)
	if d, ok := egress.IsDenied(err); !ok || d.Reason != "host is not permitted" {
		t.Fatalf("expected the grant to refuse the redirect, got %v", err)
	}
	if forbiddenHits.Load() != 0 {
		t.Fatal("the forbidden server was reached")
	}
}

func TestRedirectLimit(t *testing.T) {
	var hops atomic.Int32
	s, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		hops.Add(1)
		http.Redirect(w, r, "/again", http.StatusFound)
	})
	err := get(egress.NewClient(egress.Policy{AllowPrivate: []string{"127.0.0.1/32"}}), context.Background(), s.URL)
	var re *egress.RedirectError
	if !errors.As(err, &re) || re.Max != 10 {
		t.Fatalf("expected RedirectError after 10, got %v", err)
	}
	// Like net/http's default: the 10th redirect response ends the chain.
	if hops.Load() != 10 {
		t.Fatalf("expected 10 requests, got %d", hops.Load())
	}
}

func TestHostCheckAtDial(t *testing.T) {
	s, hits := server(t, nil)
	client := egress.NewClient(egress.Policy{AllowPrivate: []string{"127.0.0.1/32"}})
	ctx := egress.WithHostCheck(context.Background(), func(host, port string) error {
		return &egress.DeniedError{Host: host, Port: port, Reason: "nope"}
	})
	if _, ok := egress.IsDenied(get(client, ctx, s.URL)); !ok {
		t.Fatal("the request's HostCheck must apply when dialling")
	}
	if hits.Load() != 0 {
		t.Fatal("server reached")
	}
}

func TestNoProxyFromEnvironment(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	t.Setenv("http_proxy", "http://127.0.0.1:1")
	if egress.NewTransport(egress.Policy{}).Proxy != nil {
		t.Fatal("the transport must not take a proxy from the environment")
	}
	c := egress.NewClient(egress.Policy{})
	if c.Timeout <= 0 || c.CheckRedirect == nil {
		t.Fatal("client must be bounded and check redirects")
	}
	// Under the tracing transport (internal/telemetry) is egress's own.
	tr := c.Transport.(interface{ Unwrap() http.RoundTripper }).Unwrap().(*http.Transport)
	if tr.TLSHandshakeTimeout <= 0 || tr.ResponseHeaderTimeout <= 0 {
		t.Fatal("transport must bound its waits")
	}
}

func TestSensitiveRedirects(t *testing.T) {
	var seenKey atomic.Value
	seenKey.Store("")
	other, otherHits := server(t, func(w http.ResponseWriter, r *http.Request) {
		seenKey.Store(r.Header.Get("X-Api-Key") + "|" + r.Header.Get("X-Plain"))
		io.WriteString(w, "ok")
	})
	front, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		code := http.StatusFound
		if r.URL.Path == "/307" {
			code = http.StatusTemporaryRedirect
		}
		http.Redirect(w, r, other.URL+"/landed", code)
	})
	client := egress.NewClient(egress.Policy{AllowPrivate: []string{"127.0.0.1/32"}})
	ctx := egress.WithSensitive(context.Background(), egress.Sensitive{Headers: []string{"X-Api-Key"}, Body: true})

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, front.URL+"/302", nil)
	req.Header.Set("X-Api-Key", "k-123")
	req.Header.Set("X-Plain", "p")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := seenKey.Load().(string); got != "|p" {
		t.Fatalf("the other origin saw %q; the credential header must be dropped, others kept", got)
	}

	before := otherHits.Load()
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, front.URL+"/307", strings.NewReader(`{"token":"k-123"}`))
	_, err = client.Do(req)
	if d, ok := egress.IsDenied(err); !ok || !strings.Contains(d.Reason, "body") {
		t.Fatalf("a 307 resending a secret body elsewhere must be refused, got %v", err)
	}
	if otherHits.Load() != before {
		t.Fatal("the body reached the other origin")
	}
}

func TestPolicyAllowsAsWritten(t *testing.T) {
	p := egress.Policy{AllowPrivate: []string{"10.0.0.0/8", "127.0.0.1:9000", "db.internal", "localhost:8080"}}
	cases := []struct {
		host, port string
		want       bool
	}{
		{"10.1.2.3", "443", true},
		{"127.0.0.1", "9000", true},
		{"127.0.0.1", "9001", false},
		{"db.internal", "5432", true},
		{"localhost", "8080", true},
		{"localhost", "80", false},
		{"192.168.1.1", "80", false},
		{"127.0.0.1", "notaport", false},
	}
	for _, c := range cases {
		if got := p.Allows(c.host, c.port); got != c.want {
			t.Errorf("Allows(%s, %s) = %v, want %v", c.host, c.port, got, c.want)
		}
	}
}

// RefusesLiteral: literal non-public addresses and localhost names are
// refused as written unless allowlisted; public addresses and other names
// are left to the dialer.
func TestRefusesLiteral(t *testing.T) {
	p := egress.Policy{AllowPrivate: []string{"127.0.0.1", "hooks.internal", "10.0.0.0/8", "localhost:8080"}}
	for _, c := range []struct {
		host, port string
		refused    bool
	}{
		{"127.0.0.1", "9000", false},
		{"127.0.0.2", "80", true},
		{"::1", "80", true},
		{"[::1]", "80", true},
		{"localhost", "80", true},
		{"localhost", "8080", false},
		{"api.localhost", "80", true},
		{"169.254.169.254", "80", true},
		{"10.1.2.3", "443", false},
		{"192.168.1.1", "443", true},
		{"hooks.internal", "443", false},
		{"example.com", "443", false},
		{"8.8.8.8", "443", false},
	} {
		if got := p.RefusesLiteral(c.host, c.port); got != c.refused {
			t.Errorf("RefusesLiteral(%s, %s) = %v, want %v", c.host, c.port, got, c.refused)
		}
	}
}
