// Package layering holds the test that keeps the import graph of DESIGN.md:
// public protocol codecs depend on nothing of ours, operations know nothing of the
// engine's internals, the gateway or the store, the store knows nothing of the
// engine, operations or rate limits, and only the entry points wire everything
// together. A package breaks a rule by importing a forbidden package directly or
// through others.
package layering
