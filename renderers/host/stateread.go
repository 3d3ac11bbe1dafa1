package host

import "github.com/rocefab/rocefab/renderers"

// readState reads a host state report the way encoding/json decodes it
// into a stateDoc, for the documents the runtime and the directory target
// write: the known keys once each, strings (or null for have and want),
// any whitespace between. It reports false for anything else (an unknown
// or repeated key, a number, an escape encoding/json reads differently),
// which decodeState then gives to encoding/json. Plan and apply read
// every server's report, several times in an apply, and encoding/json's
// reflection was most of reading it.
func readState(src []byte) (*stateDoc, bool) {
	// The strings of the report are slices of one copy of it.
	r := jsonCursor{b: src, s: string(src)}
	var doc stateDoc
	ok := r.members(func(key string) bool {
		switch key {
		case "device":
			return r.str(&doc.Device)
		case "runtime":
			return r.str(&doc.Runtime)
		case "tool":
			return r.str(&doc.Tool)
		case "notes":
			return r.strings(&doc.Notes)
		case "errors":
			return r.strings(&doc.Errors)
		case "settings":
			return objects(&r, &doc.Settings, func(s *stateSetting, k string) bool {
				switch k {
				case "path":
					return r.str(&s.Path)
				case "have":
					return r.optStr(&s.Have)
				case "want":
					return r.optStr(&s.Want)
				}
				return false
			})
		case "unmanaged":
			return objects(&r, &doc.Unmanaged, func(u *unmanagedDoc, k string) bool {
				switch k {
				case "path":
					return r.str(&u.Path)
				case "why":
					return r.str(&u.Why)
				}
				return false
			})
		}
		return false
	})
	r.space()
	if !ok || r.i != len(src) {
		return nil, false
	}
	return &doc, true
}

// objects reads an array of objects into *out, an empty array as an
// empty slice, as encoding/json does; member reads one member of an
// object by its key, false for a key the object does not have.
func objects[T any](r *jsonCursor, out *[]T, member func(v *T, key string) bool) bool {
	*out = []T{}
	return r.array(func() bool {
		var v T
		ok := r.members(func(k string) bool { return member(&v, k) })
		*out = append(*out, v)
		return ok
	})
}

// keySet is the keys an object has had, among the few (at most eight)
// a report's objects have.
type keySet struct {
	keys [8]string
	n    int
}

// add reports whether key is new, and adds it; an object of more keys
// than a report's is left to encoding/json.
func (k *keySet) add(key string) bool {
	for _, o := range k.keys[:k.n] {
		if o == key {
			return false
		}
	}
	if k.n == len(k.keys) {
		return false
	}
	k.keys[k.n] = key
	k.n++
	return true
}

// jsonCursor reads JSON values of known shapes.
type jsonCursor struct {
	b []byte
	s string // b as a string, which strings without escapes are slices of
	i int
}

func (r *jsonCursor) space() { r.i = renderers.SkipJSONSpace(r.b, r.i) }

// lit consumes c after any whitespace when the input continues with it.
func (r *jsonCursor) lit(c byte) bool {
	r.space()
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

func (r *jsonCursor) null() bool {
	r.space()
	if len(r.b)-r.i >= 4 && string(r.b[r.i:r.i+4]) == "null" {
		r.i += 4
		return true
	}
	return false
}

func (r *jsonCursor) str(out *string) bool {
	r.space()
	s, n, own, ok := renderers.ReadJSONString(r.b[r.i:])
	switch {
	case !ok:
	case own:
		*out = string(s)
	default:
		*out = r.s[r.i+1 : r.i+1+len(s)]
	}
	r.i += n
	return ok
}

func (r *jsonCursor) optStr(out **string) bool {
	if r.null() {
		*out = nil
		return true
	}
	var s string
	*out = &s
	return r.str(&s)
}

func (r *jsonCursor) strings(out *[]string) bool {
	*out = []string{}
	return r.array(func() bool {
		var s string
		ok := r.str(&s)
		*out = append(*out, s)
		return ok
	})
}

// object reads an object, giving each key to member, which reads its
// value.
func (r *jsonCursor) object(member func(key string) bool) bool {
	if !r.lit('{') {
		return false
	}
	if r.lit('}') {
		return true
	}
	for {
		var k string
		if !r.str(&k) || !r.lit(':') || !member(k) {
			return false
		}
		if r.lit('}') {
			return true
		}
		if !r.lit(',') {
			return false
		}
	}
}

// members reads an object as object does, refusing a key twice.
func (r *jsonCursor) members(member func(key string) bool) bool {
	var seen keySet
	return r.object(func(k string) bool { return seen.add(k) && member(k) })
}

// array reads an array, item reading each element.
func (r *jsonCursor) array(item func() bool) bool {
	if !r.lit('[') {
		return false
	}
	if r.lit(']') {
		return true
	}
	for {
		if !item() {
			return false
		}
		if r.lit(']') {
			return true
		}
		if !r.lit(',') {
			return false
		}
	}
}
