package cmdutil

import (
	"errors"
	"slices"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
)

func TestParseKinds(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{{"", nil}, {"main", []string{"main"}}, {" Group, ,CRON ", []string{"group", "cron"}}, {",,", nil}} {
		got, err := ParseKinds(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseKinds(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	_, err := ParseKinds("main,dm")
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.CodeUsage || err.Error() != `invalid --kinds value "dm" (want main,group,cron,hook,node,other)` {
		t.Errorf("ParseKinds(main,dm): %v", err)
	}
}
