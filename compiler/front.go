package cli

import (
	"cmp"
	"slices"
	"strings"
)

// closest returns up to n of names nearest to what a user typed, by edit
// distance with the glob's wildcards left out, nearest first and ties in
// name order.
func closest(typed string, names []string, n int) []string {
	want := strings.NewReplacer("*", "", "?", "", "[", "", "]", "").Replace(typed)
	type scored struct {
		name string
		dist int
	}
	all := make([]scored, len(names))
	for i, name := range names {
		all[i] = scored{name, editDistance(want, name)}
	}
	slices.SortFunc(all, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), strings.Compare(a.name, b.name))
	})
	var out []string
	for _, s := range all[:min(n, len(all))] {
		out = append(out, s.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
