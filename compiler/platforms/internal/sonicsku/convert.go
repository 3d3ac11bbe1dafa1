package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/platforms"
)

type options struct {
	root, platformDir, hwsku, model, repo, commit, ref string
}

// convert reads the SKU's files and returns the port map as the catalog
// embeds it.
func convert(o options) ([]byte, error) {
	if o.root == "" || o.platformDir == "" || o.hwsku == "" || o.model == "" || len(o.commit) != 40 {
		return nil, errors.New("-root, -platform, -hwsku, -model and a 40-digit -commit are required")
	}
	platJSON := path.Join(o.platformDir, "platform.json")
	hwskuJSON := path.Join(o.platformDir, o.hwsku, "hwsku.json")
	portINI := path.Join(o.platformDir, o.hwsku, "port_config.ini")
	var parents []platforms.SONiCParent
	var hw struct {
		Interfaces map[string]map[string]string `json:"interfaces"`
	}
	var rows []platforms.SONiCPortEntry
	// Each file of the vendor tree is read and parsed in turn; a parse
	// error names the file.
	for _, f := range []struct {
		path  string
		parse func([]byte) error
	}{
		{platJSON, func(b []byte) (err error) { parents, err = parsePlatformJSON(b); return err }},
		{hwskuJSON, func(b []byte) error { return json.Unmarshal(b, &hw) }},
		{portINI, func(b []byte) (err error) { rows, err = parsePortConfig(b); return err }},
	} {
		b, err := os.ReadFile(filepath.Join(o.root, filepath.FromSlash(f.path)))
		if err != nil {
			return nil, err
		}
		if err := f.parse(b); err != nil {
			return nil, fmt.Errorf("%s: %w", f.path, err)
		}
	}

	sku := platforms.SONiCSKU{
		Model:    o.model,
		HWSKU:    o.hwsku,
		Platform: path.Base(o.platformDir),
		Source:   platforms.SKUSource{Repo: o.repo, Commit: o.commit, Ref: o.ref, Files: []string{platJSON, hwskuJSON, portINI}},
		Default:  rows,
	}
	// SONiC creates the parents of platform.json that hwsku.json lists,
	// in platform.json order (portconfig.py parse_platform_json_file).
	for _, p := range parents {
		h, ok := hw.Interfaces[p.Name]
		if !ok {
			continue
		}
		p.DefaultMode = h["default_brkout_mode"]
		p.FEC = h["fec"]
		p.Autoneg = h["autoneg"]
		if p.DefaultMode == "" {
			return nil, fmt.Errorf("%s: %s has no default_brkout_mode", hwskuJSON, p.Name)
		}
		sku.Ports = append(sku.Ports, p)
	}
	if err := check(sku); err != nil {
		return nil, err
	}
	return encode(sku)
}

// check refuses a map whose default modes do not give port_config.ini.
func check(sku platforms.SONiCSKU) error {
	derived, err := sku.DefaultPorts()
	if err != nil {
		return err
	}
	if len(derived) != len(sku.Default) {
		return fmt.Errorf("platform.json and hwsku.json give %d ports, port_config.ini %d", len(derived), len(sku.Default))
	}
	for i, d := range derived {
		r := sku.Default[i]
		if d.Name != r.Name || !slices.Equal(d.Lanes, r.Lanes) || d.Alias != r.Alias || d.Index != r.Index ||
			(r.SpeedMbps != 0 && d.SpeedMbps != r.SpeedMbps) {
			return fmt.Errorf("port %d: platform.json and hwsku.json give %s lanes %v alias %s index %d speed %d; port_config.ini has %s lanes %v alias %s index %d speed %d",
				i, d.Name, d.Lanes, d.Alias, d.Index, d.SpeedMbps, r.Name, r.Lanes, r.Alias, r.Index, r.SpeedMbps)
		}
	}
	return nil
}

// parsePlatformJSON reads the interfaces of platform.json in file order:
// SONiC keeps that order, and the alias lists and mode order matter.
func parsePlatformJSON(data []byte) ([]platforms.SONiCParent, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	var out []platforms.SONiCParent
	for dec.More() {
		key, err := stringToken(dec)
		if err != nil {
			return nil, err
		}
		if key != "interfaces" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
			continue
		}
		if err := expectDelim(dec, '{'); err != nil {
			return nil, err
		}
		for dec.More() {
			name, err := stringToken(dec)
			if err != nil {
				return nil, err
			}
			p, err := parseParent(dec, name)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			out = append(out, p)
		}
		if err := expectDelim(dec, '}'); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no interfaces")
	}
	return out, nil
}

func parseParent(dec *json.Decoder, name string) (platforms.SONiCParent, error) {
	p := platforms.SONiCParent{Name: name}
	if err := expectDelim(dec, '{'); err != nil {
		return p, err
	}
	for dec.More() {
		key, err := stringToken(dec)
		if err != nil {
			return p, err
		}
		switch key {
		case "lanes", "index":
			var s string
			if err := dec.Decode(&s); err != nil {
				return p, err
			}
			v, err := ints(s)
			if err != nil {
				return p, fmt.Errorf("%s: %w", key, err)
			}
			if key == "lanes" {
				p.Lanes = v
			} else {
				p.Index = v
			}
		case "breakout_modes":
			if err := expectDelim(dec, '{'); err != nil {
				return p, err
			}
			for dec.More() {
				mode, err := stringToken(dec)
				if err != nil {
					return p, err
				}
				var aliases []string
				if err := dec.Decode(&aliases); err != nil {
					return p, err
				}
				p.Modes = append(p.Modes, platforms.BreakoutMode{Mode: mode, Aliases: aliases})
			}
			if err := expectDelim(dec, '}'); err != nil {
				return p, err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return p, err
			}
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return p, err
	}
	// A one-lane port's index may be given once for its single lane.
	if len(p.Index) == 1 && len(p.Lanes) > 1 {
		for len(p.Index) < len(p.Lanes) {
			p.Index = append(p.Index, p.Index[0])
		}
	}
	if len(p.Lanes) == 0 || len(p.Modes) == 0 {
		return p, errors.New("lanes and breakout_modes are required")
	}
	return p, nil
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != d {
		return fmt.Errorf("want %q, got %v", d, t)
	}
	return nil
}

func stringToken(dec *json.Decoder) (string, error) {
	t, err := dec.Token()
	if err != nil {
		return "", err
	}
	s, ok := t.(string)
	if !ok {
		return "", fmt.Errorf("want a key, got %v", t)
	}
	return s, nil
}

func ints(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// parsePortConfig reads port_config.ini the way SONiC does
// (sonic-config-engine portconfig.py parse_port_config_file): a comment
// line naming the columns ("# name lanes alias index speed ..."), then one
// port per line; the alias defaults to the name.
func parsePortConfig(data []byte) ([]platforms.SONiCPortEntry, error) {
	titles := []string{"name", "lanes", "alias", "index"}
	var out []platforms.SONiCPortEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			if f := strings.Fields(strings.TrimLeft(line, "#")); len(f) > 0 && f[0] == "name" {
				titles = f
			}
			continue
		}
		tok := strings.Fields(line)
		if len(tok) < 2 {
			continue
		}
		var e platforms.SONiCPortEntry
		for i, v := range tok {
			if i >= len(titles) {
				break
			}
			var err error
			switch titles[i] {
			case "name":
				e.Name = v
			case "lanes":
				e.Lanes, err = ints(v)
			case "alias":
				e.Alias = v
			case "index":
				e.Index, err = strconv.Atoi(v)
			case "speed":
				e.SpeedMbps, err = strconv.Atoi(v)
			case "fec":
				e.FEC = v
			}
			if err != nil {
				return nil, fmt.Errorf("line %d: %s %q: %w", n, titles[i], v, err)
			}
		}
		if e.Alias == "" {
			e.Alias = e.Name
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// encode writes the map compactly: one line per port, so that a diff
// between two vendor commits reads port by port.
func encode(s platforms.SONiCSKU) ([]byte, error) {
	var b bytes.Buffer
	line := func(v any) error {
		j, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(j)
		return nil
	}
	b.WriteString("{\n")
	for _, f := range []struct {
		k string
		v any
	}{{"model", s.Model}, {"hwsku", s.HWSKU}, {"platform", s.Platform}, {"source", s.Source}} {
		fmt.Fprintf(&b, "  %q: ", f.k)
		if err := line(f.v); err != nil {
			return nil, err
		}
		b.WriteString(",\n")
	}
	// list writes the n items of an array, one a line.
	list := func(n int, item func(i int) any) error {
		for i := range n {
			b.WriteString("    ")
			if err := line(item(i)); err != nil {
				return err
			}
			if i < n-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		return nil
	}
	b.WriteString("  \"ports\": [\n")
	if err := list(len(s.Ports), func(i int) any { return s.Ports[i] }); err != nil {
		return nil, err
	}
	b.WriteString("  ],\n  \"portConfig\": [\n")
	if err := list(len(s.Default), func(i int) any { return s.Default[i] }); err != nil {
		return nil, err
	}
	b.WriteString("  ]\n}\n")
	if _, err := platforms.DecodeSONiCSKU(b.Bytes()); err != nil {
		return nil, fmt.Errorf("the map does not decode: %w", err)
	}
	return b.Bytes(), nil
}
