package schema

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The accepted forms of each kind of quantity, quoted in every unit error so
// that the user sees at once what to write instead.
const (
	SizeForms     = `a byte count (150000) or a number with B, KB, MB, GB (powers of 1000), KiB, MiB, GiB (powers of 1024) or cells, e.g. "150KB", "64KiB"`
	RateForms     = `a number with Kbit, Mbit, Gbit, Tbit (or K, M, G, T), in bits per second, e.g. "50Gbit", "800Mbit"`
	SpeedForms    = `one of "100G", "200G", "400G", "800G", "1.6T"`
	LengthForms   = `a number with m or km, e.g. "3m", "30m", "1.2km"`
	DurationForms = `a number with ns, us, ms or s, e.g. "200ms", "50us"`
)

// splitUnit splits "150 KB" into 150 and "KB". It accepts an optional single
// space and a decimal fraction; anything else is an error for the caller to
// phrase.
func splitUnit(s string) (float64, string, bool) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return 0, "", false
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || math.IsInf(n, 0) || math.IsNaN(n) || n < 0 {
		return 0, "", false
	}
	return n, strings.TrimPrefix(s[i:], " "), true
}

// ParseSize reads a size. It returns the number of bytes, or, for "N cells",
// the number of cells with cells set: converting cells needs the platform's
// cell size, which only the compiler knows.
func ParseSize(s string) (n int64, cells bool, err error) {
	v, unit, ok := splitUnit(strings.TrimSpace(s))
	mult := map[string]float64{"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9,
		"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "cells": 1}
	m, known := mult[unit]
	if !ok || !known || v*m > 1<<50 {
		return 0, false, fmt.Errorf("invalid size %q: want %s", s, SizeForms)
	}
	if unit == "cells" {
		if v != math.Trunc(v) {
			return 0, false, fmt.Errorf("invalid size %q: cells are whole numbers", s)
		}
		return int64(v), true, nil
	}
	return int64(math.Round(v * m)), false, nil
}

// ParseRate reads a rate and returns bits per second.
func ParseRate(s string) (int64, error) {
	v, unit, ok := splitUnit(strings.TrimSpace(s))
	mult := map[string]float64{"K": 1e3, "Kbit": 1e3, "M": 1e6, "Mbit": 1e6,
		"G": 1e9, "Gbit": 1e9, "T": 1e12, "Tbit": 1e12}
	m, known := mult[unit]
	if !ok || !known || v == 0 || v*m > 1e15 {
		return 0, fmt.Errorf("invalid rate %q: want %s", s, RateForms)
	}
	return int64(math.Round(v * m)), nil
}

// ParseSpeed reads a port speed and returns it in Gbit/s.
func ParseSpeed(s string) (int, error) {
	switch s {
	case "100G":
		return 100, nil
	case "200G":
		return 200, nil
	case "400G":
		return 400, nil
	case "800G":
		return 800, nil
	case "1.6T":
		return 1600, nil
	}
	return 0, fmt.Errorf("invalid port speed %q: want %s", s, SpeedForms)
}

// FormatSpeed is the inverse of ParseSpeed.
func FormatSpeed(gbps int) string {
	if gbps == 1600 {
		return "1.6T"
	}
	return strconv.Itoa(gbps) + "G"
}

// ParseLength reads a cable length and returns metres.
func ParseLength(s string) (float64, error) {
	v, unit, ok := splitUnit(strings.TrimSpace(s))
	if ok && v <= 1e5 {
		switch unit {
		case "m":
			return v, nil
		case "km":
			if v <= 100 {
				return v * 1000, nil
			}
		}
	}
	return 0, fmt.Errorf("invalid length %q: want %s", s, LengthForms)
}

// FormatLength writes metres the way users write them: "3m", "2.5m".
func FormatLength(m float64) string {
	return strconv.FormatFloat(m, 'f', -1, 64) + "m"
}

// ParseDuration reads a duration.
func ParseDuration(s string) (time.Duration, error) {
	v, unit, ok := splitUnit(strings.TrimSpace(s))
	mult := map[string]float64{"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
	m, known := mult[unit]
	if !ok || !known || v*m > float64(24*time.Hour) {
		return 0, fmt.Errorf("invalid duration %q: want %s", s, DurationForms)
	}
	return time.Duration(math.Round(v * m)), nil
}
