package ssh

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// patchOp is one RFC 6902 operation of a SONiC remediation.
type patchOp struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
}

// applyPatch applies ops (add, replace, remove; RFC 6902 with RFC 6901
// paths) to the JSON document doc, for the config-reload part of a SONiC
// remediation, which goes into /etc/sonic/config_db.json rather than
// through GCU. The result is indented by four spaces with its keys
// sorted, as `config save` writes the file (sonic-cfggen --print-data:
// json.dumps sort_keys=True, indent=4), so equal documents are equal
// bytes. It stops at the first operation that does not fit, naming it.
func applyPatch(doc []byte, ops []patchOp) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("the configuration is not JSON: %v", err)
	}
	for i, op := range ops {
		var err error
		root, err = applyOp(root, op)
		if err != nil {
			return nil, fmt.Errorf("operation %d (%s %s): %v", i+1, op.Op, op.Path, err)
		}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// pointerTokens splits an RFC 6901 JSON pointer into its reference
// tokens, unescaped (~1 is /, ~0 is ~).
func pointerTokens(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("the path %q does not start with /", p)
	}
	parts := strings.Split(p[1:], "/")
	for i, t := range parts {
		for j := 0; j < len(t); j++ {
			if t[j] == '~' && (j+1 == len(t) || t[j+1] != '0' && t[j+1] != '1') {
				return nil, fmt.Errorf("the path %q has a ~ that is not ~0 or ~1", p)
			}
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

// applyOp applies one operation to root and returns the new root.
func applyOp(root any, op patchOp) (any, error) {
	toks, err := pointerTokens(op.Path)
	if err != nil {
		return nil, err
	}
	var val any
	switch op.Op {
	case "add", "replace":
		dec := json.NewDecoder(bytes.NewReader(op.Value))
		dec.UseNumber()
		if err := dec.Decode(&val); err != nil {
			return nil, fmt.Errorf("the value is not JSON: %v", err)
		}
	case "remove":
	default:
		return nil, fmt.Errorf("the operation %q: a remediation adds, replaces and removes", op.Op)
	}
	if len(toks) == 0 {
		if op.Op == "remove" {
			return nil, fmt.Errorf("removing the whole document")
		}
		return val, nil
	}
	parent := root
	for i, t := range toks[:len(toks)-1] {
		switch p := parent.(type) {
		case map[string]any:
			c, ok := p[t]
			if !ok {
				return nil, fmt.Errorf("no member %q at /%s", t, strings.Join(toks[:i], "/"))
			}
			parent = c
		case []any:
			n, err := arrayIndex(t, len(p), false)
			if err != nil {
				return nil, err
			}
			parent = p[n]
		default:
			return nil, fmt.Errorf("/%s is not an object or array", strings.Join(toks[:i], "/"))
		}
	}
	last := toks[len(toks)-1]
	switch p := parent.(type) {
	case map[string]any:
		_, ok := p[last]
		switch {
		case op.Op == "add":
			p[last] = val
		case !ok:
			return nil, fmt.Errorf("nothing to %s at %s", op.Op, op.Path)
		case op.Op == "replace":
			p[last] = val
		default:
			delete(p, last)
		}
		return root, nil
	case []any:
		// An array changes length: its new value goes back into its parent.
		n, err := arrayIndex(last, len(p), op.Op == "add")
		if err != nil {
			return nil, err
		}
		var next []any
		switch op.Op {
		case "add":
			next = append(append(append([]any{}, p[:n]...), val), p[n:]...)
		case "replace":
			next = append([]any{}, p...)
			next[n] = val
		default:
			next = append(append([]any{}, p[:n]...), p[n+1:]...)
		}
		if len(toks) == 1 {
			return next, nil
		}
		return applyOp(root, patchOp{Op: "replace", Path: "/" + strings.Join(escapeTokens(toks[:len(toks)-1]), "/"), Value: mustMarshal(next)})
	}
	return nil, fmt.Errorf("the parent of %s is not an object or array", op.Path)
}

// arrayIndex reads an array index token; "-" (and len) is the end, where
// only add may go.
func arrayIndex(t string, n int, add bool) (int, error) {
	if add && t == "-" {
		return n, nil
	}
	i, err := strconv.Atoi(t)
	if err != nil || i < 0 || (t != "0" && strings.HasPrefix(t, "0")) {
		return 0, fmt.Errorf("%q is not an array index", t)
	}
	if i > n || (!add && i == n) {
		return 0, fmt.Errorf("index %d is out of an array of %d", i, n)
	}
	return i, nil
}

func escapeTokens(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
	}
	return out
}

func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		// Values decoded from JSON always encode.
		return json.RawMessage("null")
	}
	return b
}
