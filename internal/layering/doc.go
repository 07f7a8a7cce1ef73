// Package layering holds the test that keeps the import graph of DESIGN.md:
// public protocol codecs depend on nothing of ours, operations know nothing of the
// engine's internals, the gateway or the store, and only the entry points wire
// everything together.
package layering
