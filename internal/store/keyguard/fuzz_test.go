package keyguard_test

import (
	"context"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store/keyguard"
)

// stored is store.Settings holding fixed values, whatever is claimed.
type stored map[string][]byte

func (s stored) ClaimSetting(_ context.Context, name string, value []byte) ([]byte, error) {
	if v, ok := s[name]; ok {
		return v, nil
	}
	return value, nil
}

func (s stored) SwapSetting(context.Context, string, []byte, []byte) error { return nil }

func (s stored) GetSetting(_ context.Context, name string) ([]byte, bool, error) {
	v, ok := s[name]
	return v, ok, nil
}

// Whatever the database holds as the pepper's probe or the master key's id,
// Check answers with an error or nil, never a panic, and never accepts a
// probe it did not verify.
func FuzzCheckStoredProbe(f *testing.F) {
	f.Add([]byte(`{"key":"slk_x","id":"x","hash":"AAAA"}`), []byte("0011223344556677"))
	f.Add([]byte(`not json`), []byte(""))
	f.Add([]byte(`{}`), []byte("\x00"))
	f.Fuzz(func(t *testing.T, probe, keyID []byte) {
		err := keyguard.Check(context.Background(), stored{keyguard.PepperSetting: probe, keyguard.MasterKeySetting: keyID},
			ring(t, 1), pepper(t, 'a'), nil, nil)
		if err == nil {
			t.Fatalf("accepted a foreign probe %q", probe)
		}
		if _, ok := fault.As(err); !ok {
			t.Fatalf("%T %v is not a fault", err, err)
		}
	})
}
