package ir

// Catalog element kinds: the intent elements whose capability and
// disruption class the platform catalog (compiler/platforms) describes
// per platform. A device's Disruption is keyed by them, and renderers
// label each statement or setting they emit with the kind it realises,
// so a plan knows what changing it disrupts. They spell the catalog's
// keys; compiler's tests check each one is a catalog element.
const (
	ElementDSCPMap         = "dscp-map"
	ElementTCQueue         = "tc-queue"
	ElementPFC             = "pfc"
	ElementHeadroomCable   = "headroom-cable"
	ElementPFCWatchdog     = "pfc-watchdog"
	ElementECN             = "ecn"
	ElementETS             = "ets"
	ElementStrict          = "strict"
	ElementShaping         = "shaping"
	ElementAdaptiveRouting = "adaptive-routing"
	ElementMTU             = "mtu"
)

// ElementKinds are the element kinds renderers label statements with, in
// a fixed order.
func ElementKinds() []string {
	return []string{ElementDSCPMap, ElementTCQueue, ElementPFC, ElementHeadroomCable, ElementPFCWatchdog,
		ElementECN, ElementETS, ElementStrict, ElementShaping, ElementAdaptiveRouting, ElementMTU}
}
