package gateway

import (
	"testing"

	"github.com/sluicehq/sluice/internal/console"
)

// The console calls gateway methods by name: each must be an entry of the
// method table, so that a renamed method fails here, not in a browser.
func TestConsoleCallsOnlyTableMethods(t *testing.T) {
	if len(console.Methods) == 0 {
		t.Fatal("the console lists no methods")
	}
	for _, name := range console.Methods {
		if _, ok := methodByName(name); !ok {
			t.Errorf("the console calls %q, which is not in methodTable", name)
		}
	}
}
