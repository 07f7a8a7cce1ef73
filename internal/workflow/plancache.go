package workflow

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"time"

	"github.com/sluicehq/sluice/internal/cache"
	"github.com/sluicehq/sluice/internal/clock"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/protocol/a2e"
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

// key is the cache key of doc for a, and the client's executionId when the
// key leaves it out; "" when doc is not to be cached.
//
// Clients reuse a document with new input and a new executionId (the same id
// with the same document is the same execution, RESOLUTIONS), so a key over
// the raw bytes would never hit. The key therefore covers the document with
// the executionId's value cut out, when that value is found in the
// beginExecution line (the last one) exactly once and is a valid id: the
// compiled plan does not depend on it, and any other difference in the
// bytes is a different key.
func (pc *planCache) key(doc []byte, a Account) (key, executionID string) {
	if pc == nil || len(doc) > planCacheMaxDocBytes {
		return "", ""
	}
	h := sha256.New()
	if start, end, ok := executionIDSpan(doc); ok {
		h.Write(doc[:start])
		h.Write([]byte{0}) // marks the cut
		h.Write(doc[end:])
		executionID = string(doc[start:end])
	} else {
		h.Write(doc)
	}
	writePermissions(h, a.Permissions)
	var l [16]byte
	binary.LittleEndian.PutUint64(l[:8], uint64(a.Limits.MaxOperations))
	binary.LittleEndian.PutUint64(l[8:], uint64(a.Limits.MaxLoopIterations))
	h.Write(l[:])
	return hex.EncodeToString(h.Sum(nil)), executionID
}

// executionIDSpan is where the executionId value of the document's last line
// is, when that line is a beginExecution with exactly one "executionId" key
// whose value is a valid id (letters, digits, '_' and '-', as protocol/a2e
// requires: such a value has no escapes, so the bytes are the value). A
// plain scan, not a regexp: it runs on every execution.
func executionIDSpan(doc []byte) (start, end int, ok bool) {
	trimmed := bytes.TrimRight(doc, " \t\r\n")
	lineStart := bytes.LastIndexByte(trimmed, '\n') + 1
	line := trimmed[lineStart:]
	if !bytes.Contains(line, []byte(`"beginExecution"`)) {
		return 0, 0, false
	}
	key := []byte(`"executionId"`)
	found := false
	for i := 0; ; {
		j := bytes.Index(line[i:], key)
		if j < 0 {
			break
		}
		k := skipSpace(line, i+j+len(key))
		i += j + len(key)
		if k >= len(line) || line[k] != ':' {
			continue // not a key
		}
		if found {
			return 0, 0, false // twice: leave it to validation
		}
		k = skipSpace(line, k+1)
		if k >= len(line) || line[k] != '"' {
			return 0, 0, false
		}
		v := k + 1
		e := v
		for e < len(line) && isIDByte(line[e]) {
			e++
		}
		if e == v || e-v > a2e.MaxIDLength || e >= len(line) || line[e] != '"' {
			return 0, 0, false
		}
		start, end, found = lineStart+v, lineStart+e, true
	}
	return start, end, found
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

func isIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
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
