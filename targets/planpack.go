package targets

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/renderers"
)

// A fabric's devices of one platform and role differ in few values: the
// names of their neighbours, their ports, their own name. Their plans
// differ in as few, so a plan file keeps what a device's plan lists and
// pushes (its body: the changes and the remediation) once per shape, and
// for each device the tokens where its body differs from the shape's (its
// own values), with the SHA-256 of the body they make. A hyperscale
// plan is then a few megabytes of shapes and each device's values,
// instead of every device's text copied whole; reading a device's body
// back rebuilds it token for token and refuses it unless it has the
// digest the file binds it to.

// body is what a device's plan lists and pushes, in the JSON its digest
// is of.
type body struct {
	Changes     []renderers.Change `json:"changes"`
	Remediation *Remediation       `json:"remediation"`
}

// encode is the body's canonical JSON, which shapes, values and digests
// are of.
func (b body) encode() ([]byte, error) {
	return json.Marshal(b)
}

// shapeJSON is a shape as a plan file keeps it: the body whole, and the
// SHA-256 of its canonical JSON, by which devices name it.
type shapeJSON struct {
	SHA256      string             `json:"sha256"`
	Changes     []renderers.Change `json:"changes"`
	Remediation *Remediation       `json:"remediation"`
}

// bodyRef is a device's body in a plan file: the shape it is made from,
// the tokens where it differs ("index:token", the index counted from 0 in
// the shape's tokens), and the SHA-256 of the body they make.
type bodyRef struct {
	Shape  string   `json:"shape"`
	Values []string `json:"values,omitempty"`
	SHA256 string   `json:"sha256"`
}

// shape is one shared body and its tokens.
type shape struct {
	id  string
	raw []byte
	// at are the offsets where its tokens start, and len(raw) last.
	at []int32
}

func (s *shape) tokens() int { return len(s.at) - 1 }

func (s *shape) token(i int) []byte { return s.raw[s.at[i]:s.at[i+1]] }

// tokenize returns the offsets where b's tokens start, then len(b): a
// token is a run of letters and digits, or a run of anything else, so
// that a name, a number or a digest is one token and the JSON around it
// another.
func tokenize(b []byte) []int32 {
	at := make([]int32, 0, len(b)/4+2)
	for i := range b {
		if i == 0 || isWord(b[i]) != isWord(b[i-1]) {
			at = append(at, int32(i))
		}
	}
	return append(at, int32(len(b)))
}

func isWord(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func digestOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// packer shares the bodies of a plan's devices as shapes.
type packer struct {
	shapes []*shape
	byID   map[string]*shape
	// byKind is the shape a device of a platform, role and token count
	// is first compared with.
	byKind map[string]*shape
}

func newPacker() *packer {
	return &packer{byID: map[string]*shape{}, byKind: map[string]*shape{}}
}

// maxLen bounds a body the token offsets can address.
const maxLen = 1<<31 - 1

// pack returns dp's body as a reference to a shape, adding the shape when
// dp's body is like none before it.
func (k *packer) pack(dp DevicePlan) (*bodyRef, error) {
	raw, err := body{Changes: dp.Changes, Remediation: dp.Remediation}.encode()
	if err != nil {
		return nil, fmt.Errorf("device %s: %w", dp.Device, err)
	}
	if len(raw) > maxLen {
		return nil, fmt.Errorf("device %s: its changes and remediation take %d bytes, more than a plan file holds for one device (%d)", dp.Device, len(raw), maxLen)
	}
	id := digestOf(raw)
	if s := k.byID[id]; s != nil {
		return &bodyRef{Shape: id, SHA256: id}, nil
	}
	at := tokenize(raw)
	kind := fmt.Sprintf("%s\x00%s\x00%d", dp.Platform, dp.Role, len(at)-1)
	if s := k.byKind[kind]; s != nil {
		var values []string
		size := 0
		for i := range len(at) - 1 {
			t := raw[at[i]:at[i+1]]
			if string(t) == string(s.token(i)) {
				continue
			}
			v := strconv.Itoa(i) + ":" + string(t)
			values = append(values, v)
			// A device mostly unlike the shape is a shape of its own.
			if size += len(v) + 8; size > len(raw)/4 {
				values = nil
				break
			}
		}
		if values != nil {
			return &bodyRef{Shape: s.id, Values: values, SHA256: id}, nil
		}
	}
	s := &shape{id: id, raw: raw, at: at}
	k.shapes = append(k.shapes, s)
	k.byID[id] = s
	if k.byKind[kind] == nil {
		k.byKind[kind] = s
	}
	return &bodyRef{Shape: id, SHA256: id}, nil
}

// unpacker rebuilds devices' bodies from a plan file's shapes.
type unpacker struct {
	byID map[string]*shape
}

// newUnpacker checks each shape against its digest.
func newUnpacker(shapes []shapeJSON) (*unpacker, error) {
	u := &unpacker{byID: make(map[string]*shape, len(shapes))}
	for i, sj := range shapes {
		raw, err := body{Changes: sj.Changes, Remediation: sj.Remediation}.encode()
		if err != nil {
			return nil, fmt.Errorf("shape %d: %w", i+1, err)
		}
		if got := digestOf(raw); got != sj.SHA256 {
			return nil, fmt.Errorf("shape %d: its sha256 is %q, its changes and remediation give %s (the file was edited)", i+1, sj.SHA256, got)
		}
		if u.byID[sj.SHA256] != nil {
			return nil, fmt.Errorf("shape %d: shape %s appears twice", i+1, sj.SHA256)
		}
		if len(raw) > maxLen {
			return nil, fmt.Errorf("shape %d: %d bytes, more than a plan file holds for one device (%d)", i+1, len(raw), maxLen)
		}
		u.byID[sj.SHA256] = &shape{id: sj.SHA256, raw: raw}
	}
	return u, nil
}

// unpack rebuilds a device's body from its reference and checks it
// against the digest the reference binds it to.
func (u *unpacker) unpack(device string, r *bodyRef) (body, error) {
	s := u.byID[r.Shape]
	if s == nil {
		return body{}, fmt.Errorf("device %s: shape %q: the plan has no such shape", device, r.Shape)
	}
	raw := s.raw
	if len(r.Values) > 0 {
		if s.at == nil {
			s.at = tokenize(s.raw)
		}
		var b strings.Builder
		b.Grow(len(s.raw))
		next := 0
		for _, v := range r.Values {
			is, tok, ok := strings.Cut(v, ":")
			i, err := strconv.Atoi(is)
			if !ok || err != nil || i < next || i >= s.tokens() {
				return body{}, fmt.Errorf("device %s: value %q: an index:token whose index is above the one before and below %d, the shape's tokens, is needed", device, v, s.tokens())
			}
			b.Write(s.raw[s.at[next]:s.at[i]])
			b.WriteString(tok)
			next = i + 1
		}
		b.Write(s.raw[s.at[next]:])
		raw = []byte(b.String())
	}
	if got := digestOf(raw); got != r.SHA256 {
		return body{}, fmt.Errorf("device %s: its shape and values give changes and a remediation of SHA-256 %s, and the plan binds it to %s (the file was edited)", device, got, r.SHA256)
	}
	var out body
	if err := json.Unmarshal(raw, &out); err != nil {
		return body{}, fmt.Errorf("device %s: its changes and remediation: %w", device, err)
	}
	if out.Changes == nil && out.Remediation == nil {
		return body{}, errors.New("device " + device + ": its body has neither changes nor a remediation")
	}
	return out, nil
}
