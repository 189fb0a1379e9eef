package hostread

import (
	"reflect"
	"testing"

	"github.com/openclaw/sessions/internal/doctor"
	"github.com/openclaw/sessions/internal/testutil/docjson"
	"github.com/openclaw/sessions/internal/usage"
)

// TestDocsKeepTheStoredJSON: the documents of the host-only reads
// (internal/hostdoc, what ops hands out) marshal byte for byte as the
// engines' own types do, every field set — a field a doctor finding or
// usage's totals gain and the document lacks fails here.
func TestDocsKeepTheStoredJSON(t *testing.T) {
	var f doctor.Finding
	docjson.Fill(reflect.ValueOf(&f).Elem(), 3)
	docjson.SameJSON(t, "doctor finding", []doctor.Finding{f}, (&DoctorAnswer{Findings: []doctor.Finding{f}}).Doc(false).Findings)

	var tot usage.Totals
	docjson.Fill(reflect.ValueOf(&tot).Elem(), 3)
	docjson.SameJSON(t, "usage totals", tot, (&UsageAnswer{Totals: tot}).Doc(0, 0).Totals)
}
