package queue

// Interleave takes up to n items round-robin from perGroup, whose groups
// are in the order they are to be served (least recently served first) and
// whose items are oldest first: the first item of every group, then the
// second, and so on. served lists the groups (indexes into perGroup) that
// gave an item, in the order of the last item each gave, which is the order
// they were served in: the table queues record it for the next Lease.
func Interleave[T any](perGroup [][]T, n int) (items []T, served []int) {
	last := make([]int, len(perGroup)) // position of each group's last item, -1 none
	for g := range last {
		last[g] = -1
	}
	for round := 0; len(items) < n; round++ {
		took := false
		for g, list := range perGroup {
			if round < len(list) && len(items) < n {
				last[g] = len(items)
				items = append(items, list[round])
				took = true
			}
		}
		if !took {
			break
		}
	}
	byPos := make([]int, len(items))
	for pos := range byPos {
		byPos[pos] = -1
	}
	for g, at := range last {
		if at >= 0 {
			byPos[at] = g
		}
	}
	for _, g := range byPos {
		if g >= 0 {
			served = append(served, g)
		}
	}
	return items, served
}
