package keyguard_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store/keyguard"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/vault"
)

var ctx = context.Background()

func pepper(t *testing.T, b byte) policy.Pepper {
	t.Helper()
	p, err := policy.NewPepper(bytes.Repeat([]byte{b}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ring(t *testing.T, current byte, previous ...byte) *vault.Keyring {
	t.Helper()
	key := func(b byte) vault.MasterKey {
		k, err := vault.NewMasterKey(bytes.Repeat([]byte{b}, vault.MasterKeyLen))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	var prev []vault.MasterKey
	for _, b := range previous {
		prev = append(prev, key(b))
	}
	r, err := vault.NewKeyring(key(current), prev...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCheck(t *testing.T) {
	st, err := sqlite.Open(ctx, sqlite.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// The first server claims; a second with the same keys starts.
	for range 2 {
		if err := keyguard.Check(ctx, st, ring(t, 1), pepper(t, 'a'), nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Another pepper: refused, naming what to copy and never a key.
	err = keyguard.Check(ctx, st, ring(t, 1), pepper(t, 'b'), nil, nil)
	if fault.KindOf(err) != fault.Invalid || !strings.Contains(fault.From(err).Message, "pepper") ||
		!strings.Contains(strings.Join(fault.From(err).Suggestions, " "), "pepper.key") {
		t.Fatalf("other pepper: %v", err)
	}
	// Another master key: refused.
	err = keyguard.Check(ctx, st, ring(t, 2), pepper(t, 'a'), nil, nil)
	if fault.KindOf(err) != fault.Invalid || !strings.Contains(fault.From(err).Message, "master key") {
		t.Fatalf("other master key: %v", err)
	}
	// A rotation: the new key current, the old one previous, moves the claim;
	// a server that has only the old key is refused from then on.
	if err := keyguard.Check(ctx, st, ring(t, 2, 1), pepper(t, 'a'), nil, nil); err != nil {
		t.Fatalf("rotation: %v", err)
	}
	if err := keyguard.Check(ctx, st, ring(t, 1), pepper(t, 'a'), nil, nil); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("old key after the rotation: %v", err)
	}
	if err := keyguard.Check(ctx, st, ring(t, 2), pepper(t, 'a'), nil, nil); err != nil {
		t.Fatalf("new key alone: %v", err)
	}
}
