package renderers

import (
	"strconv"
	"strings"
)

// JoinInts writes xs in decimal, separated by sep: the lists of priorities,
// queues, DSCPs and lanes every artifact spells out ("3,4" for SONiC's
// pfc_enable, "3, 4" in a comment, "0 1 2" in a shell array).
func JoinInts(xs []int, sep string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}
