package workflow

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"regexp"
	"strconv"
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

// beginIDPattern finds the executionId value of a beginExecution line. IDs
// hold only letters, digits, '_' and '-' (protocol/a2e), so the value has no
// escapes and a match cannot start inside another string.
var beginIDPattern = regexp.MustCompile(`"executionId"\s*:\s*"([A-Za-z0-9_-]{1,` + strconv.Itoa(a2e.MaxIDLength) + `})"`)

// executionIDSpan is where the executionId value of the document's last line
// is, when that line is a beginExecution with exactly one such value.
func executionIDSpan(doc []byte) (start, end int, ok bool) {
	trimmed := bytes.TrimRight(doc, " \t\r\n")
	lineStart := bytes.LastIndexByte(trimmed, '\n') + 1
	line := trimmed[lineStart:]
	if !bytes.Contains(line, []byte(`"beginExecution"`)) {
		return 0, 0, false
	}
	m := beginIDPattern.FindAllSubmatchIndex(line, 2)
	if len(m) != 1 {
		return 0, 0, false
	}
	return lineStart + m[0][2], lineStart + m[0][3], true
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
