package host

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzReadState holds readState to encoding/json: whatever it reads,
// encoding/json reads into the same stateDoc, one document and nothing
// after it.
func FuzzReadState(f *testing.F) {
	files, _ := filepath.Glob("../../examples/pod-2048/running/gpu-000[01]/" + StateFile)
	for _, p := range files {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
	for _, s := range []string{
		`{}`,
		` {"device": "gpu-0", "settings": [], "notes": ["a\nb", "\u00e9"], "errors": []} `,
		`{"device":"gpu-0","settings":[{"path":"eth2/mtu","have":null,"want":"4200"}],"unmanaged":[{"path":"eth9/x","why":"not in the intent"}]}`,
		`{"Device": "x"}`,
		`{"device": "a", "device": "b"}`,
		`{"settings": null}`,
		`{"device": "\ud83d\ude00"}`,
		`{"device": 1}`,
		`{"device": "a"} {}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got, ok := readState(src)
		if !ok {
			return
		}
		var want stateDoc
		dec := json.NewDecoder(bytes.NewReader(src))
		if err := dec.Decode(&want); err != nil || dec.More() {
			t.Fatalf("%q: readState read what encoding/json refuses (%v, more %v)", src, err, dec.More())
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("%q: readState %+v, encoding/json %+v", src, *got, want)
		}
	})
}

// TestReadStateReadsReports: the reports the examples keep are read by
// readState, not left to encoding/json.
func TestReadStateReadsReports(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*/running/*/" + StateFile)
	if len(files) == 0 {
		t.Fatal("no host state report in the examples")
	}
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := readState(src); !ok {
			t.Errorf("%s is not read by readState", p)
		}
	}
}
