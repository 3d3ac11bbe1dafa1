package gnmi

import (
	"context"
	"fmt"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/ygot/ygot"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefab/rocefab/compiler/ir"
)

// GetState returns d's answer to a Get of the operational state at paths
// (gNMI path strings, e.g. "/interfaces"), in JSON_IETF: what doctor
// --sample reads the counters from. It asks for type STATE (gNMI
// specification 3.3.1, "The data type requested"), and, from a device that
// refuses that type (google/gnxi's reference server answers any type but
// ALL with Unimplemented, gnmi/server.go), for type ALL, which holds the
// state too. Nothing is changed on the device.
func (t *Target) GetState(ctx context.Context, d *ir.Device, paths []string) ([]*gpb.Notification, error) {
	dev, err := t.device(d)
	if err != nil {
		return nil, err
	}
	req := &gpb.GetRequest{Encoding: gpb.Encoding_JSON_IETF, Type: gpb.GetRequest_STATE}
	for _, p := range paths {
		gp, err := ygot.StringToStructuredPath(p)
		if err != nil {
			return nil, fmt.Errorf("gNMI path %q: %w", p, err)
		}
		req.Path = append(req.Path, gp)
	}
	for {
		c, cancel := t.rpc(ctx)
		resp, err := dev.client.Get(c, req)
		cancel()
		if err != nil {
			if code := status.Code(err); req.Type == gpb.GetRequest_STATE && (code == codes.Unimplemented || code == codes.InvalidArgument) {
				req.Type = gpb.GetRequest_ALL
				continue
			}
			return nil, fmt.Errorf("gNMI Get (type %s): %w", req.Type, err)
		}
		return resp.GetNotification(), nil
	}
}
