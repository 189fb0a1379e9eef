package engine

import (
	"errors"
	"strings"
	"testing"
)

// auto with a handshake probe: a gateway that accepts the credentials is
// chosen; one that does not is passed over (the reason logged) for openclaw
// or provider.
func TestChooseAutoGatewayProbe(t *testing.T) {
	none := func(string) string { return "" }
	c := ChooseAuto(nil, Probe{Getenv: none, Gateway: func() (string, error) { return "ws://127.0.0.1:9 (port 9 answers)", nil }})
	if c.Spec != SpecGateway || !strings.Contains(c.Reasons[0], "live at ws://127.0.0.1:9") {
		t.Errorf("accepted: %+v", c)
	}
	c = ChooseAuto(nil, Probe{Getenv: none, Gateway: func() (string, error) { return "", errors.New("refused our credentials") }})
	if c.Spec == SpecGateway || !strings.Contains(c.Reasons[0], "gateway: refused our credentials") {
		t.Errorf("refused: %+v", c)
	}
}
