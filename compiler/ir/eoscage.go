package ir

import "strconv"

// EOSCageSpeed returns the EOS speed statement argument for a port that
// uses its whole eight-lane cage (EthernetN/1 alone) at speedGbps, on a
// model whose cages run cageGbps: "" and true when the port runs the
// cage's own speed and needs none. A slower port takes speed and lane
// count, the lanes it needs at the cage's own lane rate (cage / 8): 100G
// on a 400G QSFP-DD cage of 50G lanes is "100g-2", 200G on an 800G OSFP
// cage of 100G lanes "200g-2". The form is the one AVD renders for an
// EthernetN/1 port (aristanetworks/avd@3cac535c
// ansible_collections/arista/avd/molecule/eos_designs_unit_tests/intended/
// configs/DC1-SPINE1.cfg, Ethernet49/1 "speed 100g-2"). A speed that is no
// whole number of lanes has no form: false. It lives with the IR so that
// the EOS renderer, which prints it, and lint, which reports the gap,
// share the one formula.
func EOSCageSpeed(speedGbps, cageGbps int) (string, bool) {
	if speedGbps <= 0 || speedGbps >= cageGbps {
		return "", true
	}
	rate := cageGbps / lanesPerCage
	if rate <= 0 || speedGbps%rate != 0 {
		return "", false
	}
	return strconv.Itoa(speedGbps) + "g-" + strconv.Itoa(speedGbps/rate), true
}

// lanesPerCage is the SerDes lanes of an OSFP or QSFP-DD cage.
const lanesPerCage = 8
