package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/storage/storekey"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// The checks below are shared by every implementation so that they refuse the
// same input with the same error. Each names the field; none repeats a value
// that could be secret (hashes, ciphertext, stored values).

// invalid is an Invalid error about field.
func invalid(field, format string, args ...any) *fault.Error {
	return fault.New(fault.Invalid, "%s: %s", field, fmt.Sprintf(format, args...)).WithDetail("field", field)
}

// CheckID refuses an id that is empty, longer than MaxIDBytes or holds
// anything but ASCII letters, digits and . _ : - (ids end up in URLs, log lines
// and folder names, so they stay plain). It may not start with "." or "-".
func CheckID(field, id string) error {
	if id == "" {
		return invalid(field, "is required")
	}
	if len(id) > MaxIDBytes {
		return invalid(field, "is %d bytes long, over the limit of %d", len(id), MaxIDBytes)
	}
	if id[0] == '.' || id[0] == '-' {
		return invalid(field, "may not start with %q", id[:1])
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return invalid(field, "holds %q at byte %d; use letters, digits, '.', '_', ':' and '-'", rune(c), i).
				WithSuggestions("Ids are plain ASCII names such as acct_42 or exec-2026-01")
		}
	}
	return nil
}

// CheckText refuses text that is longer than max bytes, not UTF-8 or holds
// control characters. Empty text passes unless required.
func CheckText(field, s string, max int, required bool) error {
	if s == "" {
		if required {
			return invalid(field, "is required")
		}
		return nil
	}
	if len(s) > max {
		return invalid(field, "is %d bytes long, over the limit of %d", len(s), max)
	}
	if !utf8.ValidString(s) {
		return invalid(field, "is not valid UTF-8")
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
		return invalid(field, "holds a control character at byte %d", i)
	}
	return nil
}

// CheckJSON refuses a value over max bytes or not valid JSON. Empty passes
// unless required.
func CheckJSON(field string, v json.RawMessage, max int, required bool) error {
	if len(v) == 0 {
		if required {
			return invalid(field, "is required")
		}
		return nil
	}
	if len(v) > max {
		return invalid(field, "is %d bytes, over the limit of %d", len(v), max)
	}
	if !json.Valid(v) {
		return invalid(field, "is not valid JSON")
	}
	return nil
}

// CheckBytes refuses a byte string over max (or empty when required).
func CheckBytes(field string, b []byte, max int, required bool) error {
	if len(b) == 0 && required {
		return invalid(field, "is required")
	}
	if len(b) > max {
		return invalid(field, "is %d bytes, over the limit of %d", len(b), max)
	}
	return nil
}

// PageLimit returns the page size p asks for, or an Invalid error.
func PageLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return DefaultPageSize, nil
	case limit < 0:
		return 0, invalid("limit", "must not be negative")
	case limit > MaxPageSize:
		return 0, invalid("limit", "is %d, over the limit of %d", limit, MaxPageSize).
			WithSuggestions(fmt.Sprintf("Ask for at most %d and follow the cursor", MaxPageSize))
	}
	return limit, nil
}

// BadCursor is the error for a cursor an implementation cannot read.
func BadCursor() *fault.Error {
	return invalid("cursor", "is not a cursor this server gave out").
		WithSuggestions("Pass the next cursor of the previous page unchanged, or none for the first page")
}

// CheckAccount checks an account before it is created.
func CheckAccount(a Account) error {
	if err := CheckID("account id", a.ID); err != nil {
		return err
	}
	if err := CheckText("account name", a.Name, MaxNameBytes, false); err != nil {
		return err
	}
	return CheckJSON("account limits", a.Limits, MaxLimitsBytes, false)
}

// CheckAccountUpdate checks the set fields of u.
func CheckAccountUpdate(u AccountUpdate) error {
	if u.Name != nil {
		if err := CheckText("account name", *u.Name, MaxNameBytes, false); err != nil {
			return err
		}
	}
	return CheckJSON("account limits", u.Limits, MaxLimitsBytes, false)
}

// CheckAPIKey checks a key before it is added.
func CheckAPIKey(k APIKey) error {
	if err := CheckID("key id", k.ID); err != nil {
		return err
	}
	if err := CheckID("account id", k.AccountID); err != nil {
		return err
	}
	if err := CheckKeyHash(k.Hash); err != nil {
		return err
	}
	return CheckText("key prefix", k.Prefix, MaxNameBytes, false)
}

// CheckKeyHash checks a key hash; its message never shows the hash.
func CheckKeyHash(h []byte) error {
	return CheckBytes("key hash", h, MaxKeyHashBytes, true)
}

// CheckCredential checks a vault record before it is stored.
func CheckCredential(c Credential) error {
	if err := CheckID("credential id", c.ID); err != nil {
		return err
	}
	if err := CheckText("credential type", c.Type, MaxNameBytes, true); err != nil {
		return err
	}
	if err := CheckText("credential description", c.Description, MaxTextBytes, false); err != nil {
		return err
	}
	if err := CheckText("credential master key id", c.MasterKeyID, MaxNameBytes, true); err != nil {
		return err
	}
	if len(c.Hosts) > MaxCredentialHosts {
		return invalid("credential hosts", "%d hosts, over the limit of %d", len(c.Hosts), MaxCredentialHosts)
	}
	for _, h := range c.Hosts {
		if h == "" || len(h) > MaxNameBytes || strings.ContainsFunc(h, unicode.IsSpace) {
			return invalid("credential hosts", "%q is not a host", h)
		}
	}
	if err := CheckBytes("credential nonce", c.Nonce, MaxNameBytes, false); err != nil {
		return err
	}
	if err := CheckBytes("credential ciphertext", c.Ciphertext, MaxCredentialSize, true); err != nil {
		return err
	}
	return nil
}

// CheckExecution checks an execution before it is created.
func CheckExecution(e Execution) error {
	checks := []error{
		CheckID("execution id", e.ID),
		CheckID("account id", e.AccountID),
		CheckText("client execution id", e.ClientID, MaxClientIDBytes, false),
		CheckText("document digest", e.Digest, MaxDigestBytes, true),
		CheckBytes("document", e.Document, MaxDocumentBytes, true),
		CheckJSON("input", e.Input, MaxInputBytes, false),
		checkStatus(e.Status),
		checkKindOrEmpty(e.Kind),
		CheckText("session id", e.SessionID, MaxClientIDBytes, false),
		CheckJSON("result", e.Result, MaxResultBytes, false),
		CheckJSON("errors", e.Errors, MaxErrorsBytes, false),
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	if e.BudgetMs < 0 {
		return invalid("budget", "must not be negative")
	}
	return nil
}

// CheckExecutionUpdate checks an update.
func CheckExecutionUpdate(u ExecutionUpdate) error {
	if err := checkStatus(u.Status); err != nil {
		return err
	}
	if err := CheckJSON("result", u.Result, MaxResultBytes, false); err != nil {
		return err
	}
	return CheckJSON("errors", u.Errors, MaxErrorsBytes, false)
}

// CheckExecutionQuery checks a list query and returns its page size.
func CheckExecutionQuery(q ExecutionQuery) (int, error) {
	for _, s := range q.Status {
		if err := checkStatus(s); err != nil {
			return 0, err
		}
	}
	for _, k := range q.Kinds {
		if k == "" {
			return 0, invalid("kinds", "an empty kind is not a kind of execution").
				WithSuggestions("Use one of " + strings.Join(Kinds, ", "))
		}
		if err := checkKindOrEmpty(k); err != nil {
			return 0, err
		}
	}
	return PageLimit(q.Limit)
}

// CheckUnfinishedQuery checks ListUnfinished's arguments and returns the
// page size. The kind is required: recovery reads one runner's records.
func CheckUnfinishedQuery(kind string, p Page) (int, error) {
	if kind == "" {
		return 0, invalid("kind", "is required").
			WithSuggestions("Use one of " + strings.Join(Kinds, ", "))
	}
	if err := checkKindOrEmpty(kind); err != nil {
		return 0, err
	}
	return PageLimit(p.Limit)
}

func checkStatus(s Status) error {
	if !s.Valid() {
		return invalid("status", "%q is not a status", truncate(string(s))).
			WithSuggestions("Use one of " + strings.Join(statusNames(), ", "))
	}
	return nil
}

func statusNames() []string {
	out := make([]string, len(Statuses))
	for i, s := range Statuses {
		out[i] = string(s)
	}
	return out
}

// StatusGuard is the error for changing a final execution.
func StatusGuard(id string, current, wanted Status) *fault.Error {
	return fault.New(fault.Conflict, "execution %s is already %s and cannot become %s", id, current, wanted).
		WithDetail("executionId", id).WithDetail("status", string(current))
}

// CheckFrames checks event frames before they are appended.
func CheckFrames(frames []json.RawMessage) error {
	if len(frames) == 0 {
		return invalid("events", "none given")
	}
	if len(frames) > MaxEventsPerAppend {
		return invalid("events", "%d given at once, over the limit of %d", len(frames), MaxEventsPerAppend)
	}
	for i, f := range frames {
		if err := CheckJSON(fmt.Sprintf("events[%d]", i), f, MaxEventBytes, true); err != nil {
			return err
		}
	}
	return nil
}

// TooManyEvents is the error when an execution's event log is full.
func TooManyEvents(id string) *fault.Error {
	return fault.New(fault.Invalid, "execution %s has reached the limit of %d events", id, MaxEventsPerExecution).
		WithDetail("executionId", id)
}

// The audit decisions.
var decisions = []string{DecisionAllow, DecisionDeny, DecisionLimited}

// CheckAudit checks a batch of audit records.
func CheckAudit(recs []AuditRecord) error {
	if len(recs) > MaxAuditBatch {
		return invalid("audit", "%d records at once, over the limit of %d", len(recs), MaxAuditBatch)
	}
	for i, r := range recs {
		at := func(f string) string { return fmt.Sprintf("audit[%d].%s", i, f) }
		if r.Time.IsZero() {
			return invalid(at("time"), "is required")
		}
		if !slices.Contains(decisions, r.Decision) {
			return invalid(at("decision"), "%q is not one of allow, deny, limited", truncate(r.Decision))
		}
		for _, c := range []struct {
			field, v string
			max      int
		}{
			{"requestId", r.RequestID, MaxClientIDBytes}, {"accountId", r.AccountID, MaxIDBytes},
			{"method", r.Method, MaxNameBytes}, {"operation", r.Operation, MaxNameBytes},
			{"status", r.Status, MaxNameBytes}, {"errorCode", r.ErrorCode, MaxNameBytes},
		} {
			// The record's own name is made only for a failure: a Sprintf a
			// field was most of what checking a batch cost.
			if CheckText(c.field, c.v, c.max, false) != nil {
				return CheckText(at(c.field), c.v, c.max, false)
			}
		}
		if r.LatencyMs < 0 {
			return invalid(at("latencyMs"), "must not be negative")
		}
		if CheckJSON("details", r.Details, MaxAuditDetailsBytes, false) != nil {
			return CheckJSON(at("details"), r.Details, MaxAuditDetailsBytes, false)
		}
	}
	return nil
}

// CheckAuditQuery checks a query and returns its page size.
func CheckAuditQuery(q AuditQuery) (int, error) {
	if q.Decision != "" && !slices.Contains(decisions, q.Decision) {
		return 0, invalid("decision", "%q is not one of allow, deny, limited", truncate(q.Decision))
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		return 0, invalid("until", "must be after since")
	}
	return PageLimit(q.Limit)
}

// CheckRateCounters checks a batch of counters.
func CheckRateCounters(cs []RateCounter) error {
	if len(cs) > MaxRateCounterBatch {
		return invalid("rate counters", "%d at once, over the limit of %d", len(cs), MaxRateCounterBatch)
	}
	for i, c := range cs {
		at := func(f string) string { return fmt.Sprintf("rateCounters[%d].%s", i, f) }
		if err := CheckID(at("accountId"), c.AccountID); err != nil {
			return err
		}
		if err := CheckText(at("window"), c.Window, MaxNameBytes, true); err != nil {
			return err
		}
		if c.Start.IsZero() || !c.Start.Before(c.End) {
			return invalid(at("end"), "must be after start")
		}
		if c.Count < 0 {
			return invalid(at("count"), "must not be negative")
		}
	}
	return nil
}

// CheckKV checks an account's key (the storage key rule of
// internal/storage/storekey) and, when value is non-nil, the value.
func CheckKV(accountID, key string, value json.RawMessage, withValue bool) error {
	if err := CheckID("account id", accountID); err != nil {
		return err
	}
	if err := checkStorageKey(key); err != nil {
		return err
	}
	if withValue {
		return CheckJSON("value", value, MaxKVValueBytes, true)
	}
	return nil
}

// checkStorageKey applies the storage key rule that StoreData, LoadData and
// the other storages share.
func checkStorageKey(key string) error {
	if err := storekey.Check(key); err != nil {
		return fault.Typed(fault.Invalid, fault.DataError, "invalid %s key: %s", a2e.StorageLocal, err.Error()).
			WithDetail("storage", a2e.StorageLocal).WithDetail("key", truncate(key)).
			WithSuggestions("Keys are relative names such as results or reports/2026-01, without '..' or a leading '/'")
	}
	return nil
}

// KVFull is the error when an account's key-value storage is full.
func KVFull() *fault.Error {
	return fault.New(fault.Invalid, "localStorage is full: at most %d keys", MaxKVKeysPerAccount).
		WithSuggestions("Reuse keys or store fewer, larger values")
}

// CheckDiscoveryUsage checks one row of discovery usage (its At is the
// store's and not checked): a discovery kind, an entry id, a term of
// lower-case letters and digits (what discovery's analysis makes) and an
// account id. Its fields are kind, entryId, term and account.
func CheckDiscoveryUsage(r DiscoveryUsage) error { return checkDiscoveryUsage("", r) }

// CheckDiscoveryUsageBatch checks the rows of one AddDiscoveryUsage call:
// at most MaxDiscoveryUsageBatch, each checked by CheckDiscoveryUsage with
// its index in the field ("rows[3].term").
func CheckDiscoveryUsageBatch(rows []DiscoveryUsage) error {
	if len(rows) > MaxDiscoveryUsageBatch {
		return invalid("rows", "%d at once, over the limit of %d", len(rows), MaxDiscoveryUsageBatch).
			WithSuggestions(fmt.Sprintf("Send at most %d rows a call", MaxDiscoveryUsageBatch))
	}
	for i, r := range rows {
		if err := checkDiscoveryUsage(fmt.Sprintf("rows[%d].", i), r); err != nil {
			return err
		}
	}
	return nil
}

// CheckDiscoveryUsageEntry checks DeleteDiscoveryUsage's entry: kind and
// entry id both set (that entry) or both empty (all usage).
func CheckDiscoveryUsageEntry(kind, entryID string) error {
	const both = "Give both kind and entry id to forget an entry's usage, or neither to forget all of it"
	switch {
	case kind == "" && entryID == "":
		return nil
	case kind == "":
		return invalid("kind", "is required with an entry id").WithSuggestions(both)
	case entryID == "":
		return invalid("entryId", "is required with a kind").WithSuggestions(both)
	}
	return checkDiscoveryEntry("", kind, entryID)
}

// checkDiscoveryUsage checks r, each field named after prefix.
func checkDiscoveryUsage(prefix string, r DiscoveryUsage) error {
	if err := checkDiscoveryEntry(prefix, r.Kind, r.EntryID); err != nil {
		return err
	}
	if err := checkDiscoveryTerm(prefix+"term", r.Term); err != nil {
		return err
	}
	return CheckID(prefix+"account", r.Account)
}

func checkDiscoveryEntry(prefix, kind, entryID string) error {
	if !slices.Contains(DiscoveryKinds, kind) {
		if kind == "" {
			return invalid(prefix+"kind", "is required")
		}
		return invalid(prefix+"kind", "%q is not a discovery kind", truncate(kind)).
			WithSuggestions("Use one of " + strings.Join(DiscoveryKinds, ", "))
	}
	return CheckText(prefix+"entryId", entryID, MaxDiscoveryEntryIDBytes, true)
}

// checkDiscoveryTerm refuses a term that discovery's analysis cannot have
// made: empty, over MaxDiscoveryTermBytes, not UTF-8, or holding anything
// but letters (of any script) and digits that lower-casing leaves as they
// are.
func checkDiscoveryTerm(field, term string) error {
	if term == "" {
		return invalid(field, "is required")
	}
	if len(term) > MaxDiscoveryTermBytes {
		return invalid(field, "is %d bytes long, over the limit of %d", len(term), MaxDiscoveryTermBytes)
	}
	if !utf8.ValidString(term) {
		return invalid(field, "is not valid UTF-8")
	}
	for i, r := range term {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) || unicode.ToLower(r) != r {
			return invalid(field, "holds %q at byte %d; use lower-case letters and digits", r, i).
				WithSuggestions("Terms are analyzed words: lower case, without spaces or punctuation")
		}
	}
	return nil
}

func truncate(s string) string {
	if len(s) > 64 {
		return strings.ToValidUTF8(s[:64], "") + "…"
	}
	return s
}

// JoinHosts is how a credential's hosts are stored: one text column, space
// separated (a host holds no space), "" when unbound.
func JoinHosts(hosts []string) string { return strings.Join(hosts, " ") }

// SplitHosts reads JoinHosts' text back; nil when unbound.
func SplitHosts(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Fields(s)
}
