package diag

import (
	"regexp"
	"strconv"
	"unicode/utf8"
)

// EchoBytes is how much of a value a message repeats: an error names the
// value it refuses, but a 100 KB name repeated whole buries the message
// (and fills a terminal or a CI log).
const EchoBytes = 64

// Quote is s quoted as %q quotes it, cut after EchoBytes bytes (at a
// character's start) with an ellipsis and s's length when longer:
// "aaaa…" (100000 bytes).
func Quote(s string) string {
	if len(s) <= EchoBytes {
		return strconv.Quote(s)
	}
	cut := EchoBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]+"…") + " (" + strconv.Itoa(len(s)) + " bytes)"
}

// quoted matches a double-quoted string with backslash escapes, as %q and
// CUE write them.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// Shorten cuts every quoted value longer than EchoBytes in msg as Quote
// does, for messages that other code (CUE, a library) wrote with the value
// whole.
func Shorten(msg string) string {
	if len(msg) <= 2*EchoBytes {
		return msg
	}
	return quoted.ReplaceAllStringFunc(msg, func(lit string) string {
		if len(lit) <= EchoBytes+2 {
			return lit
		}
		if s, err := strconv.Unquote(lit); err == nil {
			return Quote(s)
		}
		// Not Go's quoting: cut the text between the quotes, before a
		// backslash so that no escape is cut in half.
		cut := EchoBytes + 1
		for cut > 1 && (!utf8.RuneStart(lit[cut]) || lit[cut-1] == '\\') {
			cut--
		}
		return lit[:cut] + `…" (` + strconv.Itoa(len(lit)-2) + " bytes)"
	})
}
