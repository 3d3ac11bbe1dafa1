package linttest

import "strings"

// TwoLeafInventory returns the devices.json of a small explicit topology:
// spine-00 above leaf-a and leaf-b (DS5000s running SONiC, each leaf's
// Ethernet248 up to the spine on 30 m), the servers hosts (ConnectX-7),
// and a 400G link on 3 m for each of links, written "server:nic
// leaf:port". The placement and scheduler tests wire servers across and
// off these leaves to see how they are grouped.
func TwoLeafInventory(hosts []string, links ...string) string {
	var b strings.Builder
	b.WriteString(`{"devices": [
  {"name": "spine-00", "role": "spine", "platform": "sonic", "model": "DS5000"},
  {"name": "leaf-a", "role": "leaf", "platform": "sonic", "model": "DS5000"},
  {"name": "leaf-b", "role": "leaf", "platform": "sonic", "model": "DS5000"}`)
	for _, h := range hosts {
		b.WriteString(",\n  {\"name\": \"" + h + `", "role": "host", "platform": "linux", "model": "connectx-7"}`)
	}
	b.WriteString("],\n \"links\": [")
	for _, l := range links {
		a, z, _ := strings.Cut(l, " ")
		b.WriteString("\n  {\"a\": \"" + a + `", "b": "` + z + `", "speed": "400G", "cable": "3m"},`)
	}
	b.WriteString(`
  {"a": "leaf-a:Ethernet248", "b": "spine-00:Ethernet0", "speed": "400G", "cable": "30m"},
  {"a": "leaf-b:Ethernet248", "b": "spine-00:Ethernet8", "speed": "400G", "cable": "30m"}]}`)
	return b.String()
}
