package local

// SetSweepBatch makes sweeps delete n rows a statement until the test ends.
func SetSweepBatch(n int) (restore func()) {
	was := sweepBatch
	sweepBatch = n
	return func() { sweepBatch = was }
}
