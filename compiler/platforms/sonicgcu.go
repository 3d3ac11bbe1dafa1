package platforms

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// gcuConf is one release's gcu_field_operation_validators.conf.json as
// generic_config_updater reads it. Python iterates its dicts in the file's
// order, and get_asic_name and rdma_config_update_validator take the first
// match, so the order is kept.
type gcuConf struct {
	mellanox  []keyed[[]string] // helper_data mellanox_asics
	broadcom  []keyed[[]string] // helper_data broadcom_asics
	validator map[string]gcuTable
}

type keyed[T any] struct {
	key string
	val T
}

type gcuTable struct {
	validators []string             // field_operation_validators, module paths
	scenarios  []keyed[gcuScenario] // validator_data rdma_config_update_validator
}

type gcuScenario struct {
	Fields     []string          `json:"fields"`
	Operations []string          `json:"operations"`
	Platforms  map[string]string `json:"platforms"`
}

// ordered decodes a JSON object into its members in the file's order.
func ordered[T any](raw json.RawMessage) ([]keyed[T], error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var out []keyed[T]
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: %w", t, err)
		}
		out = append(out, keyed[T]{t.(string), v})
	}
	return out, nil
}

func decodeGCUConf(raw []byte) (*gcuConf, error) {
	var top struct {
		HelperData struct {
			RDMA struct {
				Mellanox json.RawMessage `json:"mellanox_asics"`
				Broadcom json.RawMessage `json:"broadcom_asics"`
			} `json:"rdma_config_update_validator"`
		} `json:"helper_data"`
		Tables map[string]struct {
			Validators    []string `json:"field_operation_validators"`
			ValidatorData struct {
				RDMA json.RawMessage `json:"rdma_config_update_validator"`
			} `json:"validator_data"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	c := &gcuConf{validator: map[string]gcuTable{}}
	var err error
	if c.mellanox, err = ordered[[]string](top.HelperData.RDMA.Mellanox); err != nil {
		return nil, fmt.Errorf("helper_data mellanox_asics: %w", err)
	}
	if c.broadcom, err = ordered[[]string](top.HelperData.RDMA.Broadcom); err != nil {
		return nil, fmt.Errorf("helper_data broadcom_asics: %w", err)
	}
	for name, t := range top.Tables {
		g := gcuTable{validators: t.Validators}
		if len(t.ValidatorData.RDMA) > 0 {
			if g.scenarios, err = ordered[gcuScenario](t.ValidatorData.RDMA); err != nil {
				return nil, fmt.Errorf("tables %s: %w", name, err)
			}
		}
		for _, v := range t.Validators {
			if _, ok := gcuValidators[strings.TrimPrefix(v, gcuModule)]; !ok {
				return nil, fmt.Errorf("tables %s: validator %q is not one rocefab models (%s)", name, v, strings.Join(slices.Sorted(maps.Keys(gcuValidators)), ", "))
			}
		}
		c.validator[name] = g
	}
	return c, nil
}

const gcuModule = "generic_config_updater.field_operation_validators."

// asicName is field_operation_validators.py get_asic_name: the HWSKU
// compared, case-insensitively, with the listed Mellanox HWSKUs of the
// entries the release checks, or for Broadcom, each listed HWSKU looked
// for inside it, the first ASIC in the file's order winning; "unknown"
// otherwise.
func (c *gcuConf) asicName(asicType, hwsku string, checked []string) string {
	h := strings.ToLower(hwsku)
	switch asicType {
	case "mellanox":
		for _, name := range checked {
			i := slices.IndexFunc(c.mellanox, func(k keyed[[]string]) bool { return k.key == name })
			if i >= 0 && slices.ContainsFunc(c.mellanox[i].val, func(s string) bool { return strings.ToLower(s) == h }) {
				return name
			}
		}
	case "broadcom":
		for _, k := range c.broadcom {
			if slices.ContainsFunc(k.val, func(s string) bool { return strings.Contains(h, strings.ToLower(s)) }) {
				return k.key
			}
		}
	}
	return "unknown"
}

// gcuValidators are the validator functions of field_operation_validators.py
// by name: whether each admits an operation on a table's path.
var gcuValidators = map[string]func(c gcuTable, asic, image, op string, path, members []string) bool{
	// rdma_config_update_validator: exact field match, path elements
	// holding a digit (port names) dropped; in 202411 the function itself,
	// from 202505 rdma_config_update_validator_common with
	// exact_field_match=True, remove_port=True.
	"rdma_config_update_validator": func(c gcuTable, asic, image, op string, path, members []string) bool {
		return c.rdmaCommon(asic, image, op, path, members, true, true)
	},
	// wred_profile_config_update_validator (202505): the common check,
	// a field matched by the path's last element.
	"wred_profile_config_update_validator": func(c gcuTable, asic, image, op string, path, members []string) bool {
		return c.rdmaCommon(asic, image, op, path, members, false, false)
	},
	// buffer_profile_config_update_validator (202511): a whole profile
	// (/BUFFER_PROFILE/<name>) added, replaced or removed passes; a
	// field goes through the common check as WRED_PROFILE's did.
	"buffer_profile_config_update_validator": func(c gcuTable, asic, image, op string, path, members []string) bool {
		if len(path) == 2 {
			return op == "add" || op == "remove" || op == "replace"
		}
		return c.rdmaCommon(asic, image, op, path, members, false, false)
	},
	// port_config_update_validator: a remove passes; a speed or fec must
	// be one STATE_DB PORT_TABLE lists as supported, which the switch
	// fills from its SAI. rocefab sets the speeds of the SKU's
	// platform.json breakout modes and the HWSKU's fec, so it takes
	// them as supported.
	"port_config_update_validator": func(gcuTable, string, string, string, []string, []string) bool { return true },
}

// admits runs the validators the release's file names for path's table,
// as gu_common.py validate_field_operation does: every one must pass.
func (c *gcuConf) admits(asic, image, op string, path, members []string) bool {
	t, ok := c.validator[path[0]]
	if !ok {
		return true
	}
	for _, v := range t.validators {
		f := gcuValidators[strings.TrimPrefix(v, gcuModule)]
		if f == nil || !f(t, asic, image, op, path, members) {
			return false
		}
	}
	return true
}

// rdmaCommon is rdma_config_update_validator_common (202505 on; the
// 202411 rdma_config_update_validator is the exact, remove-port case): the
// path below the table, lowercased, one field per member of an object
// value, each matched against the scenarios in order; the first scenario
// with the field must list the ASIC with a non-empty first image no newer
// than the switch's, and the operation.
func (t gcuTable) rdmaCommon(asic, image, op string, path, members []string, exact, removePort bool) bool {
	if asic == "unknown" {
		return false
	}
	var elems []string
	for _, e := range path[1:] {
		if removePort && strings.ContainsFunc(e, unicode.IsDigit) {
			continue
		}
		elems = append(elems, e)
	}
	cleaned := strings.ToLower(strings.Join(elems, "/"))
	fields := []string{cleaned}
	if members != nil {
		fields = fields[:0]
		for _, m := range members {
			if cleaned != "" {
				m = cleaned + "/" + m
			}
			fields = append(fields, m)
		}
	}
	match := func(patch, gcu string) bool {
		if exact {
			return patch == gcu
		}
		return patch[strings.LastIndexByte(patch, '/')+1:] == gcu
	}
	for _, f := range fields {
		var sc *gcuScenario
		for i := range t.scenarios {
			if slices.ContainsFunc(t.scenarios[i].val.Fields, func(g string) bool { return match(f, g) }) {
				sc = &t.scenarios[i].val
				break
			}
		}
		if sc == nil {
			return false
		}
		first := sc.Platforms[asic]
		if first == "" || !slices.Contains(sc.Operations, op) || image < first {
			return false
		}
	}
	return true
}
