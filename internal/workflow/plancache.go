package workflow

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"time"

	"github.com/sluicehq/sluice/internal/cache"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/policy"
)

// Plan cache bounds. Agents tend to send the same workflow again and again with
// other input (RESOLUTIONS: /input paths exist so a stored workflow can be
// reused), and validating plus compiling a document costs more than running a
// short one, so a valid document's compiled plan is kept for a while.
const (
	planCacheTTL           = 10 * time.Minute
	planCacheMaxEntries    = 4096
	planCacheMaxPerAccount = 256
	// planCacheMaxDocBytes keeps large documents out: a plan holds its
	// operations' configs, and a cache of big documents would hold a lot of
	// memory for a saving that is small next to running them.
	planCacheMaxDocBytes = 64 << 10
)

// planCache holds compiled plans per account. Its key covers the document's
// bytes, the account's grants and its workflow limits, so a permission change can never run a plan
// that was checked against the old grants.
type planCache struct {
	c *cache.Cache
}

func newPlanCache(clk clock.Clock) *planCache {
	return &planCache{c: cache.New(cache.Config{MaxEntries: planCacheMaxEntries, MaxPerAccount: planCacheMaxPerAccount, Clock: clk})}
}

// key is the cache key of doc for a; "" when doc is not to be cached.
func (pc *planCache) key(doc []byte, a Account) string {
	if pc == nil || len(doc) > planCacheMaxDocBytes {
		return ""
	}
	h := sha256.New()
	h.Write(doc)
	writePermissions(h, a.Permissions)
	var l [16]byte
	binary.LittleEndian.PutUint64(l[:8], uint64(a.Limits.MaxOperations))
	binary.LittleEndian.PutUint64(l[8:], uint64(a.Limits.MaxLoopIterations))
	h.Write(l[:])
	return hex.EncodeToString(h.Sum(nil))
}

func (pc *planCache) get(account, key string) (*Compiled, bool) {
	if key == "" {
		return nil, false
	}
	v, ok := pc.c.Get(account, key)
	if !ok {
		return nil, false
	}
	return v.(*Compiled), true
}

func (pc *planCache) put(account, key string, c *Compiled) {
	if key != "" {
		pc.c.Put(account, key, "", c, planCacheTTL)
	}
}

// writePermissions feeds every grant into h, each list framed by its name and
// each value by its length, so that no two different grants hash alike. It
// builds the bytes in one buffer: it runs on every execution.
func writePermissions(h hash.Hash, p policy.Permissions) {
	var scratch [512]byte
	b := scratch[:0]
	appendLen := func(b []byte, l int) []byte {
		return binary.LittleEndian.AppendUint64(b, uint64(l))
	}
	for _, l := range [...]struct {
		name string
		vals []string
	}{
		{"operations", p.Operations}, {"hosts", p.Hosts}, {"apis", p.APIs},
		{"credentials", p.Credentials}, {"agents", p.Agents}, {"mcp_servers", p.MCPServers},
		{"capabilities", p.Capabilities}, {"knowledge_bases", p.KnowledgeBases},
		{"capability_level", []string{p.CapabilityLevel}},
	} {
		b = append(appendLen(b, len(l.name)), l.name...)
		b = appendLen(b, len(l.vals))
		for _, v := range l.vals {
			b = append(appendLen(b, len(v)), v...)
		}
	}
	h.Write(b)
}
