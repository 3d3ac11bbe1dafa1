package gnmi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
)

// configOnly takes every "state" container out of the JSON values of a
// Get of type ALL, in place, keeping the order of everything else. A
// value that is not JSON is left as it is: the platform reading it says
// what it cannot read.
func configOnly(resp *gpb.GetResponse) error {
	for _, n := range resp.GetNotification() {
		for _, u := range n.GetUpdate() {
			switch v := u.GetVal().GetValue().(type) {
			case *gpb.TypedValue_JsonIetfVal:
				out, err := withoutState(v.JsonIetfVal)
				if err != nil {
					return err
				}
				v.JsonIetfVal = out
			case *gpb.TypedValue_JsonVal:
				out, err := withoutState(v.JsonVal)
				if err != nil {
					return err
				}
				v.JsonVal = out
			}
		}
	}
	return nil
}

// withoutState returns the JSON document js without the members named
// "state" (with or without a module prefix) at any depth.
func withoutState(js []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var out bytes.Buffer
	if err := copyValue(dec, &out); err != nil {
		return nil, fmt.Errorf("leaving out operational state: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("leaving out operational state: data after the JSON value")
	}
	return out.Bytes(), nil
}

// copyValue copies the next JSON value from dec to out, leaving out state
// members.
func copyValue(dec *json.Decoder, out *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		out.WriteByte('{')
		first := true
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			name, _ := k.(string)
			if local := name[strings.LastIndex(name, ":")+1:]; local == "state" {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return err
				}
				continue
			}
			if !first {
				out.WriteByte(',')
			}
			first = false
			kb, _ := json.Marshal(name)
			out.Write(kb)
			out.WriteByte(':')
			if err := copyValue(dec, out); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		out.WriteByte('}')
	case json.Delim('['):
		out.WriteByte('[')
		for i := 0; dec.More(); i++ {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := copyValue(dec, out); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		out.WriteByte(']')
	default:
		b, err := json.Marshal(tok)
		if err != nil {
			return err
		}
		out.Write(b)
	}
	return nil
}
