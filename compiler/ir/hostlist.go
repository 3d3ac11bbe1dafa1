package ir

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Hostlist expressions are Slurm's compact form of a set of names:
// "gpu-[0000-0063,0128]" stands for gpu-0000 to gpu-0063 and gpu-0128.
// The grammar and its meaning follow Slurm's own parser
// (SchedMD/slurm@284c3b95f08a2dc2478499837b03355e1b9c5c75:src/common/hostlist.c,
// _hostlist_create_bracketed, _parse_single_range, _push_range_list):
//
//   - the list is split at commas outside brackets;
//   - a token without brackets is one name;
//   - prefix[ranges]suffix expands each comma-separated range "lo" or
//     "lo-hi" (decimal, lo <= hi) to prefix + number + suffix, each number
//     zero-padded to the length of lo as written;
//   - a range holds at most 65,536 names (MAX_RANGE, slurm/slurm.h
//     MAX_SLURM_NODES): CompressHostlist writes none longer, and
//     ExpandHostlist, which also reads the intent's server patterns, takes
//     up to maxExpand.
//
// Slurm also takes nested and multi-dimensional forms; rocefab writes only
// the one above, and ExpandHostlist reads only it.

// maxRange is the most names one range written may hold (Slurm's
// MAX_RANGE).
const maxRange = 65536

// maxExpand bounds the names one range read may hold: the intent's server
// patterns are hostlists too, and a fabric holds up to 100,000 servers
// (schema: topology.servers), more than one Slurm range; the bound keeps
// a typo such as gpu-[0-999999999] from exhausting memory.
const maxExpand = 1_000_000

// maxDigits bounds the numbers put in brackets: Slurm reads them with
// strtoul, and 18 digits always fit its 64-bit unsigned long.
const maxDigits = 18

// nameOK reports whether a name can stand in a hostlist: the characters of
// rocefab's device names, which hold none of the list's separators.
func nameOK(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// CompressHostlist writes a set of names as a hostlist expression that Slurm
// expands to exactly those names. Duplicates count once; the order of
// names does not matter. The number bracketed is a name's last run of
// digits, so gpu-0000..gpu-0063 become "gpu-[0000-0063]".
func CompressHostlist(names []string) (string, error) {
	type key struct{ prefix, suffix string }
	type num struct {
		digits string
		n      uint64
	}
	groups := map[key][]num{}
	var literal []string
	for _, s := range names {
		if !nameOK(s) {
			return "", fmt.Errorf("name %q cannot stand in a hostlist: names are letters, digits, '.', '_' and '-'", s)
		}
		end := len(s)
		for end > 0 && !isDigit(s[end-1]) {
			end--
		}
		start := end
		for start > 0 && isDigit(s[start-1]) {
			start--
		}
		if end == 0 || end-start > maxDigits {
			literal = append(literal, s)
			continue
		}
		n, _ := strconv.ParseUint(s[start:end], 10, 64)
		k := key{s[:start], s[end:]}
		groups[k] = append(groups[k], num{s[start:end], n})
	}
	var toks []string
	slices.Sort(literal)
	toks = append(toks, slices.Compact(literal)...)
	keys := make([]key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.prefix, b.prefix), cmp.Compare(a.suffix, b.suffix)) })
	for _, k := range keys {
		ns := groups[k]
		slices.SortFunc(ns, func(a, b num) int {
			return cmp.Or(cmp.Compare(a.n, b.n), cmp.Compare(len(a.digits), len(b.digits)))
		})
		present := make(map[string]bool, len(ns))
		for _, x := range ns {
			present[x.digits] = true
		}
		used := make(map[string]bool, len(ns))
		var ranges []string
		for _, x := range ns {
			if used[x.digits] {
				continue
			}
			used[x.digits] = true
			// A range keeps the width its first number is written with:
			// it grows while the next number, padded to that width, is a
			// name of the set.
			w, hi := len(x.digits), x.n
			for hi-x.n+1 < maxRange {
				next := pad(hi+1, w)
				if !present[next] || used[next] {
					break
				}
				used[next] = true
				hi++
			}
			if hi == x.n {
				ranges = append(ranges, x.digits)
			} else {
				ranges = append(ranges, x.digits+"-"+pad(hi, w))
			}
		}
		if len(ranges) == 1 && !strings.Contains(ranges[0], "-") {
			toks = append(toks, k.prefix+ranges[0]+k.suffix)
			continue
		}
		toks = append(toks, k.prefix+"["+strings.Join(ranges, ",")+"]"+k.suffix)
	}
	return strings.Join(toks, ","), nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// pad formats n with at least w digits, as Slurm's "%0*lu" does.
func pad(n uint64, w int) string {
	s := strconv.FormatUint(n, 10)
	if len(s) < w {
		s = strings.Repeat("0", w-len(s)) + s
	}
	return s
}

// ExpandHostlist lists the names of a hostlist expression in the order written,
// reading the form CompressHostlist writes (see the grammar above).
func ExpandHostlist(expr string) ([]string, error) {
	if expr == "" {
		return nil, nil
	}
	var out []string
	for tok := range splitTop(expr) {
		if tok == "" {
			return nil, fmt.Errorf("hostlist %q: empty name", expr)
		}
		open := strings.IndexByte(tok, '[')
		if open < 0 {
			if strings.ContainsAny(tok, "]") || !nameOK(tok) {
				return nil, fmt.Errorf("hostlist %q: invalid name %q", expr, tok)
			}
			out = append(out, tok)
			continue
		}
		end := strings.IndexByte(tok, ']')
		prefix, suffix := tok[:open], ""
		if end > open {
			suffix = tok[end+1:]
		}
		if end < open || strings.ContainsAny(prefix, "[]") || strings.ContainsAny(suffix, "[]") ||
			(prefix != "" && !nameOK(prefix)) || (suffix != "" && !nameOK(suffix)) {
			return nil, fmt.Errorf("hostlist %q: want prefix[ranges]suffix with one bracket pair in %q", expr, tok)
		}
		for r := range strings.SplitSeq(tok[open+1:end], ",") {
			lo, hi, isRange := strings.Cut(r, "-")
			if !isRange {
				hi = lo
			}
			a, errA := parseDigits(lo)
			b, errB := parseDigits(hi)
			if errA != nil || errB != nil || a > b {
				return nil, fmt.Errorf("hostlist %q: invalid range %q: want lo or lo-hi, decimal, lo <= hi", expr, r)
			}
			if b-a+1 > maxExpand {
				return nil, fmt.Errorf("hostlist %q: range %q holds %d names, more than %d", expr, r, b-a+1, maxExpand)
			}
			for n := a; n <= b; n++ {
				out = append(out, prefix+pad(n, len(lo))+suffix)
			}
		}
	}
	return out, nil
}

func parseDigits(s string) (uint64, error) {
	if s == "" || len(s) > maxDigits {
		return 0, fmt.Errorf("bad number %q", s)
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, fmt.Errorf("bad number %q", s)
		}
	}
	return strconv.ParseUint(s, 10, 64)
}

// splitTop yields the comma-separated tokens of a list, keeping the commas
// inside brackets.
func splitTop(s string) func(func(string) bool) {
	return func(yield func(string) bool) {
		depth, start := 0, 0
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '[':
				depth++
			case ']':
				depth--
			case ',':
				if depth == 0 {
					if !yield(s[start:i]) {
						return
					}
					start = i + 1
				}
			}
		}
		yield(s[start:])
	}
}
