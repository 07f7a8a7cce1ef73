package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sluicehq/sluice/internal/config"
	"github.com/sluicehq/sluice/internal/gateway"
)

type configT = config.Config

func configDefaults(dir string) *config.Config {
	c := config.Defaults()
	c.DataDir = dir
	return &c
}

func openApp(c *config.Config) (*gateway.App, error) {
	return gateway.Open(context.Background(), c, gateway.Options{})
}

type httptestServer = httptest.Server

func newHTTPTest(h http.Handler) *httptest.Server { return httptest.NewServer(h) }

func decodeJSON(t testing.TB, r *http.Response, v any) {
	t.Helper()
	defer r.Body.Close()
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
