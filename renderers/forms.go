package renderers

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Statement forms: a configuration line or key with what varies between
// two of its kind replaced (N a number, N... a list, IF an interface, TEXT a
// description, CLASS and PROFILE names rocefab derives). The table of forms
// and their sources (compiler/platforms statements.json, rendered as
// docs/statements.md) is keyed by them; renderers use them to mark the forms
// no source confirms, and tests to find a form without a row.

var (
	formIfRE      = regexp.MustCompile(`\bEthernet[0-9/]+`)
	formClassRE   = regexp.MustCompile(`\bROCEFAB-TC[0-9]+-\S+`)
	formNumRE     = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?\b`)
	formNumListRE = regexp.MustCompile(`N([ ,-]N)+`)
	formIfListRE  = regexp.MustCompile(`IF(, IF)+`)
	// formUnitRE is a number glued to a unit or a lane count: 400g-4, 400G,
	// 2x; formNXQoSRE the NX-OS system class names c-8q-nq3, c-out-8q-q3.
	formUnitRE  = regexp.MustCompile(`\b[0-9]+([gGx])(-[0-9]+)?\b`)
	formNXQoSRE = regexp.MustCompile(`\b(c-8q-nq|c-out-8q-q)[0-9]\b`)
)

// formUnits replaces numbers glued to units and system class numbers.
func formUnits(s string) string {
	s = formNXQoSRE.ReplaceAllString(s, "${1}N")
	return formUnitRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := formUnitRE.FindStringSubmatch(m)
		if sub[2] != "" {
			return "N" + sub[1] + "-N"
		}
		return "N" + sub[1]
	})
}

// formCache holds the forms of lines seen in this process: a fabric's
// switches repeat the same few thousand lines, and a form costs six
// regular expressions. It stops growing at formCacheMax lines.
var (
	formCache     sync.Map // trimmed line -> form
	formCacheSize atomic.Int64
)

const formCacheMax = 1 << 16

// CLIForm returns the statement form of one line of an EOS or NX-OS
// configuration, and false for comment and blank lines.
func CLIForm(line string) (string, bool) {
	l := strings.TrimSpace(line)
	if l == "" || l == "!" || strings.HasPrefix(l, "! ") {
		return "", false
	}
	if strings.HasPrefix(l, "description ") {
		return "description TEXT", true
	}
	if f, ok := formCache.Load(l); ok {
		return f.(string), true
	}
	f := cliForm(l)
	if formCacheSize.Load() < formCacheMax {
		if _, loaded := formCache.LoadOrStore(l, f); !loaded {
			formCacheSize.Add(1)
		}
	}
	return f, true
}

// cliForm computes the form of a trimmed configuration line.
func cliForm(l string) string {
	l = formIfRE.ReplaceAllString(l, "IF")
	l = formClassRE.ReplaceAllString(l, "CLASS")
	l = formUnits(l)
	l = formNumRE.ReplaceAllString(l, "N")
	l = formNumListRE.ReplaceAllString(l, "N...")
	l = formIfListRE.ReplaceAllString(l, "IF...")
	return l
}

// NVUEForm returns the statement form of one NVUE leaf: the key path from
// the document's "set" down to the leaf, with the leaf's value ("{}" for
// an empty mapping), as `nv set` words. Interface names and PFC profile
// names in the path, descriptions, profile references and numbers are
// replaced.
func NVUEForm(path []string, value string, empty bool) string {
	var b strings.Builder
	for i := range path {
		b.WriteString(NVUEKeyForm(path[:i+1]))
		b.WriteByte(' ')
	}
	b.WriteString(NVUEValueForm(path, value, empty))
	return b.String()
}

// NVUEKeyForm returns the form of the last key of path, as NVUEForm writes
// it: a writer that walks a document tree builds the forms of its leaves
// from its parents' forms with it, rather than recomputing every key of
// every leaf's path.
func NVUEKeyForm(path []string) string {
	i := len(path) - 1
	switch {
	case i < 0:
		return ""
	case i > 0 && path[i-1] == "interface":
		return "IF"
	case i == 3 && path[0] == "set" && path[1] == "qos" && path[2] == "pfc":
		return "PROFILE"
	}
	return nvueWordForm(path[i])
}

// NVUEValueForm returns the form of the value of the leaf at path, as
// NVUEForm writes it after the keys.
func NVUEValueForm(path []string, value string, empty bool) string {
	// A description's or profile's value is replaced whole: its form is
	// not computed (descriptions differ on every port, and would only fill
	// the cache of word forms).
	if len(path) > 0 {
		switch path[len(path)-1] {
		case "description":
			return "TEXT"
		case "profile":
			return "PROFILE"
		}
	}
	if empty {
		return "{}"
	}
	return nvueWordForm(value)
}

// nvueWords holds the forms of the NVUE keys and values seen in this
// process: every leaf of every NVUE document asks for the form of each key
// on its path, two regular expressions each, and the keys repeat across
// leaves and switches. It stops growing at formCacheMax words.
var (
	nvueWords     sync.Map // word -> form
	nvueWordsSize atomic.Int64
)

// nvueWordForm returns a key or value of an NVUE document with numbers,
// also those glued to units, replaced.
func nvueWordForm(w string) string {
	if f, ok := nvueWords.Load(w); ok {
		return f.(string)
	}
	f := formNumRE.ReplaceAllString(formUnits(w), "N")
	if nvueWordsSize.Load() < formCacheMax {
		if _, loaded := nvueWords.LoadOrStore(w, f); !loaded {
			nvueWordsSize.Add(1)
		}
	}
	return f
}

// VerifyMark is the comment text that marks a form no source confirms.
func VerifyMark(form string) string { return "verify: " + form }

// MarkVerifyCLI inserts a "! verify: <form>" line for every line of an EOS
// or NX-OS configuration whose form isVerify reports, so that the forms
// no source confirms are checked before a push. inBlock places the mark
// directly above the line, at its indent (EOS drops "!" lines wherever
// they are); otherwise the mark goes above the top-level line that opens
// the block holding it (NX-OS, where comments stay outside policies), once
// per form and block.
func MarkVerifyCLI(text []byte, isVerify func(form string) bool, inBlock bool) []byte {
	lines := strings.SplitAfter(string(text), "\n")
	var out []string
	blockStart := -1 // index in out of the current top-level line
	marked := map[string]bool{}
	for _, l := range lines {
		if l == "" {
			continue
		}
		form, ok := CLIForm(l)
		indent := len(l) - len(strings.TrimLeft(l, " "))
		if ok && indent == 0 {
			blockStart = len(out)
			marked = map[string]bool{}
		}
		if ok && isVerify(form) {
			mark := VerifyMark(form)
			switch {
			case inBlock || indent == 0 || blockStart < 0:
				out = append(out, fmt.Sprintf("%s! %s\n", strings.Repeat(" ", indent), mark))
				if indent == 0 {
					blockStart = len(out)
				}
			case !marked[form]:
				marked[form] = true
				out = slices.Insert(out, blockStart, "! "+mark+"\n")
				blockStart++
			}
		}
		out = append(out, l)
	}
	return []byte(strings.Join(out, ""))
}

// VerifyMarked reports whether the line at index i of a CLI configuration
// carries the mark of form: in the comment lines directly above it, or,
// for a line inside a block, directly above the top-level line that opens
// the block.
func VerifyMarked(lines []string, i int, form string) bool {
	want := VerifyMark(form)
	above := func(j int) bool {
		for k := j - 1; k >= 0; k-- {
			t := strings.TrimSpace(lines[k])
			if t != "!" && !strings.HasPrefix(t, "! ") {
				return false
			}
			if t == "! "+want {
				return true
			}
		}
		return false
	}
	if above(i) {
		return true
	}
	for j := i - 1; j >= 0; j-- {
		l := lines[j]
		if _, ok := CLIForm(l); ok && len(l) == len(strings.TrimLeft(l, " ")) {
			return above(j)
		}
	}
	return false
}
