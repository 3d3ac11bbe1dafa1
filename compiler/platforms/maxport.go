package platforms

// MaxPortGbps returns the fastest port speed of a switch model, its
// cages' own speed, Gbit/s; 0 when it has no ports.
func (s Switch) MaxPortGbps() int {
	g := 0
	for _, sp := range portSpeeds {
		if s.Ports[sp] > 0 {
			g = portSpeedGbps[sp]
		}
	}
	return g
}

// portSpeedGbps are the Switch.Ports keys in Gbit/s.
var portSpeedGbps = map[string]int{"100G": 100, "200G": 200, "400G": 400, "800G": 800, "1.6T": 1600}
